// The embed's page script (embed.html): reads its parameters, shows a light preview until Python
// starts (on view or on click), and wires the widget's parts, each in a module of its own:
//   embed-params.js     the URL parameters, checked, read into the view's state
//   embed-messages.js   the postMessage protocol with the host page (HostLink, checked commands)
//   embed-queue.js      commands wait until the widget is ready, then run in order (runs collapse)
//   embed-commands.js   what each command does
//   embed-lifecycle.js  Python started when seen, given back out of view, restored
//   embed-views.js      the mounted view, switching views, "Open in BPE Lab"
//   embed-failures.js   every failure shown is posted as an `error`
//   embed-report.js     what of the reader's own input the host hears (report=)
// This file holds the widget's status (#embed[data-state]: preview | booting | ready | released |
// error) and the failures it shows itself.
import { el, clear } from "./dom.js";
import { rawParams, parseEmbedParams } from "./embed-params.js";
import { HostLink, shorten } from "./embed-messages.js";
import { CommandQueue } from "./embed-queue.js";
import { runCommand } from "./embed-commands.js";
import { PythonLifecycle } from "./embed-lifecycle.js";
import { EmbedViews } from "./embed-views.js";
import { FailureWatcher } from "./embed-failures.js";
import { ReaderReport } from "./embed-report.js";

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

let heldState = null;  // the latest state before ready: hosts hear ready first, then it

/** What the widget's modules share (each names what it reads). */
const widget = {
  root, ui,
  host: new HostLink(rawParams(location.search, location.hash).get("id")),
  config: null,   // parseEmbedParams result
  samples: [],    // samples/index.json's list
  setState,
  fail,
  /** A state message: posted now, or (while booting) the last one is posted once ready. */
  postState(message) {
    if (root.dataset.state === "booting") heldState = message;
    else widget.host.post(message);
  },
};
widget.reporting = new ReaderReport();
widget.failures = new FailureWatcher(widget.host, () => widget.views.view);
widget.views = new EmbedViews(widget);
widget.queue = new CommandQueue({
  run: (command) => runCommand(widget, command),
  // The host's text, view and load commands make what the view shows the host's again (report=).
  onTake: (command) => { if (["text", "load", "view"].includes(command.action)) widget.reporting.hostSet(); },
});
widget.life = new PythonLifecycle(widget, {
  onStarted: () => { if (widget.config.autoplay) widget.queue.then(() => runCommand(widget, { action: "play", args: {} })); },
});

// Listen from the first script: a command posted at the frame's load event (before the
// parameters and the samples are read) waits in the queue and runs once the widget is ready.
widget.host.listen((command) => widget.queue.push(command));

function setState(state, message = "") {
  root.dataset.state = state;
  ui.status.textContent = message;
  if (state === "ready" && heldState) {
    widget.host.post(heldState);
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
  widget.failures.told(message);
  widget.host.error(message);
}

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
  const { host, life } = widget;
  const raw = rawParams(location.search, location.hash);
  widget.samples = await loadSampleList();
  const config = widget.config = await parseEmbedParams(raw, widget.samples);
  applyTheme(config.theme);
  host.watchSize(root);
  widget.reporting.show(config.report, { preview: ui.preview, note: ui.report });
  widget.queue.start();
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
  widget.views.name = config.view;
  setState("preview");
  ui.start.addEventListener("click", () => life.start());
  ui.preview.addEventListener("click", (event) => {
    if (config.start === "click" && event.target === ui.preview) life.start();
  });
  life.watchVisibility();
}

init().catch((error) => {
  // The last line of defence: never a blank frame.
  fail(`The widget could not start: ${error.message || error}`);
  widget.queue.start();
});
