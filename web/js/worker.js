// The module worker: boots Pyodide from our own folder, unpacks the bpelab
// package and answers requests through bpelab.worker_api. Protocol (STYLE.md):
//   boot:    {type:"boot", stage, step, steps} ... then {type:"ready", versions} | {type:"fatal", message}
//   request: {id, type, payload}
//   replies: {id, type:"progress", payload}* then {id, type:"result", payload} | {id, type:"error", error:{type, message}}
import { loadPyodide } from "../pyodide/pyodide.mjs";

const SITE = new URL("../", import.meta.url);
const BOOT_STAGES = ["config", "runtime", "package", "import"];

let handle = null;  // Python callable: handle(kind, payload_json, progress) -> reply_json
let pyodide = null;
let build = null;   // build.json: versions and the rank files the site ships
let chain = null;   // requests run one after another, in arrival order

function stage(name) {
  self.postMessage({ type: "boot", stage: name, step: BOOT_STAGES.indexOf(name) + 1, steps: BOOT_STAGES.length });
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url.pathname}: HTTP ${response.status}`);
  return response;
}

async function boot() {
  stage("config");
  // The build info and the package download while Pyodide starts, not after it.
  const buildReady = fetchOk(new URL("build.json", SITE)).then((response) => response.json());
  const zipReady = buildReady.then(async (info) => {
    // The hash in the query string makes a rebuilt package bypass any cached copy.
    const zipURL = new URL(`py/bpelab.zip?v=${info.package_sha256.slice(0, 16)}`, SITE);
    return (await fetchOk(zipURL)).arrayBuffer();
  });
  zipReady.catch(() => {}); // awaited below; this only keeps an early failure from being "unhandled"
  stage("runtime");
  const indexURL = new URL("pyodide/", SITE).href;
  pyodide = await loadPyodide({
    indexURL,
    // Packages would otherwise resolve against the CDN; we load none, and
    // pointing the package base at our own folder keeps every URL same-origin.
    packageBaseUrl: indexURL,
    fullStdLib: false,
    stdout: (line) => console.log("[py]", line),
    stderr: (line) => console.warn("[py]", line),
  });
  build = await buildReady;
  stage("package");
  const zip = await zipReady;
  pyodide.unpackArchive(zip, "zip", { extractDir: "/home/pyodide/site" });
  stage("import");
  pyodide.runPython("import sys\nif '/home/pyodide/site' not in sys.path: sys.path.insert(0, '/home/pyodide/site')");
  const api = pyodide.pyimport("bpelab.worker_api");
  api.configure(JSON.stringify({ site: SITE.href, ranks: build.ranks || [] }));
  handle = api.handle;
  const versions = JSON.parse(api.versions());
  versions.pyodide = pyodide.version;
  versions.build = { bpelab: build.bpelab, pyodide: build.pyodide };
  self.postMessage({ type: "ready", versions });
}

// Requests that need a file first: Python reads it from Pyodide's file system,
// so worker_api stays free of fetch and JS objects.
async function prepare(request) {
  if (request.type !== "reference") return;
  const file = `${request.payload?.name}.tiktoken`;
  if (!(build.ranks || []).includes(file)) return; // worker_api explains the missing file
  const path = `/tmp/ranks/${file}`;
  if (!pyodide.FS.analyzePath(path).exists) {
    const data = new Uint8Array(await (await fetchOk(new URL(`ranks/${file}`, SITE))).arrayBuffer());
    pyodide.FS.mkdirTree("/tmp/ranks");
    pyodide.FS.writeFile(path, data);
  }
  request.payload.path = path;
}

async function answer(request) {
  if (!handle) {
    self.postMessage({ id: request.id, type: "error", error: { type: "NotReady", message: "Python is not running; restart it" } });
    return;
  }
  try {
    await prepare(request);
  } catch (error) {
    self.postMessage({ id: request.id, type: "error", error: { type: "FetchError", message: String(error.message || error) } });
    return;
  }
  const { id, type, payload } = request;
  // Python calls this with a JSON string; the page throttles nothing, so Python does.
  const progress = (json) => self.postMessage({ id, type: "progress", payload: JSON.parse(json) });
  let reply;
  try {
    reply = JSON.parse(handle(type, JSON.stringify(payload ?? {}), progress));
  } catch (error) {
    // Only a bug in worker_api itself lands here: it turns Python errors into replies.
    self.postMessage({ id, type: "error", error: { type: error.type || error.name || "Error", message: String(error.message || error) } });
    return;
  }
  if (reply.ok) self.postMessage({ id, type: "result", payload: reply.result });
  else self.postMessage({ id, type: "error", error: reply.error });
}

chain = boot().catch((error) => {
  self.postMessage({ type: "fatal", message: String(error && error.message ? error.message : error) });
  throw error;
});

self.onmessage = (event) => {
  const request = event.data;
  if (!request || typeof request.id !== "number") return;
  // Requests sent during boot wait for it; a failed boot has already said so (fatal).
  chain = chain.then(() => answer(request), () => answer(request));
};
