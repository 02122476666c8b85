// The one piece of state the views share: the worker, the tokenizers it holds
// (trained, imported, reference), the current one, and the phase Python is in.
// It is an EventTarget; views listen to it and never to each other.
//
// Events (CustomEvent, detail in brackets):
//   "boot" {stage, step, steps, ...}  a start-up stage (worker-client's boot message)
//   "ready" {versions}                Python is ready (first boot or after a restart)
//   "fatal" {message}                 Python could not start; store.restart() tries again
//   "crash" {message}                 the worker died while running; it is restarted at once
//   "restart" {reason}                a new worker: every handle is gone (store.tokenizers is empty)
//   "released"                        release() stopped the worker; start() boots a fresh one
//   "phase" {phase}                   booting | ready | busy | error
//   "status" {text}                   a line for the status bar
//   "tokenizers", "current", "trained", "run"
import { WorkerClient } from "./worker-client.js";
import { recipeKey } from "./share/recipe.js";
import { toTrainSettings } from "./settings.js";
import { separatorString } from "./text-input.js";
import { findSample, sampleText } from "./samples.js";

const REFERENCE_NAMES = ["gpt2", "cl100k", "o200k"];

class Store extends EventTarget {
  constructor() {
    super();
    this.client = null;
    this.phase = "booting";
    this.versions = null;
    this.tokenizers = new Map();  // handle -> description (the worker's _describe result)
    this.current = null;          // handle of the tokenizer the views show by default
    this.trained = null;          // handle of the latest trained tokenizer
    this.training = null;         // {documents, settings, text, counts?, counts_format?} of the latest training run
    this.recipes = new Map();     // handle -> the recipe it was trained from (share/recipe.js), for links
    this._trainings = new Map();  // recipeKey -> promise of a handle, while it trains
    this.runs = 0;                // finished runs (train, import ...): #app[data-runs] for tests and scripts
    this.running = null;          // {kind} while a long, cancellable request runs
    this.bootStages = [];
    this._references = new Map(); // name -> promise of a handle
    this._atMerges = new Map();   // `${handle}@${k}` -> promise of a handle
    this._newReady();
  }

  _newReady() {
    if (this.ready && !this._isReady) return;  // still waiting: those awaiting it get the next ready
    this._isReady = false;
    this.ready = new Promise((resolve) => { this._resolveReady = resolve; });
  }

  _emit(type, detail = {}) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /**
   * The transport. A client has the worker client's interface: request(type, payload, {onProgress}),
   * cancel(reason), restart(reason), ready, versions, and calls the hooks below. The Pyodide worker
   * is the default; a notebook widget passes its kernel's comm (notebook/kernel-client.js) before start().
   */
  useClient(makeClient) {
    if (this.client) throw new Error("the store's client is chosen before it starts");
    this._makeClient = makeClient;
  }

  /** Start the worker (once). The embed may wait for a click before calling it. */
  start() {
    if (this.client) return this.ready;
    const makeClient = this._makeClient || ((hooks) => new WorkerClient(new URL("./worker.js", import.meta.url), hooks));
    this.client = makeClient({
      onBoot: (message) => {
        this.bootStages.push(message.stage);
        this._emit("boot", message);
      },
      onReady: (versions) => {
        this.versions = versions;
        this.setPhase(this.running ? "busy" : "ready");
        this._emit("ready", { versions });
        this._isReady = true;
        this._resolveReady(versions);
      },
      onFatal: (message) => {
        this.running = null;
        this.setPhase("error");
        this._emit("fatal", { message });
      },
      onCrash: (message) => {
        // A client that counts crashes has started a fresh worker itself; an older one needs telling.
        const restarted = this.client.crashes !== undefined;
        this._forget("the worker crashed");
        this._emit("crash", { message });
        if (!restarted) this.client.restart("the worker crashed");
      },
    });
    return this.ready;
  }

  /** A line for the status bar (the app shows it). */
  say(text) {
    this._emit("status", { text });
  }

  setPhase(phase) {
    this.phase = phase;
    this._emit("phase", { phase });
  }

  /** Send a request to Python (WorkerClient.request). */
  request(type, payload = {}, options = {}) {
    if (!this.client) this.start();
    return this.client.request(type, payload, options);
  }

  /** A long request the user may cancel begins: the app is busy until end(). */
  begin(kind) {
    this.running = { kind };
    this.setPhase("busy");
  }

  end() {
    this.running = null;
    if (this.phase === "busy") this.setPhase("ready");
  }

  /** One more finished run (train + export + report, or import): #app[data-runs]. */
  countRun() {
    this.runs += 1;
    this._emit("run", { runs: this.runs });
  }

  /** Stop the running request (Cancel). A worker is replaced, so every handle is forgotten; a kernel keeps them. */
  cancel(reason = "cancelled") {
    if (this.client && this.client.cancelKeepsHandles) {
      this.client.cancel(reason);
      this.end();
      return this.ready;
    }
    return this.restart(reason);
  }

  /** Stop the worker wherever it is and start a fresh one: every handle is forgotten. */
  restart(reason = "restarted") {
    this._forget(reason);
    if (this.client) this.client.restart(reason);
    else this.start();
    return this.ready;
  }

  /** Stop the worker and forget every handle, without a new one (the embed, out of view); start() boots again. */
  release() {
    if (!this.client) return;
    const client = this.client;
    this.client = null;
    this._forget("released");
    client.worker?.terminate();
    client._rejectAll?.("Cancelled", "the worker was released");
    this._emit("released");
  }

  /** The worker is gone (restart, crash, release): its handles and the caches built on them go too. */
  _forget(reason) {
    this.running = null;
    this.tokenizers.clear();
    this._references.clear();
    this._atMerges.clear();
    this.recipes.clear();
    this._trainings.clear();
    this.current = null;
    this.trained = null;
    this._newReady();
    this.setPhase("booting");
    this._emit("restart", { reason });
    this._emit("tokenizers");
  }

  /** Register a tokenizer description (from train, import, reference, at_merges). */
  add(description) {
    this.tokenizers.set(description.handle, description);
    this._emit("tokenizers", { handle: description.handle });
    return description.handle;
  }

  /** Forget a tokenizer here and in the worker. */
  drop(handle) {
    if (!this.tokenizers.delete(handle)) return;
    if (this.current === handle) this.current = null;
    this.request("drop", { handle }).catch(() => {});
    this._emit("tokenizers", { handle });
  }

  setCurrent(handle) {
    this.current = handle;
    this._emit("current", { handle });
  }

  /** "gpt2" | "cl100k" | "o200k" -> the handle of OpenAI's tokenizer (loaded once per worker). */
  reference(name) {
    if (!REFERENCE_NAMES.includes(name)) return Promise.reject(new Error(`unknown reference tokenizer ${JSON.stringify(name)}; known: ${REFERENCE_NAMES.join(", ")}`));
    if (!this._references.has(name)) {
      const promise = this.ready.then(() => this.request("reference", { name })).then((info) => {
        info.reference = name;
        return this.add(info);
      });
      promise.catch(() => this._references.delete(name));
      this._references.set(name, promise);
    }
    return this._references.get(name);
  }

  /** The handle of a tokenizer as it was after its first k merges (cached per worker). */
  atMerges(handle, k) {
    const key = `${handle}@${k}`;
    if (!this._atMerges.has(key)) {
      const promise = this.request("at_merges", { handle, merges: k }).then((info) => this.add(info));
      promise.catch(() => this._atMerges.delete(key));
      this._atMerges.set(key, promise);
    }
    return this._atMerges.get(key);
  }

  /**
   * Train with record: true (the explorer needs the steps); sets store.trained and emits "trained".
   * `recipe` (share/recipe.js) is what a link to this tokenizer carries; store.recipeOf(handle) gives it back.
   */
  async train(documents, settings, { onProgress, recipe = null, ...extra } = {}) {
    // extra.counts (with counts_format "lines" or "json") trains on word counts instead of the documents.
    const info = await this.request("train", { documents, settings, record: true, report: false, ...extra }, { onProgress });
    this.add(info);
    if (recipe) this.recipes.set(info.handle, structuredClone(recipe));
    const before = this.trained;
    this.trained = info.handle;
    this.training = { documents, settings, text: documents.join("") };
    if (extra.counts !== undefined) Object.assign(this.training, { counts: extra.counts, counts_format: extra.counts_format });
    if (!this.current || this.current === before) this.setCurrent(info.handle);
    this._emit("trained", { handle: info.handle });
    return info;
  }

  /** The recipe a tokenizer was trained from, or null (imported, reference, derived ones have none). */
  recipeOf(handle) {
    const recipe = handle && this.tokenizers.has(handle) ? this.recipes.get(handle) : null;
    return recipe ? structuredClone(recipe) : null;
  }

  /** The handle of a tokenizer trained from `recipe` that is already here, or null. */
  findTrained(recipe) {
    const key = recipeKey(recipe);
    const found = [...this.recipes].filter(([handle, r]) => this.tokenizers.has(handle) && recipeKey(r) === key);
    return found.length ? found[found.length - 1][0] : null;
  }

  /**
   * The handle of a tokenizer trained from `recipe`: one already here, the run already training it, or a
   * new run (a link or a lesson opened in a fresh page). say(text) hears the progress.
   */
  async trainedFrom(recipe, { say = () => {} } = {}) {
    const found = this.findTrained(recipe);
    if (found) return found;
    const key = recipeKey(recipe);
    if (!this._trainings.has(key)) {
      const run = (async () => {
        const s = recipe.settings;
        // Word counts: a counts sample's file (the box's lines) or a link's JSON object; Python reads and checks them.
        const countsSample = recipe.sample !== undefined && (await findSample(recipe.sample))?.input === "counts";
        const counts = countsSample ? { counts: await sampleText(recipe.sample), counts_format: "lines" }
          : recipe.counts !== undefined ? { counts: recipe.counts, counts_format: "json" } : null;
        const documents = counts ? [] : recipe.documents !== undefined ? recipe.documents
          : recipe.sample !== undefined ? [await sampleText(recipe.sample)] : [recipe.text];
        if (!counts && (!documents.length || documents.every((d) => typeof d !== "string" || d === ""))) {
          throw new Error("there is no text to train on: the link or lesson gives an empty text");
        }
        const train = toTrainSettings(s);
        const separator = separatorString(s.separator, s.separator_text);
        if (separator) train.document_separator = separator;
        await this.ready;
        const info = await this.train(documents, train, {
          recipe, truncate: true, char_limit: s.limit, ...counts,
          name: recipe.sample ?? (recipe.documents ? "documents" : "your text"),
          onProgress: (p) => { if (p && p.total) say(`Training… ${p.done.toLocaleString("en-US")} of ${p.total.toLocaleString("en-US")} merges`); },
        });
        return info.handle;
      })();
      this._trainings.set(key, run);
      run.finally(() => { if (this._trainings.get(key) === run) this._trainings.delete(key); }).catch(() => {});
    }
    return this._trainings.get(key);
  }
}

export const store = new Store();
