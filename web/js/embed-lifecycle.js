// The embed's Python, over the widget's life: started when the widget is seen (or clicked), given
// back when it has been out of view for RELEASE_MS (what is drawn stays), and started again with
// the view's state when it comes back. The store and the views are imported only at the start,
// so a page of previews loads a few kilobytes each.
import { PROTOCOL_VERSION } from "./embed-messages.js";

// A widget out of view this long gives its worker back (tests shorten it).
const RELEASE_MS = Number(globalThis.__bpeLabReleaseMs) || 30_000;

export class PythonLifecycle {
  /**
   * widget (embed.js): root, ui, host, config, views, queue, setState(state, message), fail(message).
   * onStarted(): after the start posted `ready` (the autoplay).
   */
  constructor(widget, { onStarted }) {
    this.widget = widget;
    this.onStarted = onStarted;
    this.store = null;    // the store module's store, once started
    this.booting = null;  // promise of the first start
    this.saved = null;    // the view's state when its worker was given back
    this.visible = false;
    this.releaseTimer = 0;
  }

  /** Boot Python and mount the view (once; later calls get the same promise). */
  start() {
    const { root, ui, host, config, views, setState, fail } = this.widget;
    this.booting ??= (async () => {
      setState("booting", "Starting Python…");
      ui.start.disabled = true;
      try {
        const storeModule = await import("./store.js");
        const store = this.store = storeModule.store;
        store.addEventListener("boot", (event) => {
          const { step, steps } = event.detail;
          if (root.dataset.state === "booting") setState("booting", `Starting Python… (${step} of ${steps})`);
        });
        store.addEventListener("fatal", (event) => fail(`Python could not start: ${event.detail.message}`));
        await store.start();
        // lesson=1: the view comes with the lesson (a load command, from <bpe-lab src>); until then the status says so.
        if (!config.awaitLesson) await views.mount(views.name, config.state, config.parts);
      } catch (error) {
        fail(error.message || String(error));
        return;
      }
      host.post({ type: "ready", version: PROTOCOL_VERSION, view: views.name });
      setState("ready", views.view ? "" : "Waiting for the lesson file…");
      this.onStarted();
    })();
    return this.booting;
  }

  /** Start when seen (start=visible); out of view, arm the release; back in view, restore. */
  watchVisibility() {
    const { root, config, queue } = this.widget;
    if (!("IntersectionObserver" in window)) { this.visible = true; if (config.start === "visible") this.start(); return; }
    new IntersectionObserver((entries) => {
      this.visible = entries.some((entry) => entry.isIntersecting);
      if (this.visible) {
        clearTimeout(this.releaseTimer);
        this.releaseTimer = 0;
        if (root.dataset.state === "preview" && config.start === "visible") this.start();
        else if (root.dataset.state === "released") queue.then(() => this.restore());
      } else {
        this.armRelease();
      }
    }).observe(root);
  }

  /** Out of view with Python running: give it back in RELEASE_MS unless the widget comes back first. */
  armRelease() {
    if (this.visible || !this.widget.views.view || this.releaseTimer) return;
    this.releaseTimer = setTimeout(() => { this.releaseTimer = 0; this.widget.queue.then(() => this.release()); }, RELEASE_MS);
  }

  /** Out of view for RELEASE_MS: give the worker (and its Python) back; keep what is drawn. */
  async release() {
    const { root, views, setState } = this.widget;
    if (this.visible || !views.view || root.dataset.state !== "ready" || typeof this.store.release !== "function") return;
    this.saved = views.view.state;
    this.store.release();
    setState("released", "Python was paused to save memory; it restarts when the widget is back in view.");
  }

  /** Back in view: a fresh worker, then the view restores its params (and step). */
  async restore() {
    const { root, views, setState, fail } = this.widget;
    if (root.dataset.state !== "released") return;
    setState("booting", "Restarting Python…");
    try {
      await this.store.start();
      await views.view.setState(this.saved);
    } catch (error) {
      fail(`The widget could not restart: ${error.message || error}`);
      return;
    }
    setState("ready");
  }
}
