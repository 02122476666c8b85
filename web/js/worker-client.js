// The page side of the worker protocol: one promise per request, a Map of the
// pending ones, and restart() for Cancel and for crashes. Nothing here touches the DOM.
//
// A worker that dies after it was ready (the worker script failed, or Pyodide failed
// fatally: {type:"fatal", after_ready:true}) is restarted here at once; onCrash only tells
// the UI. The page's ?boot=fallback and ?debug=fatal flags are passed on to the worker.

// Page query flags the worker reads (see worker.js); nothing else of the page URL reaches it.
const WORKER_FLAGS = ["boot", "debug"];

function workerURL(url) {
  const result = new URL(url, self.location.href);
  const page = new URLSearchParams(self.location.search);
  for (const flag of WORKER_FLAGS) {
    if (page.has(flag)) result.searchParams.set(flag, page.get(flag));
  }
  return result;
}

// A custom pattern's split may run this long (plus a little per character) before the worker is stopped.
// Tests shorten it (globalThis.__bpeLabPatternBudgetMs, set before the page's scripts run).
const PATTERN_BUDGET_MS = Number(globalThis.__bpeLabPatternBudgetMs) || 15_000;
const PATTERN_MS_PER_CHAR = 0.015;  // 15 s more for 1,000,000 characters

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
   * @param {{onBoot?, onReady?, onFatal?, onCrash?}} hooks  lifecycle callbacks for the UI:
   *   onBoot({stage, step, steps, boot?, reason?}), onReady(versions) (versions.boot is
   *   "snapshot" or "fallback", versions.boot_reason says why on a fallback), onFatal(message)
   *   when Python cannot start, onCrash(message) when a ready worker died: the client has
   *   already restarted it (this.ready is the new boot), so the UI must not restart it again.
   */
  constructor(url, hooks = {}) {
    this.url = url;
    this.hooks = hooks;
    this.pending = new Map(); // id -> {resolve, reject, onProgress, type}
    this.nextId = 1;
    this.worker = null;
    this.ready = null;        // a promise that settles with the versions or the fatal message
    this.versions = null;
    this.crashes = 0;         // workers restarted here after a crash
    this.start();
  }

  start() {
    const worker = new Worker(workerURL(this.url), { type: "module", name: "bpelab" });
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
    this._unwatch();
    const booting = this.versions === null;
    this._rejectAll("WorkerCrashed", message);
    if (booting) {
      this._bootReject(new WorkerError("fatal", message));
      this.hooks.onFatal?.(message);
    } else {
      // It was running: start a fresh one now (its tokenizers are gone), then tell the UI.
      this.crashes += 1;
      this.worker = null;
      worker.terminate();
      this.start();
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
      if (message.after_ready || this.versions !== null) { this._fail(worker, message.message); return; }
      this._rejectAll("fatal", message.message);
      this._bootReject(new WorkerError("fatal", message.message));
      this.hooks.onFatal?.(message.message);
      return;
    }
    const entry = this.pending.get(message.id);
    if (!entry) return;
    if (message.type === "progress" && message.payload?.watch === "pattern") { this._watch(worker, message.id, message.payload); return; }
    if (message.type === "progress") { entry.onProgress?.(message.payload); return; }
    this._unwatch();
    this.pending.delete(message.id);
    if (message.type === "result") entry.resolve(message.payload);
    else if (message.type === "error") {
      if (message.error?.traceback) console.error(`bpelab ${entry.type} failed:\n${message.error.traceback}`);
      entry.reject(new WorkerError(message.error?.type || "Error", message.error?.message || "unknown error"));
    }
    else entry.reject(new WorkerError("ProtocolError", `unexpected reply type ${JSON.stringify(message.type)}`));
  }

  /**
   * A custom pattern runs on a long text (worker_api tells when it starts and ends): Pyodide cannot interrupt it,
   * so one that outlasts its budget (it backtracks for ever) is stopped here. The worker is replaced, the
   * request fails naming the pattern, and the UI hears of it as of a crash, once the request's own
   * handlers have said what failed.
   */
  _watch(worker, id, { pattern, characters, running }) {
    this._unwatch();
    if (!running) return;
    const budget = PATTERN_BUDGET_MS + Math.round(characters * PATTERN_MS_PER_CHAR);
    this._watchTimer = setTimeout(() => {
      this._watchTimer = 0;
      if (worker !== this.worker || !this.pending.has(id)) return;  // answered, released or restarted since
      const entry = this.pending.get(id);
      const message = `pattern ${pattern} takes too long on this text: splitting its ${characters.toLocaleString("en-US")} `
        + `characters ran over ${(budget / 1000).toFixed(1)} s and was stopped, and Python was restarted; it backtracks too much. `
        + "Rewrite it so each character can be matched one way only";
      this.pending.delete(id);
      this.crashes += 1;
      this.worker = null;
      worker.terminate();
      this._rejectAll("Cancelled", `Python was restarted: ${message}`);
      this.start();
      entry?.reject(new WorkerError("PretokenizeError", message));
      setTimeout(() => this.hooks.onCrash?.(message), 0);
    }, budget);
  }

  _unwatch() {
    clearTimeout(this._watchTimer);
    this._watchTimer = 0;
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

  /** Cancel the running request: Python in a worker cannot be interrupted, so the worker is replaced. */
  cancel(reason = "cancelled") {
    return this.restart(reason);
  }

  /**
   * Stop whatever runs now and boot a fresh worker. Python cannot be
   * interrupted without COOP/COEP headers, so terminate() is the dependable cancel.
   */
  restart(reason = "cancelled") {
    this._unwatch();
    const old = this.worker;
    this.worker = null;
    old.terminate();
    this._rejectAll("Cancelled", reason);
    this.start();
    return this.ready;
  }
}
