// The shell: boot status, navigation between views, and a router on
// location.hash (#/train?size=…, #/encode?…). It mounts one view at a time;
// views already shown stay in the page (hidden), so their work is kept.
// Views talk to each other only through the store.
import { store } from "./store.js";
import { VIEWS, DEFAULT_ROUTE, parseHash, makeHash } from "./views.js";
import { el, show, hide } from "./dom.js";
import { holdFieldsForState } from "./state-hold.js";
import "./components/share-link.js";
import { STATES } from "./share/states.js";
import { MAX_LINK, compactParams, expandParams, COMPRESSED } from "./share/link.js";
import { readLesson, MAX_LESSON_BYTES } from "./share/lesson.js";
import { loadSamples } from "./samples.js";

const $ = (id) => document.getElementById(id);
const ui = {
  app: $("app"), status: $("status"), bootProgress: $("boot-progress"), restart: $("restart"),
  fatal: $("fatal"), nav: $("nav"), main: $("view"), versions: $("versions"), share: $("share"),
  problems: $("link-problems"), openLesson: $("open-lesson"), lessonInput: $("lesson-input"), lessonStatus: $("lesson-status"),
};
// "Copy link" for the view on screen (the Train view has its own, beside Train).
const share = document.createElement("bpe-share-link");
share.id = "app-share";
ui.share.append(share);

const BOOT_NAMES = {
  config: "reading the build", runtime: "loading Python (Pyodide)", package: "loading the bpelab package",
  import: "importing bpelab",
};
const RUN_NAMES = { train: "training", export: "writing the files", import: "importing files", report: "measuring compression" };

const app = {
  route: null,       // the route on show
  mounted: new Map(), // route -> element (or a "coming" placeholder)
  addresses: new Map(), // route -> the hash its view's state was last written as, for the nav links
  navigations: 0,     // counts go(): a state write that started before a navigation is dropped
  applying: Promise.resolve(),  // the state being applied to a view: the next waits for it, so the last address wins
  bootTimes: [],
};

// ------------------------------------------------------------------ status

store.addEventListener("boot", ({ detail }) => {
  app.bootTimes.push([detail.stage, Math.round(performance.now())]);
  // On the snapshot path the runtime stage restores a saved Python; on a fallback it says why the snapshot was not used.
  const name = detail.stage === "runtime" && detail.boot === "snapshot" ? "restoring Python from a snapshot"
    : detail.reason ? `starting Python normally (${detail.reason})` : BOOT_NAMES[detail.stage] || detail.stage;
  ui.status.textContent = `Starting Python… step ${detail.step} of ${detail.steps}: ${name}`;
  ui.bootProgress.value = detail.step - 1;
  ui.bootProgress.max = detail.steps;
});

store.addEventListener("ready", ({ detail: { versions } }) => {
  hide(ui.fatal);
  ui.restart.hidden = true;
  ui.versions.textContent = `bpelab ${versions.bpelab} · Python ${versions.python} in Pyodide ${versions.pyodide} · Unicode ${versions.unicodedata}`;
  app.bootTimes.push(["ready", Math.round(performance.now())]);
  // worker-client may say how Python started: from a memory snapshot, or the full start-up.
  const how = versions.boot === "snapshot" ? " from a snapshot"
    : versions.boot === "fallback" ? ` (full start-up${versions.boot_reason ? `: ${versions.boot_reason}` : ""})` : "";
  if (app.readyAt === undefined) {
    app.readyAt = performance.now();
    ui.status.textContent = `Python is ready${how} (${(app.readyAt / 1000).toFixed(1)} s)`;
  } else {
    ui.status.textContent = `Python is ready again (restarted)${how}`;
  }
});

store.addEventListener("fatal", ({ detail }) => {
  show(ui.fatal, `Python could not start: ${detail.message}\nYour text and settings are still here. Restart Python to continue.`, "error");
  ui.status.textContent = "Python is not running";
  ui.restart.hidden = false;
});

store.addEventListener("crash", () => { ui.status.textContent = "Restarting Python after a crash…"; });

store.addEventListener("phase", ({ detail: { phase } }) => {
  ui.app.dataset.state = phase;
  if (phase === "busy" && store.running) ui.status.textContent = `Python is busy: ${RUN_NAMES[store.running.kind] || store.running.kind}…`;
  else if (phase === "ready" && ui.status.textContent.startsWith("Python is busy")) ui.status.textContent = "Python is ready";
});

store.addEventListener("status", ({ detail }) => { ui.status.textContent = detail.text; });
store.addEventListener("run", ({ detail }) => { ui.app.dataset.runs = String(detail.runs); });

ui.restart.addEventListener("click", () => {
  hide(ui.fatal);
  ui.restart.hidden = true;
  ui.status.textContent = "Restarting Python…";
  store.restart("restarted by the user");
});

// ------------------------------------------------------------------ navigation

function renderNav() {
  ui.nav.replaceChildren(...VIEWS.map((view) => el("li", {},
    el("a", {
      href: app.addresses.get(view.route) || makeHash(view.route),
      "aria-current": view.route === app.route ? "page" : undefined,
      dataset: { route: view.route },
    }, view.label))));
}

async function mount(route) {
  if (app.mounted.has(route)) return app.mounted.get(route);
  const view = VIEWS.find((v) => v.route === route);
  let node;
  try {
    await import(view.module);
    node = document.createElement(view.tag);
    if (!customElements.get(view.tag)) throw new Error(`${view.module} did not define <${view.tag}>`);
  } catch (error) {
    console.warn(`view ${route}: ${error.message}`);
    node = el("section", { className: "panel coming", "aria-labelledby": `coming-${route}` },
      el("h2", { id: `coming-${route}`, text: view.label }),
      el("p", { text: `The ${view.label} view is coming. Train, Encode and Vocabulary work today.` }));
  }
  node.dataset.route = route;
  node.hidden = true;
  ui.main.append(node);
  app.mounted.set(route, node);
  return node;
}

let hashTimer = 0;  // a pending write of a view's state to the address

function showProblems(problems, what = "This link") {
  if (!problems.length) { hide(ui.problems); return; }
  show(ui.problems, `${what} cannot be shown exactly as it asks: ${problems.join(" ")}`, "error");
}

/**
 * Show a route. `state` (a lesson's) or the hash's params (a link, the address) are applied to its view,
 * unless this is a move between views already on the page (`keep`), which keep what they show.
 */
async function go(hash, { focus = false, keep = false, state = null } = {}) {
  const { route, params } = parseHash(hash);
  if (!(keep && app.mounted.has(route))) {
    clearTimeout(hashTimer);  // a write of a state from before this navigation must not overwrite its address
    app.navigations += 1;
  }
  const navigation = app.navigations;
  const changed = route !== app.route;
  app.route = route;
  ui.app.dataset.view = route;
  const mounted = app.mounted.has(route);
  const node = await mount(route);
  if (app.route !== route) return;  // another navigation overtook this one
  for (const other of app.mounted.values()) other.hidden = other !== node;
  renderNav();
  ui.share.hidden = route === "train" || !("state" in node);
  if (!ui.share.hidden) share.connect(node, route);
  if (changed) {
    const view = VIEWS.find((v) => v.route === route);
    document.title = `BPE Lab: ${view.label}`;
    if (focus) ui.main.focus({ preventScroll: true });
  }
  if (typeof node.setState !== "function" || (keep && mounted)) return;
  const release = holdFieldsForState(node);
  try {
    await applyState(node, navigation, params, state, route);
  } finally {
    release();
  }
  if (navigation === app.navigations) ui.app.dataset.applied = String(navigation);  // tests wait for it
}

/** Read a link's params (or take a lesson's state) and show it in the view, after the states before it. */
async function applyState(node, navigation, params, state, route) {
  if (!state) {
    const problems = [];
    const samples = await loadSamples().catch(() => []);
    const expanded = await expandParams(params, problems);
    const read = STATES[route].fromParams(expanded, { samples });
    problems.push(...read.problems);
    showProblems(problems);
    state = read.state;
  } else {
    hide(ui.problems);
  }
  // Two quick address changes: a view's setState awaits samples and the worker, so the first could finish
  // last and show the wrong state. States are applied one at a time, and one overtaken before its turn is skipped.
  const apply = () => (navigation === app.navigations ? node.setState(state) : undefined);
  app.applying = app.applying.catch(() => {}).then(apply);
  await app.applying;
}

/** A view's state changed: write it to the address (replaceState: no history entry per keystroke). */
function writeHash(route, node) {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(async () => {
    const navigations = app.navigations;
    const samples = await loadSamples().catch(() => []);
    const { params } = STATES[route].toParams(node.state, { samples });  // as the view is now, not as it was when it asked
    let hash = makeHash(route, await compactParams(params));
    // Too long for an address: it keeps the rest ("Copy link" offers a lesson file for the whole).
    if (location.href.length - location.hash.length + hash.length > MAX_LINK) {
      for (const [key, zkey] of Object.entries(COMPRESSED)) { delete params[key]; delete params[zkey]; }
      hash = makeHash(route, await compactParams(params));
    }
    if (navigations !== app.navigations) return;  // a navigation since: its own write follows
    app.addresses.set(route, hash);
    if (route === app.route && hash !== location.hash) history.replaceState(null, "", hash);
    renderNav();
  }, 150);
}

ui.main.addEventListener("bpe-params", (event) => {
  const node = event.target.closest("[data-route]");
  if (!node || !("state" in node)) return;
  writeHash(node.dataset.route, node);
});

// ------------------------------------------------------------------ lesson files

/** Open a lesson (*.bpelab.json): its view, with its state. */
async function openLesson(file) {
  ui.lessonStatus.textContent = "";
  try {
    if (file.size > MAX_LESSON_BYTES) throw new Error(`${file.name} is ${Math.round(file.size / 1048576)} MB; a lesson file is at most ${MAX_LESSON_BYTES / 1048576} MB.`);
    const text = new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
    const lesson = readLesson(text, { samples: await loadSamples().catch(() => []), name: file.name });
    history.pushState(null, "", makeHash(lesson.route));
    await go(location.hash, { focus: true, state: lesson.state });
    ui.lessonStatus.textContent = `Opened the lesson ${file.name}.`;
  } catch (error) {
    const message = error instanceof TypeError ? `${file.name} is not UTF-8 text.` : error.message;
    show(ui.problems, `The lesson file could not be opened: ${message}`, "error");
  }
}

ui.openLesson.addEventListener("click", () => ui.lessonInput.click());
ui.lessonInput.addEventListener("change", () => {
  const [file] = ui.lessonInput.files;
  ui.lessonInput.value = "";
  if (file) openLesson(file);
});

// The new address of the event, not location.hash: a write of a view's state (writeHash) that lands between
// the address changing and this event must not be taken for the address the reader went to.
window.addEventListener("hashchange", (event) => go(new URL(event.newURL).hash, { focus: false }));
ui.nav.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-route]");
  if (!link) return;
  event.preventDefault();
  if (link.dataset.route === app.route) return;
  history.pushState(null, "", link.getAttribute("href"));
  go(location.hash, { focus: true, keep: true });
});
// The skip link moves focus; following its #fragment would be read as a route.
document.querySelector(".skip")?.addEventListener("click", (event) => {
  event.preventDefault();
  ui.main.focus();
});

// A file dropped outside a drop zone would navigate away from the page and lose the work;
// a lesson file dropped anywhere opens (the Train view's drop zones let lesson files through).
window.addEventListener("dragover", (event) => event.preventDefault());
window.addEventListener("drop", (event) => {
  event.preventDefault();
  const lesson = [...(event.dataTransfer?.files || [])].find((file) => /\.bpelab\.json$/i.test(file.name));
  if (lesson) openLesson(lesson);
});

// ------------------------------------------------------------------ start

ui.app.dataset.state = "booting";
ui.app.dataset.runs = "0";
store.start();
go(location.hash || makeHash(DEFAULT_ROUTE));

// For tests and the console: read-only views of the state, no new behaviour.
window.bpelab = {
  store,
  get client() { return store.client; },
  get view() { return app.mounted.get(app.route); },
  state: { get bootStages() { return store.bootStages; }, get bootTimes() { return app.bootTimes; } },
};
