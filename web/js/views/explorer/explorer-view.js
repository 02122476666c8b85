// <bpe-explorer-view>: watch training one merge at a time (issue 13). Step k is the state after
// k merges; step 0 is the bytes. Python builds every number (explore.py, worker requests
// explore_step, explore_judge, explore_token, explore_trace); this view asks and draws, and
// updates its nodes in place when the step changes.
//
// State (explorer-state.js, the one mapping to params, links and lesson files): the tokenizer
// (trained from a recipe, or OpenAI's), step, predict, speed, at, trace. `state` gives it,
// `setState(state)` shows it (training the recipe when the store has no tokenizer made from it).
// Events: bpe-params; bpe-state {view: "explorer", step, steps, and for step >= 1 pair, merged,
// count, tokens}; bpe-answer {step, correct} in predict mode; bpe-problem {message} when what it
// was asked to show cannot be shown. Commands (the embed): "step" {step}, "play", "pause", "text" {text}.
import { store } from "../../store.js";
import { el } from "../../dom.js";
import { buildExplorer } from "./explorer-build.js";
import { showProvenance } from "../../components/provenance.js";
import { loneSurrogateProblem } from "../../components/exact-text.js";
import { samplesNow, findSample } from "../../samples.js";
import { baseSettings } from "../../share/recipe.js";
import * as mapping from "./explorer-state.js";

const WINDOW = 1500;  // characters of the training text drawn at once
const REFERENCES = [["gpt2", "GPT-2"], ["cl100k", "cl100k_base"], ["o200k", "o200k_base"]];
const SPEEDS = mapping.SPEEDS;
const CACHE = 64;  // step views kept, for stepping back and forth

function ensureCss() {
  if (document.querySelector("link[data-explorer-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: new URL("../../../css/explorer.css", import.meta.url).href, dataset: { explorerCss: "" } }));
}

class ExplorerView extends HTMLElement {
  constructor() {
    super();
    this.ready = new Promise((resolve) => { this._built = resolve; });
    this.handle = null;
    this.k = 0;
    this.steps = 0;
    this.view = null;        // the step view on show
    this.predict = false;
    this.answered = false;
    this.speed = 2;
    this.at = 0;
    this.playing = false;
    this.source = null;      // {tok, training} of the tokenizer on show (explorer-state.js), kept past a restart
    this.wanted = null;      // the state last asked for (setState), while it loads or when it failed
    this.cache = new Map();  // `${handle}|${k}|${at}` -> explore_step result
    this.target = null;
    this.loading = null;
    this.onKey = (event) => this.key(event);
  }

  connectedCallback() {
    // Keys reach the view from the whole page; with data-keys="inside" (a notebook, which may stop keys
    // on their way up to the document) from inside the view only.
    this.keyTarget = this.dataset.keys === "inside" ? this : document;
    this.keyTarget.addEventListener("keydown", this.onKey);
    if (this._started) return;
    this._started = true;
    ensureCss();
    this.build();
    store.addEventListener("tokenizers", () => this.fillSelect());
    // A run from the Train view: show it (a run of this view's own is shown by applyParams). A notebook's
    // explorer (data-shows="own") shows only what its traits ask for: another widget's run leaves it be.
    store.addEventListener("trained", ({ detail }) => {
      if (!this.training && this.isConnected && this.dataset.shows !== "own") this.use(detail.handle, 0);
    });
    for (const type of ["restart", "released"]) store.addEventListener(type, () => this.lost());
    this._built();
  }

  disconnectedCallback() {
    this.keyTarget.removeEventListener("keydown", this.onKey);
    this.pause();
  }

  build() {
    buildExplorer(this, WINDOW, SPEEDS);
    this.dataset.state = "empty";
  }

  // ------------------------------------------------------------------ params, commands

  /** The state on show (explorer-state.js): a plain value, the same for links, embeds and lesson files. */
  get state() {
    const state = { ...mapping.defaults(), step: this.k, predict: this.predict, speed: this.speed, at: this.at, trace: this.trace.text };
    if (this.handle && this.source) {
      Object.assign(state, { tok: this.source.tok, training: this.source.training ? structuredClone(this.source.training) : null });
    } else if (this.wanted) {
      Object.assign(state, { tok: this.wanted.tok, training: this.wanted.training, step: this.wanted.step });
    }
    return state;
  }

  /** The state as params (explorer-state.js); `applyParams` reads them back. */
  get params() {
    return mapping.toParams(this.state, { samples: samplesNow() || [] }).params;
  }

  async applyParams(params) {
    const { state, problems } = mapping.fromParams(params, { samples: samplesNow() || [] });
    if (problems.length) return this.fail(new Error(problems.join(" ")));
    return this.setState(state);
  }

  /** Show a state: its tokenizer (trained from its recipe when the store has none made from it), step and controls. */
  async setState(state) {
    await this.ready;
    this.wanted = structuredClone(state);
    this.speed = SPEEDS.includes(state.speed) ? state.speed : 2;
    this.ui.speed.value = String(this.speed);
    this.at = state.at;
    if (state.trace !== this.trace.text) {
      this.trace.text = state.trace;
      if (state.trace !== mapping.DEFAULT_TRACE) this.trace.expand();
    }
    this.setPredict(state.predict, { quiet: true });
    try {
      const handle = await this.resolve(state);
      if (!handle) return this.showEmpty();
      await this.use(handle, state.step);
      if (state.step > this.steps) this.problem(`Step ${state.step} is past the last step of this tokenizer, ${this.steps}: it shows step ${this.steps}.`);
    } catch (error) {
      this.fail(error);
    }
  }

  /** The handle a state's tokenizer has (training or loading it), or null when it names none and there is none. */
  async resolve(state) {
    if (state.tok === "trained" && state.training) return this.trainFor(state.training);
    if (REFERENCES.some(([name]) => name === state.tok)) {
      this.showPhase("loading", `Loading ${state.tok}…`);
      return store.reference(state.tok);
    }
    if (state.tok === "imported") {
      const imported = [...store.tokenizers.values()].filter((t) => t.source === "imported").pop();
      if (!imported) throw new Error("this link shows an imported tokenizer, which a link cannot carry: import its files in the Train view, then open the link again.");
      return imported.handle;
    }
    if (state.tok) throw new Error("this link shows a tokenizer made here that no link can name: train it in the Train view and share that.");
    return store.trained || store.current || (this.handle && store.tokenizers.has(this.handle) ? this.handle : null);
  }

  async command(action, args = {}) {
    await this.ready;
    if (action === "step") {
      if (!Number.isInteger(args.step) || args.step < 0) throw new Error(`step needs args.step, a whole number of at least 0; got ${JSON.stringify(args.step)}`);
      if (!this.handle) throw new Error("there is no tokenizer to step through yet");
      if (args.step > this.steps) throw new Error(`step ${args.step} is past the last step, ${this.steps}`);
      return this.go(args.step);
    }
    if (action === "play") return this.play();
    if (action === "pause") return this.pause();
    if (action === "text") {
      if (typeof args.text !== "string" || !args.text) throw new Error(`text needs args.text, a non-empty string; got ${JSON.stringify(args.text)}`);
      const bad = loneSurrogateProblem(args.text);
      if (bad) throw new Error(bad);
      const settings = this.state.training?.settings ?? baseSettings();
      return this.setState({ ...this.state, tok: "trained", training: { text: args.text, settings }, step: 0 });
    }
    throw new Error(`the explorer does not support ${JSON.stringify(action)}; it supports "step", "play", "pause" and "text"`);
  }

  changed() {
    this.dispatchEvent(new CustomEvent("bpe-params", { bubbles: true }));
  }

  // ------------------------------------------------------------------ tokenizers

  /** The handle of the tokenizer trained from `recipe`: the store's, or a new run with every step recorded. */
  async trainFor(recipe) {
    if (!store.findTrained(recipe)) this.showPhase("training", "Training with every step recorded…");
    this.training = true;
    try {
      return await store.trainedFrom(recipe, { say: (text) => { this.ui.status.textContent = text; } });
    } finally {
      this.training = false;
    }
  }

  async workedExample() {
    const sample = await findSample("seed003-low-lower");
    await this.setState({ ...mapping.defaults(), tok: "trained", training: { sample: "seed003-low-lower", settings: baseSettings(sample) } });
    this.changed();
    // The button is gone with the empty state: the keyboard goes to the step it opened on.
    const summary = this.render.summary;
    if (this.handle && summary.isConnected) {
      summary.tabIndex = -1;
      summary.focus({ preventScroll: true });
      summary.scrollIntoView({ block: "nearest" });
    }
  }

  fillSelect() {
    const known = [...store.tokenizers.values()];
    const options = known.map((t) =>
      el("option", { value: t.handle }, `${t.name} (${t.source}, ${t.n_merges.toLocaleString("en-US")} merges)`));
    // OpenAI's tokenizers, loaded when picked: their merges, provenance and the trace (no counts).
    const loaded = new Set(known.map((t) => t.reference).filter(Boolean));
    for (const [name, label] of REFERENCES) {
      if (!loaded.has(name)) options.push(el("option", { value: `ref:${name}` }, `${label} (reference, loads when picked)`));
    }
    this.ui.select.replaceChildren(...options);
    if (this.handle) this.ui.select.value = this.handle;
  }

  /** A tokenizer picked in the list: a handle, or "ref:<name>" for a reference not loaded yet. */
  async choose(value) {
    try {
      if (value.startsWith("ref:")) {
        this.showPhase("loading", `Loading ${value.slice(4)}…`);
        value = await store.reference(value.slice(4));
      }
      await this.use(value, 0);
      this.changed();
    } catch (error) {
      this.fail(error);
    }
  }

  /** Show tokenizer `handle` from step k. */
  async use(handle, k) {
    if (!store.tokenizers.has(handle)) return this.showEmpty();
    this.pause();
    if (handle !== this.handle) { this.cache.clear(); this.answered = false; this.ui.answer.hidden = true; }
    this.handle = handle;
    const info = store.tokenizers.get(handle);
    const recipe = store.recipeOf(handle);
    this.source = info.reference ? { tok: info.reference, training: null } : recipe ? { tok: "trained", training: recipe }
      : { tok: info.source === "imported" ? "imported" : "unsaved", training: null };
    this.steps = info.n_merges;
    this.fillSelect();
    this.ui.source.textContent = info.source === "trained"
      ? `trained on ${info.corpus ? info.corpus.characters.toLocaleString("en-US") : "?"} characters, tie-break ${info.settings ? info.settings.tie_break : "?"}`
      : `${info.source}: merges only, no training counts`;
    this.ui.empty.hidden = true;
    this.ui.main.hidden = false;
    this.target = null;
    this.shown = null;
    await this.go(k, { force: true });
    this.trace.run();
  }

  showEmpty() {
    this.handle = null;
    this.ui.main.hidden = true;
    this.ui.empty.hidden = false;
    this.showPhase("empty", "");
  }

  lost() {
    this.pause();
    this.cache.clear();
    const state = this.state;  // what was on show, before its handle goes
    this.handle = null;
    this.wanted = state;
    if (this.dataset.state === "error") return;  // what failed stays said (a stopped pattern is not made again)
    if (this.classList.contains("embed-view")) {
      // The embed released Python while out of view: keep what is drawn (the host page must not jump);
      // it calls setState with our state when Python is back. Until then nothing can be asked.
      this.showPhase("released", "Python is paused; it restarts when you come back.");
    } else if (state.tok && state.tok !== "unsaved" && state.tok !== "imported" && this.isConnected) {
      // Python restarted: every handle is gone. Make the same tokenizer again and come back to this step.
      store.ready.then(() => this.setState(state));
    } else {
      this.showEmpty();
    }
  }

  showPhase(state, text) {
    this.dataset.state = state;
    this.ui.status.textContent = text;
  }

  fail(error) {
    this.showPhase("error", "");
    this.ui.status.textContent = `The explorer could not continue: ${error.message || error}`;
    this.problem(this.ui.status.textContent);
  }

  /** Say (to the embed: an error message) that what was asked for is not what is shown. */
  problem(message) {
    this.dispatchEvent(new CustomEvent("bpe-problem", { bubbles: true, detail: { message } }));
  }

  provenance(id) {
    if (this.handle) showProvenance(store, this.handle, id);
  }

  async useStepElsewhere() {
    const handle = await store.atMerges(this.handle, this.k);
    store.setCurrent(handle);
    this.ui.status.textContent = `Encode and Compare now use this tokenizer after its first ${this.k} merges.`;
  }

  // ------------------------------------------------------------------ stepping

  /** Show step k (clamped); overlapping calls coalesce: only the latest target is drawn. */
  go(k, { force = false } = {}) {
    if (!this.handle) return Promise.resolve();
    k = Math.max(0, Math.min(Number.isFinite(k) ? k : 0, this.steps));
    if (force) this.shown = null;
    this.target = k;
    if (!this.loading) {
      this.loading = (async () => {
        while (this.handle && this.target !== this.shown) {
          const want = this.target;
          const handle = this.handle;
          const data = await this.fetchStep(handle, want);
          if (handle !== this.handle) continue;
          this.draw(data);
          this.shown = want;
        }
      })().catch((error) => this.fail(error)).finally(() => { this.loading = null; });
    }
    return this.loading;
  }

  async fetchStep(handle, k) {
    const key = `${handle}|${k}|${this.at}`;
    if (this.cache.has(key)) return this.cache.get(key);
    const info = store.tokenizers.get(handle);
    const window = info && info.source === "trained" ? { start: this.at, size: WINDOW } : null;
    const data = await store.request("explore_step", { handle, step: k, window });
    if (this.cache.size >= CACHE) this.cache.delete(this.cache.keys().next().value);
    this.cache.set(key, data);
    return data;
  }

  draw({ view, window }) {
    const stepChanged = view.step !== this.k;
    this.k = view.step;
    this.steps = view.steps;
    this.view = view;
    if (stepChanged) {
      this.answered = false;
      this.ui.answer.hidden = true;  // a verdict belongs to the step it judged
      if (this.trace.atStep.checked) this.trace.soon();   // the trace follows the slider when asked to
    }
    this.render.update(view, { predict: this.predict, answered: this.answered });
    this.window.node.hidden = !window;
    if (window) this.window.update(window, view.merge ? view.merge.id : null);
    const ui = this.ui;
    ui.slider.max = String(view.steps);
    ui.slider.value = String(view.step);
    ui.slider.setAttribute("aria-valuetext", `step ${view.step} of ${view.steps}`);
    ui.out.textContent = `${view.step.toLocaleString("en-US")} of ${view.steps.toLocaleString("en-US")}`;
    ui.first.disabled = ui.back.disabled = view.step === 0;
    ui.forward.disabled = ui.last.disabled = view.step === view.steps;
    ui.predict.disabled = !view.has_counts;
    // While playing, the summary is not read out at every step.
    this.render.summary.setAttribute("aria-live", this.playing ? "off" : "polite");
    this.showPhase("ready", "");
    this.dataset.step = String(view.step);
    const m = view.merge;
    const detail = { view: "explorer", step: view.step, steps: view.steps };
    if (m) Object.assign(detail, { pair: m.pair, merged: m.id, count: m.count ?? null, tokens: view.tokens ?? null });
    this.dispatchEvent(new CustomEvent("bpe-state", { bubbles: true, detail }));
    if (!this.playing) this.changed();
  }

  // ------------------------------------------------------------------ play, predict, keys

  toggle() {
    return this.playing ? this.pause() : this.play();
  }

  async play() {
    if (this.playing || !this.handle) return;
    if (this.k >= this.steps) await this.go(0);
    this.playing = true;
    this.ui.play.textContent = "⏸ Pause";
    this.ui.play.setAttribute("aria-pressed", "true");
    this.dataset.playing = "";
    while (this.playing && this.k < this.steps) {
      await new Promise((resolve) => setTimeout(resolve, 1000 / this.speed));
      if (!this.playing) break;
      await this.go(this.k + 1);
    }
    this.pause();
  }

  pause() {
    if (!this.playing) return;
    this.playing = false;
    this.ui.play.textContent = "▶ Play";
    this.ui.play.setAttribute("aria-pressed", "false");
    delete this.dataset.playing;
    this.changed();
  }

  setPredict(on, { quiet = false } = {}) {
    this.predict = on;
    this.ui.predict.checked = on;
    this.answered = false;
    this.ui.answer.hidden = true;
    if (this.view) this.render.update(this.view, { predict: on, answered: false });
    if (!quiet) this.changed();
  }

  async guess(row) {
    if (!this.view || !this.view.next) return;
    const step = this.k;
    const verdict = await store.request("explore_judge", { handle: this.handle, step, pair: row.pair });
    if (step !== this.k) return;  // the reader moved on while Python judged
    // The step stays: the table reveals the winner in place, the verdict sits under it, and
    // "Next step" (or →) goes on when the reader has read it.
    this.answered = true;
    this.render.update(this.view, { predict: this.predict, answered: true });
    const ui = this.ui;
    ui.answer.hidden = false;
    ui.answer.className = `predict-answer alert ${verdict.correct ? "ok" : "error"}`;
    ui.answer.dataset.correct = String(verdict.correct);
    ui.answerText.textContent = verdict.text;
    ui.answerNext.textContent = this.view.step < this.view.steps ? `Next step (${(step + 1).toLocaleString("en-US")})` : "Next step";
    ui.answerNext.focus({ preventScroll: true });  // the clicked button went with the guesses
    ui.answer.scrollIntoView({ block: "nearest" });
    this.dispatchEvent(new CustomEvent("bpe-answer", { bubbles: true, detail: { step: verdict.step, correct: verdict.correct } }));
  }

  key(event) {
    if (this.hidden || !this.handle || event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    // The focused node itself, also inside a shadow root (marimo draws widgets in one).
    const target = event.composedPath ? event.composedPath()[0] : event.target;
    // Focus may sit on the page, on the shell around the view (a click focuses <main>), or inside the view;
    // with data-keys="inside" (a notebook shows several views) only inside it.
    const around = this.dataset.keys !== "inside" && (target === document.body || target.contains(this));
    if (!(this.contains(target) || around)) return;
    if (target.closest && target.closest("input, select, textarea, [contenteditable], dialog, .text-window")) return;
    const actions = {
      ArrowRight: () => this.go(this.k + 1), ArrowLeft: () => this.go(this.k - 1),
      Home: () => this.go(0), End: () => this.go(this.steps),
      p: () => this.setPredict(!this.predict), P: () => this.setPredict(!this.predict),
    };
    if (event.key === " " && !(target.closest && target.closest("button, a"))) actions[" "] = () => this.toggle();
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }
}

customElements.define("bpe-explorer-view", ExplorerView);
