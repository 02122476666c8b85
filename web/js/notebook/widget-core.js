// What a BPE Lab widget draws in a notebook cell: one of the site's view elements, with
// the widget's traits as its state and the kernel (kernel-client.js) as the store's
// client. Evaluated once per page (widget.js), so the custom elements and the store are
// defined once however many widgets the notebook shows.
//
// Root: <div class="bpelab-widget" data-state="booting|ready|error" data-theme?>; the
// site's CSS is scoped to it (build_widget.mjs). A failure shows the view's one-line
// message, and the widget's `error` trait holds it; a traceback only reaches the console.
import "../views/explorer/explorer-view.js";
import "../views/compare/compare-view.js";
import "../views/encode/encode-view.js";
import { store } from "../store.js";
import { el } from "../dom.js";
import { KernelClient } from "./kernel-client.js";
import { watchTheme } from "./theme.js";
import { VIEWS, traitsOf } from "./traits.js";

/* global __BPELAB_WIDGET_CSS__ */
const CSS = typeof __BPELAB_WIDGET_CSS__ === "string" ? __BPELAB_WIDGET_CSS__ : "";
const client = new KernelClient();
store.useClient((hooks) => { client.hooks = hooks; return client; });
const roots = new Set();  // the widget roots on this page, and the provenance dialog: they follow the theme

/** The stylesheet once per document, and once per shadow root a host draws widgets in (marimo). */
function addStyle(node) {
  const root = node.getRootNode();
  for (const target of new Set([document, root])) {
    const parent = target === document ? document.head : target;
    if (!(parent instanceof Node) || parent.querySelector?.(":scope > style[data-bpelab-widget]")) continue;
    parent.append(el("style", { dataset: { bpelabWidget: "" } }, CSS));
  }
  // The views add their own stylesheet links unless one is there; here the CSS above holds them.
  for (const name of ["explorerCss", "compareCss"]) {
    if (!document.head.querySelector(`link[data-${name.replace("Css", "-css")}]`)) {
      document.head.append(el("link", { dataset: { [name]: "" } }));
    }
  }
}

function themed() {
  const dialog = document.querySelector("body > dialog.provenance");
  if (dialog) dialog.classList.add("bpelab-widget");
  return dialog ? [...roots, dialog] : [...roots];
}

function messageOf(error) {
  return String((error && error.message) || error || "unknown error").split("\n")[0];
}

class Mounted {
  constructor(model, host) {
    this.model = model;
    this.name = model.get("_view");
    this.spec = VIEWS[this.name];
    this.queue = Promise.resolve();
    this.status = el("p", { className: "meta bpelab-widget-status", role: "status" }, "Starting…");
    this.alert = el("p", { className: "alert error", role: "alert", hidden: true });
    this.root = el("div", { className: "bpelab-widget", dataset: { state: "booting", view: this.name } },
      this.status, this.alert);
    host.append(this.root);
    this.listeners = [];
  }

  setState(state, message = "") {
    this.root.dataset.state = state;
    this.status.textContent = message;
    this.status.hidden = !message;
    this.model.set("status", state);
    this.model.save_changes();
  }

  fail(error) {
    const message = messageOf(error);
    this.alert.textContent = message;
    this.alert.hidden = false;
    this.model.set("error", message);
    this.setState("error", "");
  }

  clearError() {
    this.alert.hidden = true;
    if (this.model.get("error")) {
      this.model.set("error", "");
      this.model.save_changes();
    }
  }

  on(name, callback) {
    this.model.on(name, callback);
    this.listeners.push([name, callback]);
  }

  /**
   * A trait change from Python, run in its turn. Until it has run, what the view shows is older than
   * the traits: the view gives nothing back (onParams, the step of onState), or a cell that sets two
   * traits would see the first one's redraw put the view's old value of the second back.
   */
  fromPython(task) {
    this.queued = (this.queued || 0) + 1;
    return this.later(async () => {
      this.queued -= 1;
      await task();
    });
  }

  /** Run after whatever the widget is doing: trait changes and commands, one at a time, in order. */
  later(task) {
    this.queue = this.queue.then(task).catch((error) => this.fail(error));
    return this.queue;
  }

  async start() {
    if (!this.spec) return this.fail(`unknown widget view ${JSON.stringify(this.name)}`);
    const view = document.createElement(this.spec.tag);
    view.classList.add("notebook-view");
    view.dataset.keys = "inside";  // keys move this explorer only when focus is in it
    view.dataset.shows = "own";    // another widget's training does not take this view over
    this.view = view;
    view.addEventListener("bpe-state", (event) => this.onState(event));
    view.addEventListener("bpe-params", () => this.onParams());
    this.root.append(view);
    this.watchViewState();
    // A change from Python (or another view of this model); the ones this view makes itself are not echoed back.
    this.on("change:step", () => { if (!this.syncing) this.fromPython(() => this.goTo(this.model.get("step"))); });
    for (const trait of this.spec.watched) {
      this.on(`change:${trait}`, () => { if (!this.syncing) this.fromPython(() => this.apply()); });
    }
    this.later(async () => {
      this.setState("booting", "Connecting to the kernel…");
      await store.start();
      await this.apply();
      this.model.set("_first_state_ms", Math.round(performance.now() - this.started));
      this.model.save_changes();
    });
  }

  /** The traits as the view's state (traits.js); a trained tokenizer is trained once per recipe, by the store. */
  async apply() {
    const m = traitsOf(this.model, ["step", ...this.spec.watched]);
    this.clearError();
    this.applying = true;
    try {
      await this.view.setState(this.spec.state(m));
    } finally {
      this.applying = false;
    }
    if (this.root.dataset.state !== "error") this.setState("ready", "");
    this.onParams();
  }

  async goTo(step) {
    if (this.name !== "explorer" || !this.view.handle || step === this.view.k) return;
    this.clearError();
    await this.view.command("step", { step });
  }

  /** Set traits from what the view shows (Backbone's change events fire inside set: they see `syncing`). */
  sync(values) {
    this.syncing = true;
    try {
      // One key at a time: anywidget's model interface is set(key, value) (marimo's has no object form).
      for (const [name, value] of Object.entries(values)) this.model.set(name, value);
    } finally {
      this.syncing = false;
    }
    this.model.save_changes();
  }

  onState(event) {
    const detail = { ...(event.detail || {}) };
    delete detail.view;
    const values = { state: detail };
    if (this.name === "explorer" && Number.isInteger(detail.step) && !this.queued) Object.assign(values, { step: detail.step, steps: detail.steps });
    this.sync(values);
  }

  /** The user changed something in the view: the traits follow. */
  onParams() {
    if (this.applying || this.queued) return;
    const changed = Object.entries(this.spec.traits(this.view.state))
      .filter(([name, value]) => value !== undefined && JSON.stringify(this.model.get(name)) !== JSON.stringify(value));
    if (changed.length) this.sync(Object.fromEntries(changed));
  }

  /** The view's own error line (data-state="error") is the widget's error too. */
  watchViewState() {
    this.viewObserver = new MutationObserver(() => {
      if (this.view.dataset.state === "ready" && this.alert.hidden) this.clearError();
      if (this.view.dataset.state !== "error") return;
      const line = this.view.querySelector("[role=status], .status, .explorer-status");
      const message = (line && line.textContent.trim()) || "the view stopped with an error";
      this.model.set("error", message);
      this.model.set("status", "error");
      this.model.save_changes();
    });
    this.viewObserver.observe(this.view, { attributes: true, attributeFilter: ["data-state"] });
  }

  stop() {
    for (const [name, callback] of this.listeners) this.model.off(name, callback);
    this.viewObserver?.disconnect();
    this.view?.remove();
    this.root.remove();
  }
}

/** anywidget's render: draw the widget in `el`; returns the cleanup. */
export function render({ model, el: host }) {
  addStyle(host);
  const mounted = new Mounted(model, host);
  mounted.started = performance.now();
  roots.add(mounted.root);
  const stopTheme = watchTheme(mounted.root, themed);
  const detach = client.attach(model);
  mounted.start();
  return () => {
    detach();
    stopTheme();
    roots.delete(mounted.root);
    mounted.stop();
  };
}
