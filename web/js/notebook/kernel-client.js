// The store's client in a notebook: the worker's protocol, carried by widget comms.
// It has the worker client's interface (request with onProgress, cancel, restart,
// ready, versions, the same hooks), so a view cannot tell a kernel from a worker.
// Python's side is bpelab/widgets/kernel.py, which answers through worker_api.handle.
//
// Every widget of a page attaches its anywidget model ("link"); a request goes out on the
// newest live link and its replies come back on the same one. A link's first message is
// {type: "hello"}; the kernel answers {type: "ready", versions} with a session id, so a
// restarted kernel (its tokenizers gone) shows as a new session: the store forgets its
// handles (onCrash), as it does when a worker dies, and the views draw again.
import { WorkerError } from "../worker-client.js";

export class KernelClient {
  constructor(hooks = {}) {
    this.hooks = hooks;
    this.pending = new Map();  // id -> {resolve, reject, onProgress, type, link}
    this.nextId = 1;
    this.links = [];           // {model, session}, newest last
    this.session = null;       // the kernel session the store's handles belong to
    this.versions = null;
    this.crashes = 0;          // the store reads it: this client needs no restart after onCrash
    this.cancelKeepsHandles = true;
    this._newBoot();
  }

  _newBoot() {
    this.ready = new Promise((resolve) => { this._bootResolve = resolve; });
  }

  /** Listen to a widget's model; returns the function that lets it go (the widget's cleanup). */
  attach(model) {
    const link = { model, session: null };
    link.onMessage = (message) => this._receive(link, message);
    model.on("msg:custom", link.onMessage);
    this.links.push(link);
    model.send({ type: "hello" });
    return () => this.detach(link);
  }

  detach(link) {
    this.links = this.links.filter((l) => l !== link);
    link.model.off("msg:custom", link.onMessage);
    for (const [id, entry] of this.pending) {
      if (entry.link !== link) continue;
      this.pending.delete(id);
      entry.reject(new WorkerError("Cancelled", "the widget was closed while Python answered"));
    }
  }

  _receive(link, message) {
    if (!message || typeof message !== "object") return;
    if (message.type === "ready") {
      link.session = message.versions?.session ?? null;
      if (this.session === null) {
        this.session = link.session;
        this.versions = message.versions;
        this._bootResolve(message.versions);
        this.hooks.onReady?.(message.versions);
      } else if (link.session !== this.session) {
        // A new kernel (restarted, or another notebook's): the old handles mean nothing there.
        this.crashes += 1;
        this.session = link.session;
        this.versions = message.versions;
        this._rejectAll("KernelRestarted", "the kernel restarted");
        this.hooks.onCrash?.("the kernel restarted: its tokenizers are gone");
        this.hooks.onReady?.(message.versions);
      }
      return;
    }
    const entry = this.pending.get(message.id);
    if (!entry) return;
    if (message.type === "progress") { entry.onProgress?.(message.payload); return; }
    this.pending.delete(message.id);
    if (message.type === "result") entry.resolve(message.payload);
    else if (message.type === "error") {
      if (message.error?.traceback) console.error(`bpelab ${entry.type} failed in the kernel:\n${message.error.traceback}`);
      entry.reject(new WorkerError(message.error?.type || "Error", message.error?.message || "unknown error"));
    } else entry.reject(new WorkerError("ProtocolError", `unexpected reply type ${JSON.stringify(message.type)}`));
  }

  _rejectAll(type, message) {
    for (const entry of this.pending.values()) entry.reject(new WorkerError(type, message));
    this.pending.clear();
  }

  /** Send {id, type, payload} to the kernel; resolves with the result payload, rejects with WorkerError. */
  request(type, payload = {}, { onProgress } = {}) {
    const link = [...this.links].reverse().find((l) => l.session === this.session);
    if (!link) {
      return Promise.reject(new WorkerError("NotReady", "no widget of this page is connected to its kernel: run the cell again"));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress, type, link });
      link.model.send({ id, type, payload });
    });
  }

  get busy() { return this.pending.size > 0; }

  /**
   * Stop waiting for the running requests. A kernel answers one request at a time, so it reads
   * the cancel once that run is over; interrupting the kernel stops the run itself.
   */
  cancel(reason = "cancelled") {
    for (const [id, entry] of this.pending) entry.link.model.send({ type: "cancel", id });
    this._rejectAll("Cancelled", reason);
    return this.ready;
  }

  /** The kernel is not ours to restart: cancel, and say "ready" again to the store, which forgot its handles. */
  restart(reason = "restarted") {
    this.cancel(reason);
    if (this.versions) queueMicrotask(() => this.hooks.onReady?.(this.versions));
    return this.ready;
  }
}
