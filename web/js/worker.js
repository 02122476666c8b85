// The module worker: boots Pyodide from our own folder, unpacks the bpelab
// package and answers requests through bpelab.worker_api. Protocol (STYLE.md):
//   boot:    {type:"boot", stage, step, steps, boot?, reason?} ...
//            then {type:"ready", versions} | {type:"fatal", message}
//   request: {id, type, payload}
//   replies: {id, type:"progress", payload}* then {id, type:"result", payload} | {id, type:"error", error:{type, message}}
//   after a fatal Pyodide error while serving: {type:"fatal", message, after_ready:true}; the page restarts the worker.
//
// Two boot paths (issue 16). "snapshot": Python's memory as build_site.py saved it after
// importing bpelab (build.json `snapshot`), gzip-compressed, so only the runtime starts. It
// loads the build's small standard library (`snapshot.stdlib_file`) instead of Pyodide's
// 2.5 MB python_stdlib.zip; a module in neither comes from that full one, fetched on first
// need (js/stdlib-fallback.js, issue 23).
// "fallback": a normal loadPyodide() and import. The fallback is taken, with the reason in
// the boot and ready messages, when the build has no snapshot, when it was made by another
// Pyodide or another package than the one this build ships, when it fails to load, or when
// the page was opened with ?boot=fallback (WorkerClient passes that on).
import { loadPyodide, version as PYODIDE_VERSION } from "../pyodide/pyodide.mjs";
import { installStdlibFallback } from "./stdlib-fallback.js";

const SITE = new URL("../", import.meta.url);
const FLAGS = new URL(import.meta.url).searchParams;
const BOOT_STAGES = ["config", "runtime", "package", "import"];
const SITE_DIR = "/home/pyodide/site";
// Nesting deep enough to overflow the JavaScript stack inside Python's JSON parser: a real fatal error.
const FATAL_PROBE = "import json\njson.loads('[' * 200000 + ']' * 200000)";

let handle = null;  // Python callable: handle(kind, payload_json, progress) -> reply_json
let pyodide = null;
let build = null;   // build.json: versions and the files the site ships
let chain = null;   // requests run one after another, in arrival order
let fatal = null;   // the message, once Pyodide has failed fatally: no request runs after it
let bootPath = null;
let bootReason = null;
const bootTimes = {};  // stage -> ms since this worker started, for the bench and the console

function stage(name) {
  bootTimes[name] = Math.round(performance.now());
  const message = { type: "boot", stage: name, step: BOOT_STAGES.indexOf(name) + 1, steps: BOOT_STAGES.length };
  if (bootPath) message.boot = bootPath;
  if (bootReason) message.reason = bootReason;
  self.postMessage(message);
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url.pathname}: HTTP ${response.status}`);
  return response;
}

// The only snapshot file format this worker reads (build_site.py writes it; js/snapshot-delta.js).
const SNAPSHOT_FORMAT = "gzip, XOR pyodide.asm.wasm data segments";

/** Why this build's snapshot cannot be used here, or null when it can. */
function snapshotProblem(info) {
  const snap = info.snapshot;
  if (FLAGS.get("boot") === "fallback") return "the page asked for it (?boot=fallback)";
  if (!snap || !snap.file) return "this build has no snapshot";
  if (snap.format !== SNAPSHOT_FORMAT || !snap.stdlib_file) {
    return `the snapshot is stored as ${JSON.stringify(snap.format || "gzip")}, which this worker does not read`;
  }
  if (snap.pyodide !== PYODIDE_VERSION) {
    return `the snapshot was made by Pyodide ${snap.pyodide}, but Pyodide ${PYODIDE_VERSION} is running`;
  }
  if (snap.package_sha256 !== info.package_sha256 || snap.bpelab !== info.bpelab) {
    return `the snapshot holds bpelab ${snap.bpelab} (package ${String(snap.package_sha256).slice(0, 12)}), ` +
      `but this build ships bpelab ${info.bpelab} (package ${String(info.package_sha256).slice(0, 12)})`;
  }
  return null;
}

/**
 * Fill `memory` (zeroed, the build's length) with the snapshot, which a helper worker
 * downloads, inflates and XORs back into shape on another thread (inflating 31 MB here
 * took this thread 0.3 s that Pyodide's own start needs). Resolves once every byte is in;
 * on any failure it rejects and leaves the header zeroed, so that Pyodide's restoreSnapshot
 * refuses it ("invalid magic number") instead of running Python on half a memory.
 */
async function fillSnapshot(memory, expected, indexURL) {
  try {
    const loader = new Worker(new URL("./snapshot-loader.js", import.meta.url), { type: "module" });
    const reply = await new Promise((resolve, reject) => {
      loader.onmessage = (event) => resolve(event.data);
      loader.onerror = (event) => { event.preventDefault(); reject(new Error(event.message || "its loader did not start")); };
      loader.postMessage({ url: new URL(expected.file, SITE).href, bytes: expected.bytes,
                           wasmURL: new URL("pyodide.asm.wasm", indexURL).href, checksum: expected.wasm_data_checksum });
    }).finally(() => loader.terminate());
    if (!reply.ok) throw new Error(reply.message);
    for (const [step, when] of Object.entries(reply.times)) {
      bootTimes[`snapshot_${step}`] = Math.round(when - performance.timeOrigin);  // on this worker's clock
    }
    bootTimes.snapshot_unpacked = Math.round(performance.now());
    // A copy (31 MB, ~30 ms): Pyodide already holds `memory`, so the loader cannot fill it in place.
    memory.set(new Uint8Array(reply.buffer));
  } catch (error) {
    memory.fill(0, 0, 8);
    throw error;
  }
}

const OPTIONS = {
  // Packages would otherwise resolve against the CDN; we load none, and
  // pointing the package base at our own folder keeps every URL same-origin.
  // make_snapshot.mjs passes the same options, so both paths set Python up alike.
  fullStdLib: false,
  stdout: (line) => console.log("[py]", line),
  stderr: (line) => console.warn("[py]", line),
};

async function startPython(info, indexURL) {
  const problem = snapshotProblem(info);
  if (!problem) {
    bootPath = "snapshot";
    stage("runtime");
    try {
      // Pyodide sizes the wasm memory by the snapshot and copies it in only once its
      // runtime is up (restoreSnapshot). So it gets a zeroed buffer of the right size at
      // once, and starts the runtime while the snapshot downloads into that buffer; its
      // fsInit hook, which Pyodide awaits before it restores, waits for the last byte.
      const memory = new Uint8Array(info.snapshot.bytes);
      const filling = fillSnapshot(memory, info.snapshot, indexURL);
      let fillError = null;
      const waitForFill = () => filling.catch((error) => { fillError = error; });
      // The standard library whose table of contents the snapshot's zip importer holds.
      const stdLibURL = new URL(info.snapshot.stdlib_file, SITE).href;
      let py;
      try {
        py = await loadPyodide({ ...OPTIONS, indexURL, packageBaseUrl: indexURL, stdLibURL, _loadSnapshot: memory,
                                 fsInit: waitForFill });
      } catch (error) {
        throw fillError || error;  // a download that failed explains a refused snapshot best
      }
      // The build's claims were checked above; this checks what is really inside.
      const inside = py.runPython("import __main__, json\njson.dumps(getattr(__main__, '_bpelab_snapshot', None))");
      const marker = JSON.parse(inside);
      if (!marker || marker.package_sha256 !== info.package_sha256) {
        throw new Error(`it holds package ${String(marker?.package_sha256).slice(0, 12)}, ` +
          `not this build's ${String(info.package_sha256).slice(0, 12)}`);
      }
      installStdlibFallback(py, {
        url: new URL("python_stdlib.zip", indexURL).href,
        names: info.snapshot.stdlib_names,
        onFetch: (url) => console.warn(`bpelab: a module the snapshot lacks; fetching ${new URL(url).pathname}`),
      });
      return py;
    } catch (error) {
      bootReason = `the snapshot did not load: ${error && error.message ? error.message.split("\n")[0] : error}`;
      console.warn(`bpelab: ${bootReason}; starting Python normally`);
    }
  } else {
    bootReason = problem;
  }
  bootPath = "fallback";
  stage("runtime");
  return loadPyodide({ ...OPTIONS, indexURL, packageBaseUrl: indexURL });
}

async function boot() {
  stage("config");
  build = await (await fetchOk(new URL("build.json", SITE))).json();
  // The package downloads while Python starts, not after it. Its name carries its hash (cacheable for ever).
  const zipReady = fetchOk(new URL(build.package_file || "py/bpelab.zip", SITE)).then((response) => response.arrayBuffer());
  zipReady.catch(() => {}); // awaited below; this only keeps an early failure from being "unhandled"
  pyodide = await startPython(build, new URL("pyodide/", SITE).href);
  bootTimes.python = Math.round(performance.now());
  pyodide._api.on_fatal = (error) => { fatal = fatalMessage(error); };
  stage("package");
  // Also on the snapshot path: the snapshot holds Python's memory, not the file system,
  // and the package's files (and any module imported later) must be there.
  pyodide.unpackArchive(await zipReady, "zip", { extractDir: SITE_DIR });
  stage("import");
  // No importlib.invalidate_caches(): it re-reads the standard library's zip (seconds in Pyodide),
  // and the path finders see the unpacked folder anyway (its mtime differs from the snapshot's).
  pyodide.runPython(`import sys\nif ${JSON.stringify(SITE_DIR)} not in sys.path: sys.path.insert(0, ${JSON.stringify(SITE_DIR)})`);
  const api = pyodide.pyimport("bpelab.worker_api");
  api.configure(JSON.stringify({ site: SITE.href, ranks: build.ranks || [] }));
  handle = api.handle;
  const versions = JSON.parse(api.versions());
  versions.pyodide = pyodide.version;
  versions.build = { bpelab: build.bpelab, pyodide: build.pyodide };
  versions.boot = bootPath;
  if (bootReason) versions.boot_reason = bootReason;
  versions.boot_ms = Math.round(performance.now());  // since this worker started
  versions.boot_times = bootTimes;
  self.postMessage({ type: "ready", versions });
}

function fatalMessage(error) {
  const text = String(error && error.message ? error.message : error).split("\n")[0];
  return `Python stopped after a fatal error in Pyodide (${text})`;
}

/** The wasm memory Python has, for messages. */
function memoryNote() {
  const bytes = pyodide?._module?.HEAPU8?.length;  // not public API: a message without it is still true
  return bytes ? `the worker held ${Math.round(bytes / 2 ** 20).toLocaleString("en-US")} MB` : "the worker's memory is not known";
}

function isFatal(error) {
  return Boolean(fatal || (error && error.pyodide_fatal_error) || /already fatally failed/.test(String(error && error.message)));
}

/** Pyodide cannot be used after a fatal error: say so once, answer the request, and let the page restart us. */
function reportFatal(id, error) {
  fatal = fatal || fatalMessage(error);
  if (id !== undefined) self.postMessage({ id, type: "error", error: { type: "PyodideFatalError", message: fatal } });
  self.postMessage({ type: "fatal", message: fatal, after_ready: true });
  handle = null;
}

// Requests that need a file first: Python reads it from Pyodide's file system,
// so worker_api stays free of fetch and JS objects.
async function prepare(request) {
  if (request.type !== "reference") return;
  const file = `${request.payload?.name}.tiktoken`;
  if (!(build.ranks || []).includes(file)) return; // worker_api explains the missing file
  const path = `/tmp/ranks/${file}`;
  if (!pyodide.FS.analyzePath(path).exists) {
    // build.json maps each rank file to its content-hashed name.
    const url = new URL((build.rank_files || {})[file] || `ranks/${file}`, SITE);
    const data = new Uint8Array(await (await fetchOk(url)).arrayBuffer());
    pyodide.FS.mkdirTree("/tmp/ranks");
    pyodide.FS.writeFile(path, data);
  }
  request.payload.path = path;
}

async function answer(request) {
  if (fatal) {
    self.postMessage({ id: request.id, type: "error", error: { type: "PyodideFatalError", message: `${fatal}; restart it` } });
    return;
  }
  if (!handle) {
    self.postMessage({ id: request.id, type: "error", error: { type: "NotReady", message: "Python is not running; restart it" } });
    return;
  }
  const { id, payload } = request;
  let { type } = request;
  if (type === "_debug_import") {
    // Tests only (the page must be opened with ?debug=import): import a module, as a request might.
    if (FLAGS.get("debug") !== "import") {
      self.postMessage({ id, type: "error", error: { type: "RequestError", message: "_debug_import needs the page opened with ?debug=import" } });
      return;
    }
    try {
      const module = pyodide.pyimport(String(payload?.module));
      self.postMessage({ id, type: "result", payload: { file: String(module.__file__) } });
      module.destroy();
    } catch (error) {
      self.postMessage({ id, type: "error", error: { type: error.type || "Error", message: String(error.message || error) } });
    }
    return;
  }
  if (type === "_debug_fatal") {
    // Tests only (the page must be opened with ?debug=fatal): drive Pyodide into a real fatal state.
    if (FLAGS.get("debug") !== "fatal") {
      self.postMessage({ id, type: "error", error: { type: "RequestError", message: "_debug_fatal needs the page opened with ?debug=fatal" } });
      return;
    }
    try {
      pyodide.runPython(FATAL_PROBE);
    } catch (error) {
      if (isFatal(error)) { reportFatal(id, error); return; }
      self.postMessage({ id, type: "error", error: { type: "RequestError", message: `the probe did not fail fatally: ${error.message}` } });
      return;
    }
    self.postMessage({ id, type: "error", error: { type: "RequestError", message: "the probe did not fail fatally" } });
    return;
  }
  if (type === "_debug_high_memory") {
    // Tests only (?debug=fatal): fill wasm memory past 2 GB, then answer {echo} as a ping would.
    if (FLAGS.get("debug") !== "fatal") {
      self.postMessage({ id, type: "error", error: { type: "RequestError", message: "_debug_high_memory needs the page opened with ?debug=fatal" } });
      return;
    }
    pyodide.runPython("import __main__\n__main__._bpelab_ballast = [bytearray(1 << 20) for _ in range(2200)]");
    type = "ping";
  }
  try {
    await prepare(request);
  } catch (error) {
    if (isFatal(error)) { reportFatal(id, error); return; }
    self.postMessage({ id, type: "error", error: { type: "FetchError", message: String(error.message || error) } });
    return;
  }
  // Python calls this with a JSON string; the page throttles nothing, so Python does.
  let garbled = null;
  const progress = (json) => {
    try { self.postMessage({ id, type: "progress", payload: JSON.parse(json) }); } catch (error) { garbled = garbled || error; }
  };
  let reply;
  try {
    const text = handle(type, JSON.stringify(payload ?? {}), progress);
    try {
      reply = JSON.parse(text);
    } catch (error) {
      garbled = error;
    }
    if (garbled) {
      // worker_api only ever returns JSON. Pyodide 314 misreads a Python string of 64 or more
      // ASCII characters that sits above 2 GB of wasm memory (its TextDecoder path takes the
      // address as signed), so the text that arrives is other memory: a wrong answer, never
      // to be shown. Python cannot be trusted after that; the client starts a fresh worker.
      reportFatal(id, new Error(`Python's reply came back garbled (${memoryNote()}), a Pyodide fault with ` +
        "memory over 2 GB; Python was restarted. Try a shorter text or a smaller vocabulary."));
      return;
    }
  } catch (error) {
    // worker_api turns Python errors into replies; what lands here is a fatal
    // Pyodide error (a JavaScript stack overflow, out of memory) or a bug in worker_api.
    if (isFatal(error)) { reportFatal(id, error); return; }
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
