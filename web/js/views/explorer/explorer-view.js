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
//
// This element holds the state on show and wires its parts: explorer-build.js (markup),
// explorer-tokenizers.js (which tokenizer), explorer-steps.js (fetching and coalescing steps),
// explorer-playback.js, explorer-predict.js, explorer-keys.js, explorer-commands.js; a step is drawn
// by explorer-render.js and explorer-window.js, the encode trace by explorer-trace.js.
import { store } from "../../store.js";
import { el } from "../../dom.js";
import { buildExplorer } from "./explorer-build.js";
import { showProvenance } from "../../components/provenance.js";
import { samplesNow, findSample } from "../../samples.js";
import { baseSettings } from "../../share/recipe.js";
import * as mapping from "./explorer-state.js";
import { resolveTokenizer, tokenizerOptions, pickedHandle, tokenizerOrigin } from "./explorer-tokenizers.js";
import { StepLoader } from "./explorer-steps.js";
import { Playback } from "./explorer-playback.js";
import { PredictMode } from "./explorer-predict.js";
import { explorerKey } from "./explorer-keys.js";
import { explorerCommand } from "./explorer-commands.js";
import { stateShown } from "../../state-hold.js";

const WINDOW = 1500;  // characters of the training text drawn at once
const SPEEDS = mapping.SPEEDS;

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
    this.speed = 2;
    this.at = 0;
    this.source = null;      // {tok, training} of the tokenizer on show (explorer-state.js), kept past a restart
    this.wanted = null;      // the state last asked for (setState), while it loads or when it failed
    this.loader = new StepLoader(this, { window: WINDOW });
    this.playback = new Playback(this);
    this.predictMode = new PredictMode(this);
    this.onKey = (event) => explorerKey(this, event);
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
    stateShown(this);
    try {
      const handle = await resolveTokenizer(this, state);
      if (!handle) return this.showEmpty();
      await this.use(handle, state.step);
      if (state.step > this.steps) this.problem(`Step ${state.step} is past the last step of this tokenizer, ${this.steps}: it shows step ${this.steps}.`);
    } catch (error) {
      this.fail(error);
    }
  }

  async command(action, args = {}) {
    await this.ready;
    return explorerCommand(this, action, args);
  }

  changed() {
    this.dispatchEvent(new CustomEvent("bpe-params", { bubbles: true }));
  }

  // ------------------------------------------------------------------ tokenizers

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
    this.ui.select.replaceChildren(...tokenizerOptions());
    if (this.handle) this.ui.select.value = this.handle;
  }

  /** A tokenizer picked in the list: a handle, or "ref:<name>" for a reference not loaded yet. */
  async choose(value) {
    try {
      await this.use(await pickedHandle(this, value), 0);
      this.changed();
    } catch (error) {
      this.fail(error);
    }
  }

  /** Show tokenizer `handle` from step k. */
  async use(handle, k) {
    if (!store.tokenizers.has(handle)) return this.showEmpty();
    this.pause();
    if (handle !== this.handle) { this.loader.forget(); this.predictMode.clear(); }
    this.handle = handle;
    const { source, steps, line } = tokenizerOrigin(handle);
    this.source = source;
    this.steps = steps;
    this.fillSelect();
    this.ui.source.textContent = line;
    this.ui.empty.hidden = true;
    this.ui.main.hidden = false;
    this.loader.reset();
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
    this.loader.forget();
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
  go(k, options) {
    return this.loader.go(k, options);
  }

  draw({ view, window }) {
    const stepChanged = view.step !== this.k;
    this.k = view.step;
    this.steps = view.steps;
    this.view = view;
    if (stepChanged) {
      this.predictMode.clear();  // a verdict belongs to the step it judged
      if (this.trace.atStep.checked) this.trace.soon();   // the trace follows the slider when asked to
    }
    this.render.update(view, { predict: this.predict, answered: this.predictMode.answered });
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
    this.render.summary.setAttribute("aria-live", this.playback.playing ? "off" : "polite");
    this.showPhase("ready", "");
    this.dataset.step = String(view.step);
    const m = view.merge;
    const detail = { view: "explorer", step: view.step, steps: view.steps };
    if (m) Object.assign(detail, { pair: m.pair, merged: m.id, count: m.count ?? null, tokens: view.tokens ?? null });
    this.dispatchEvent(new CustomEvent("bpe-state", { bubbles: true, detail }));
    if (!this.playback.playing) this.changed();
  }

  // ------------------------------------------------------------------ play, predict (what explorer-build.js calls)

  toggle() { return this.playback.toggle(); }
  play() { return this.playback.play(); }
  pause() { return this.playback.pause(); }

  get predict() { return this.predictMode.on; }
  setPredict(on, options) { this.predictMode.set(on, options); }
  guess(row) { return this.predictMode.guess(row); }
}

customElements.define("bpe-explorer-view", ExplorerView);
