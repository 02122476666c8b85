// The embed's controller (embed.html): reads its parameters, shows a light
// preview until Python starts (on view or on click), mounts one of the app's
// view elements, and talks to the host page (embed-messages.js). The store and
// the views are imported only when the widget starts, so a page of previews
// loads a few kilobytes each.
//
// State on #embed[data-state]: preview | booting | ready | released | error.
import { el, clear } from "./dom.js";
import { rawParams, parseEmbedParams, APP_ROUTES, VIEW_TITLES } from "./embed-params.js";
import { HostLink, PROTOCOL_VERSION, shorten } from "./embed-messages.js";
import { DEFAULT_CHAR_LIMIT, countChars } from "./text-input.js";
import { VIEWS as APP_VIEWS, makeHash } from "./views.js";
import { STATES } from "./share/states.js";
import { compactParams } from "./share/link.js";
import { readLesson } from "./share/lesson.js";
import { sameInput } from "./share/recipe.js";
import { defaultParts } from "./share/parts.js";

// A widget out of view this long gives its worker back (tests shorten it).
const RELEASE_MS = Number(globalThis.__bpeLabReleaseMs) || 30_000;

const root = document.getElementById("embed");
const ui = {
  preview: document.getElementById("embed-preview"),
  title: document.getElementById("embed-title"),
  start: document.getElementById("embed-start"),
  errors: document.getElementById("embed-errors"),
  warnings: document.getElementById("embed-warnings"),
  status: document.getElementById("embed-status"),
  mount: document.getElementById("embed-mount"),
  bar: document.getElementById("embed-bar"),
  open: document.getElementById("embed-open"),
  report: document.getElementById("embed-report"),
};

let config = null;      // parseEmbedParams result
let host = null;        // HostLink
let store = null;       // the store module's store, once started
let view = null;        // the mounted view element
let viewName = null;    // explorer | compare | train | encode
let samples = [];       // samples/index.json's list
let saved = null;       // the view's state when its worker was given back
let booting = null;     // promise of the first start
let queue = Promise.resolve(); // commands run one after another
let visible = false;
let releaseTimer = 0;
let heldState = null;   // the latest state before ready: hosts hear ready first, then it
let ready = false;      // init() has read the parameters: commands may run
let typed = false;      // the reader has typed into the view since the host last set its text
const pending = [];     // commands heard and not yet run, in order
let draining = false;

// The widget's longest text, in characters (code points, as Python counts them): a longer
// `text` command is refused at once, before it reaches the view or the worker.
export const TEXT_LIMIT = DEFAULT_CHAR_LIMIT;
// Runs of these commands collapse to their last: only the final step (or text) is drawn.
const COLLAPSING = new Set(["step", "text"]);

// Listen from the first script: a command posted at the frame's load event (before the
// parameters and the samples are read) waits in `pending` and runs once the widget is ready.
host = new HostLink(rawParams(location.search, location.hash).get("id"));
host.listen(enqueue);

function enqueue(command) {
  if (command.action === "text") {
    const n = command.args.text.length <= TEXT_LIMIT ? countChars(command.args.text) : countChars(command.args.text.slice(0, 2 * TEXT_LIMIT + 2));
    if (n > TEXT_LIMIT) {
      const size = command.args.text.length > 2 * TEXT_LIMIT ? `over ${(2 * TEXT_LIMIT).toLocaleString("en-US")}` : n.toLocaleString("en-US");
      host.error(`The text command failed: the text is ${size} characters, over the widget's limit of `
        + `${TEXT_LIMIT.toLocaleString("en-US")} characters; send a shorter text.`);
      return;
    }
  }
  pending.push(command);
  // On the next task, not now: a burst posted together is all queued by then, and its runs collapse.
  if (ready && !drainTimer) drainTimer = setTimeout(drain, 0);
}
let drainTimer = 0;

/** Run the pending commands one after another; a run of step (or text) commands runs only its last. */
async function drain() {
  drainTimer = 0;
  if (draining) return;
  draining = true;
  try {
    while (pending.length) {
      let command = pending.shift();
      // Pauses inside a run of steps (nothing plays between them) change nothing but to stop a play: one runs first.
      let paused = false;
      while (COLLAPSING.has(command.action) && pending.length
             && (pending[0].action === command.action || (command.action === "step" && pending[0].action === "pause"))) {
        const next = pending.shift();
        if (next.action === "pause") paused = true;
        else command = next;
      }
      if (paused) { queue = queue.then(() => runCommand({ action: "pause", args: {} })); await queue; }
      if (command.action === "text" || command.action === "load" || command.action === "view") typed = false;
      queue = queue.then(() => runCommand(command));
      await queue;
    }
  } finally {
    draining = false;
  }
}

function setState(state, message = "") {
  root.dataset.state = state;
  ui.status.textContent = message;
  if (state === "ready" && heldState) {
    host.post(heldState);
    heldState = null;
  }
}

function showProblems(node, problems) {
  clear(node);
  node.hidden = problems.length === 0;
  if (problems.length === 1) node.append(problems[0]);
  else if (problems.length) node.append(el("ul", {}, problems.map((p) => el("li", {}, p))));
}

/** A failure the reader sees and the host hears about; the widget stays on screen. */
function fail(message) {
  message = shorten(message);
  setState("error", "");
  showProblems(ui.errors, [message]);
  posted.add(message);
  host.error(message);
}

// Every failure a reader sees in the widget reaches the host page as an `error` too: the views
// show theirs in alerts and status lines marked as errors, which this watcher reads as they appear.
const posted = new Set();   // messages already posted (a failure shown twice is told once while shown)
let watchTimer = 0;
// Error alerts (encode, train), a compare pane's error line, and a view's status line while it is in its error state.
// (A wrong guess in predict mode is an .alert.error too, but it is an answer, not a failure.)
const FAILURE_SELECTOR = ".alert.error:not(.predict-answer), .compare-pane .error";

function failuresShown() {
  const nodes = [...view.querySelectorAll(FAILURE_SELECTOR)];
  if (view.dataset.state === "error") nodes.push(...view.querySelectorAll("#compare-status"));
  return nodes;
}

function watchFailures(node) {
  new MutationObserver(() => {
    if (!watchTimer) watchTimer = setTimeout(scanFailures, 50);
  }).observe(node, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["hidden", "class", "data-state"] });
}

function scanFailures() {
  watchTimer = 0;
  if (!view) return;
  const shown = new Set();
  for (const node of failuresShown()) {
    if (node.closest("[hidden]") || node.closest(".hint")) continue;
    const text = shorten((node.textContent || "").replace(/\s+/g, " ").trim());
    if (!text) continue;
    shown.add(text);
    if (!posted.has(text)) { posted.add(text); host.error(text); }
  }
  // A failure no longer shown may be told again when it comes back.
  for (const text of [...posted]) if (!shown.has(text) && !recent.has(text)) posted.delete(text);
  recent.clear();
}
const recent = new Set();  // posted by onProblem since the last scan (not always drawn)


async function loadSampleList() {
  try {
    const response = await fetch(new URL("../samples/index.json", import.meta.url));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return (await response.json()).samples || [];
  } catch (error) {
    console.warn(`bpe-lab: the samples index could not be read (${error.message})`);
    return [];
  }
}

function applyTheme(theme) {
  // light (default) and dark force the palette; auto follows the reader's system.
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

async function init() {
  const raw = rawParams(location.search, location.hash);
  samples = await loadSampleList();
  config = await parseEmbedParams(raw, samples);
  applyTheme(config.theme);
  host.watchSize(root);
  showReporting(config.report);
  ready = true;
  drain();
  ui.title.textContent = config.title;
  document.title = `${config.title} · BPE Lab`;
  showProblems(ui.warnings, config.warnings);
  for (const warning of config.warnings) host.error(warning);
  if (config.errors.length) {
    setState("error");
    showProblems(ui.errors, config.errors);
    ui.preview.querySelector(".embed-actions").hidden = true;
    for (const message of config.errors) host.error(message);
    return;
  }
  viewName = config.view;
  setState("preview");
  ui.start.addEventListener("click", () => start());
  ui.preview.addEventListener("click", (event) => {
    if (config.start === "click" && event.target === ui.preview) start();
  });
  watchVisibility();
}

function watchVisibility() {
  if (!("IntersectionObserver" in window)) { visible = true; if (config.start === "visible") start(); return; }
  new IntersectionObserver((entries) => {
    visible = entries.some((entry) => entry.isIntersecting);
    if (visible) {
      clearTimeout(releaseTimer);
      releaseTimer = 0;
      if (root.dataset.state === "preview" && config.start === "visible") start();
      else if (root.dataset.state === "released") queue = queue.then(restore);
    } else {
      armRelease();
    }
  }).observe(root);
}

/** Out of view with Python running: give it back in RELEASE_MS unless the widget comes back first. */
function armRelease() {
  if (visible || !view || releaseTimer) return;
  releaseTimer = setTimeout(() => { releaseTimer = 0; queue = queue.then(release); }, RELEASE_MS);
}

/** Boot Python and mount the view (once; later calls get the same promise). */
function start() {
  booting ??= (async () => {
    setState("booting", "Starting Python…");
    ui.start.disabled = true;
    try {
      const storeModule = await import("./store.js");
      store = storeModule.store;
      store.addEventListener("boot", (event) => {
        const { step, steps } = event.detail;
        if (root.dataset.state === "booting") setState("booting", `Starting Python… (${step} of ${steps})`);
      });
      store.addEventListener("fatal", (event) => fail(`Python could not start: ${event.detail.message}`));
      await store.start();
      // lesson=1: the view comes with the lesson (a load command, from <bpe-lab src>); until then the status says so.
      if (!config.awaitLesson) await mount(viewName, config.state, config.parts);
    } catch (error) {
      fail(error.message || String(error));
      return;
    }
    host.post({ type: "ready", version: PROTOCOL_VERSION, view: viewName });
    setState("ready", view ? "" : "Waiting for the lesson file…");
    if (config.autoplay) queue = queue.then(() => runCommand({ action: "play", args: {} }));
  })();
  return booting;
}

/** Mount view `name` showing `state` (its state module's value), with `parts` of it (default: a lesson page's). */
async function mount(name, state, parts = null) {
  const spec = APP_VIEWS.find((v) => v.route === APP_ROUTES[name]);
  await import(new URL(spec.module, new URL("./views.js", import.meta.url)).href).catch((error) => {
    throw new Error(`The ${name} view could not be loaded (${error.message}).`);
  });
  const next = document.createElement(spec.tag);
  next.classList.add("embed-view");
  next.dataset.parts = ` ${(parts || defaultParts(name, state, STATES[APP_ROUTES[name]].defaults())).join(" ")} `;
  next.addEventListener("bpe-state", onState);
  next.addEventListener("bpe-answer", onAnswer);
  next.addEventListener("bpe-params", updateOpenLink);
  next.addEventListener("bpe-problem", onProblem);
  view?.remove();
  view = next;
  viewName = name;
  ui.mount.append(next);
  if (!next.dataset.watched) { next.dataset.watched = "1"; watchFailures(next); }
  // The reader's typing (not the host's text command) makes what the view shows the reader's own.
  next.addEventListener("input", (event) => { if (event.target.matches("textarea, input[type=text], input:not([type])")) typed = true; }, true);
  ui.preview.hidden = true; // the view has its own heading; the status line says what is loading
  setState("booting", `Preparing the ${VIEW_TITLES[name].toLowerCase()}…`);
  await next.setState(state);
  updateOpenLink();
}

/** The view cannot show what it was asked to: the reader sees its message, the host hears it. */
function onProblem(event) {
  if (event.target !== view) return;
  const message = shorten(event.detail.message);
  posted.add(message);
  recent.add(message);
  host.error(message);
}

/** What of the reader's own input the host asked to hear (report=): the widget says so on screen. */
function showReporting(report) {
  const hint = ui.preview.querySelector(".embed-actions .hint");
  if (!report.length) return;
  const what = report.includes("text") && report.includes("ids") ? "the text you type and its token ids"
    : report.includes("text") ? "the text you type" : "the token ids of what you type";
  const note = `This widget reports ${what} to the page around it.`;
  if (hint) hint.textContent = `Runs Python in your browser (about 20 MB, downloaded once). ${note}`;
  ui.report.textContent = note;
  ui.report.hidden = false;
}

/** A state message with what the host may hear: the reader's typed text's ids only when report= asks. */
function reportable(message) {
  if (!typed) return message;
  const out = { ...message };
  if (!config.report.includes("ids")) {
    delete out.ids;
    if (Array.isArray(out.panes)) out.panes = out.panes.map(({ ids, ...pane }) => pane);
  }
  if (config.report.includes("text") && typeof view.fullText === "string") out.text = view.fullText;
  return out;
}

function onState(event) {
  if (event.target !== view) return;
  const { view: _, ...detail } = event.detail || {};
  const message = reportable({ type: "state", view: viewName, ...detail });
  // While the view is being mounted or restored, only its last state is told, once it is ready.
  if (root.dataset.state === "booting") heldState = message;
  else host.post(message);
}

function onAnswer(event) {
  if (event.target !== view) return;
  const { step, correct } = event.detail || {};
  host.post({ type: "answer", step, correct });
}

/** "Open in BPE Lab": the app at the same view and state, in a new tab. */
let openTimer = 0;
function updateOpenLink() {
  if (!view) return;
  clearTimeout(openTimer);
  openTimer = setTimeout(async () => {
    const route = APP_ROUTES[viewName];
    const url = new URL("../index.html", import.meta.url);
    url.hash = makeHash(route, await compactParams(STATES[route].toParams(view.state, { samples }).params));
    ui.open.href = url.href;
    ui.bar.hidden = false;
  }, 100);
}

let carriedTraining = null;  // the last training recipe a view of this widget had

/** The state for another view of this widget: its own keys from the address, then the same text and tokenizer. */
function carriedState(toName) {
  const from = view?.state || config.state;
  const fromRoute = APP_ROUTES[viewName];
  const toRoute = APP_ROUTES[toName];
  const module = STATES[toRoute];
  const next = module.fromParams(Object.fromEntries(Object.entries(config.params).filter(([key]) => module.KEYS.includes(key))), { samples }).state;
  // What it is about: the text the view shows (compare, encode), or its training input (explorer, train).
  const own = fromRoute === "compare" || fromRoute === "encode" ? (from.sample ? { sample: from.sample } : { text: from.text }) : null;
  // A view without training (compare with no trained pane) keeps the recipe of the one before it, when it shows
  // the same input: explorer -> compare -> explorer comes back to the same tokenizer, not one of default settings.
  if (from.training) carriedTraining = structuredClone(from.training);
  const training = from.training ?? (own && carriedTraining && sameInput(carriedTraining, own) ? structuredClone(carriedTraining) : null);
  const recipe = training ?? (own ? { ...own, settings: STATES.train.defaults().training.settings } : null);
  if (toRoute === "train" && recipe) next.training = structuredClone(recipe);
  if (toRoute === "explore" && recipe && (recipe.sample !== undefined || recipe.text || recipe.documents || recipe.counts)
      && (next.tok === "" || next.tok === "trained")) {
    Object.assign(next, { tok: "trained", training: structuredClone(recipe) });
  }
  if (toRoute === "compare" || toRoute === "encode") {
    const input = own ?? (recipe?.sample !== undefined ? { sample: recipe.sample } : recipe?.text !== undefined ? { text: recipe.text } : null);
    if (input?.sample !== undefined) Object.assign(next, { sample: input.sample, text: "" });
    else if (input) Object.assign(next, { sample: "", text: input.text });
    const trained = toRoute === "compare" ? next.panes.some((p) => /^(trained|alt_)/.test(p)) : next.tok === "trained";
    if (trained) next.training = structuredClone(recipe ?? { ...input, settings: STATES.train.defaults().training.settings });
  }
  return next;
}

async function runCommand({ action, args }) {
  try {
    if (root.dataset.state === "error") throw new Error("The widget stopped with an error; reload the page to try again.");
    await start();
    if (root.dataset.state === "released") await restore();
    if (action === "view") {
      if (args.view !== viewName) {
        await mount(args.view, carriedState(args.view));
        setState("ready");
      }
      return;
    }
    if (action === "load") {
      const lesson = readLesson(args.lesson, { samples, name: args.name || "The lesson" });
      if (lesson.view === "vocab") throw new Error("The lesson is for the vocabulary view, which has no widget: open it in BPE Lab.");
      await mount(lesson.view, lesson.state, config.parts);
      setState("ready");
      return;
    }
    if (!view) throw new Error("The widget is waiting for its lesson: send a load command first.");
    if (typeof view.command !== "function") throw new Error(`The ${viewName} view takes no commands yet.`);
    if (action === "play") {
      // Playing lasts until the last step or a pause: the commands after it (pause) must not wait for it.
      const mounted = view;
      view.command(action, args).catch((error) => { if (mounted === view) host.error(`The play command failed: ${error.message || error}`); });
      return;
    }
    await view.command(action, args);
  } catch (error) {
    // A lesson the widget waited for and cannot show: the reader sees why, not an empty frame.
    if (action === "load" && !view) { fail(`The lesson could not be loaded: ${error.message || error}`); return; }
    host.error(`The ${action} command failed: ${error.message || error}`);
    if (root.dataset.state === "booting" && view) setState("ready");
  }
  armRelease(); // a command may have restarted a widget that is out of view
}

/** Out of view for RELEASE_MS: give the worker (and its Python) back; keep what is drawn. */
async function release() {
  if (visible || !view || root.dataset.state !== "ready" || typeof store.release !== "function") return;
  saved = view.state;
  store.release();
  setState("released", "Python was paused to save memory; it restarts when the widget is back in view.");
}

/** Back in view: a fresh worker, then the view restores its params (and step). */
async function restore() {
  if (root.dataset.state !== "released") return;
  setState("booting", "Restarting Python…");
  try {
    await store.start();
    await view.setState(saved);
  } catch (error) {
    fail(`The widget could not restart: ${error.message || error}`);
    return;
  }
  setState("ready");
}

init().catch((error) => {
  // The last line of defence: never a blank frame.
  fail(`The widget could not start: ${error.message || error}`);
  ready = true;
  drain();
});
