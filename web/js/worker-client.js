// The page side of the worker protocol: one promise per request, a Map of the
// pending ones, and restart() for Cancel and for crashes. Nothing here touches the DOM.

export class WorkerError extends Error {
  constructor(type, message) {
    super(message);
    this.name = "WorkerError";
    this.type = type;
  }
}

export class WorkerClient {
  /**
   * @param {URL|string} url  the module worker script
   * @param {{onBoot?, onReady?, onFatal?, onCrash?}} hooks  lifecycle callbacks for the UI
   */
  constructor(url, hooks = {}) {
    this.url = url;
    this.hooks = hooks;
    this.pending = new Map(); // id -> {resolve, reject, onProgress, type}
    this.nextId = 1;
    this.worker = null;
    this.ready = null;        // a promise that settles with the versions or the fatal message
    this.versions = null;
    this.start();
  }

  start() {
    const worker = new Worker(this.url, { type: "module", name: "bpelab" });
    this.worker = worker;
    this.versions = null;
    this.ready = new Promise((resolve, reject) => {
      this._bootResolve = resolve;
      this._bootReject = reject;
    });
    // A rejected boot is reported through onFatal; nobody may be awaiting it yet.
    this.ready.catch(() => {});
    worker.onmessage = (event) => this._receive(worker, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this._fail(worker, event.message || "the worker stopped with an error");
    };
    worker.onmessageerror = () => this._fail(worker, "a message from the worker could not be read");
  }

  _fail(worker, message) {
    if (worker !== this.worker) return;
    const booting = this.versions === null;
    this._rejectAll("WorkerCrashed", message);
    if (booting) {
      this._bootReject(new WorkerError("fatal", message));
      this.hooks.onFatal?.(message);
    } else {
      this.hooks.onCrash?.(message);
    }
  }

  _receive(worker, message) {
    if (worker !== this.worker) return; // a terminated worker's last words
    if (message.type === "boot") { this.hooks.onBoot?.(message); return; }
    if (message.type === "ready") {
      this.versions = message.versions;
      this._bootResolve(message.versions);
      this.hooks.onReady?.(message.versions);
      return;
    }
    if (message.type === "fatal") {
      this._rejectAll("fatal", message.message);
      this._bootReject(new WorkerError("fatal", message.message));
      this.hooks.onFatal?.(message.message);
      return;
    }
    const entry = this.pending.get(message.id);
    if (!entry) return;
    if (message.type === "progress") { entry.onProgress?.(message.payload); return; }
    this.pending.delete(message.id);
    if (message.type === "result") entry.resolve(message.payload);
    else if (message.type === "error") {
      if (message.error?.traceback) console.error(`bpelab ${entry.type} failed:\n${message.error.traceback}`);
      entry.reject(new WorkerError(message.error?.type || "Error", message.error?.message || "unknown error"));
    }
    else entry.reject(new WorkerError("ProtocolError", `unexpected reply type ${JSON.stringify(message.type)}`));
  }

  _rejectAll(type, message) {
    for (const entry of this.pending.values()) entry.reject(new WorkerError(type, message));
    this.pending.clear();
  }

  /** Send {id, type, payload}; resolves with the result payload, rejects with WorkerError. */
  request(type, payload = {}, { onProgress } = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress, type });
      this.worker.postMessage({ id, type, payload });
    });
  }

  get busy() { return this.pending.size > 0; }

  /**
   * Stop whatever runs now and boot a fresh worker. Python cannot be
   * interrupted without COOP/COEP headers, so terminate() is the dependable cancel.
   */
  restart(reason = "cancelled") {
    const old = this.worker;
    this.worker = null;
    old.terminate();
    this._rejectAll("Cancelled", reason);
    this.start();
    return this.ready;
  }
}
