// <bpe-train-view>: text, settings, training with progress and Cancel, results,
// export and import. Its markup is train-view.html. train-controller.js owns the
// runs and wires the leaf modules (train-text, train-form, train-results,
// train-export); all of them share ui/state through train-context.js.
//
// State (train-state.js, the one mapping to params, links and lesson files): the training
// input (a sample, the exact text, or several documents) with every setting, and the held-out
// text. Events: bpe-params, bpe-state {view:"train", merges, vocab_size}.
import { bind, ui, state, store, paramsChanged } from "./train-context.js";
import { show } from "../../dom.js";
import { fromHash } from "../../settings.js";
import { initTrain, startTraining, currentRecipe, markStale } from "./train-controller.js";
import { updateCounter, textChanged, setSample, pickSample, renderFiles } from "./train-text.js";
import { countsSettled, setInputKind, showCountsJson } from "./train-counts.js";
import { writeForm, checkPatternSoon } from "./train-form.js";
import { updateZipButton } from "./train-export.js";
import { loneSurrogateProblem } from "../../components/exact-text.js";
import "../../components/share-link.js";
import { countChars } from "../../text-input.js";
import { samplesNow, loadSamples } from "../../samples.js";
import * as mapping from "./train-state.js";
import { stateShown } from "../../state-hold.js";

let markup = null;  // the parsed train-view.html, fetched once

async function loadMarkup() {
  if (!markup) {
    markup = fetch(new URL("./train-view.html", import.meta.url)).then(async (response) => {
      if (!response.ok) throw new Error(`train-view.html: HTTP ${response.status}`);
      // Our own static file, parsed inert (no scripts run) and adopted: no user text is involved.
      return new DOMParser().parseFromString(await response.text(), "text/html");
    });
  }
  return markup;
}

function onPhase() {
  const phase = store.phase;
  const idle = phase === "ready";
  ui.train.disabled = !idle;
  ui.train.textContent = phase === "booting" ? "Train (starting Python…)" : "Train";
  ui.importOpen.disabled = !idle;
  ui.importAgain.disabled = !idle;
  ui.workedExample.disabled = phase === "busy" || phase === "error";
  updateZipButton();
  if (idle && state.focusTrainWhenReady) {
    state.focusTrainWhenReady = false;
    if (document.activeElement === document.body) ui.train.focus();
  }
}

class TrainView extends HTMLElement {
  constructor() {
    super();
    this.ready = new Promise((resolve) => { this._built = resolve; });
  }

  async connectedCallback() {
    if (this._started) return;
    this._started = true;
    const doc = await loadMarkup();
    this.append(...[...doc.body.childNodes].map((node) => document.importNode(node, true)));
    bind(this, {
      settings: fromHash(""), files: [], samples: [], sample: null, current: null, exported: null, mergePage: 0,
      pendingTruncation: null, preset: null, focusTrainWhenReady: false, running: null, undo: null,
    });
    initTrain();
    ui.workedExample.addEventListener("click", () => this.workedExample());
    this.addEventListener("bpe-params", () => markStale());
    store.addEventListener("phase", onPhase);
    store.addEventListener("restart", () => { if (state.current) state.current.detached = true; });
    store.addEventListener("crash", ({ detail }) => {
      state.running = null;
      ui.progressPanel.hidden = true;
      show(ui.runMessage, `The Python worker stopped unexpectedly (${detail.message}). It was restarted; ` +
        "your text, settings and the results shown are unchanged. Run the last step again to continue.", "error");
    });
    store.addEventListener("fatal", () => { state.running = null; ui.progressPanel.hidden = true; });
    writeForm(state.settings);
    onPhase();
    updateCounter();
    ui.share.connect(this, "train");
    this._built();
  }

  /** The state on show (train-state.js): a plain value, the same for links, embeds and lesson files. */
  get state() {
    if (!state) return mapping.defaults();
    return { training: currentRecipe(), heldout: state.heldout.value };
  }

  /** Resolves when the state holds what the controls show (the word counts are read by Python, after a pause in typing). */
  async settled() {
    if (state) await countsSettled();
  }

  get params() {
    return mapping.toParams(this.state, { samples: samplesNow() || [] }).params;
  }

  async applyParams(params) {
    const { state: next, problems } = mapping.fromParams(params, { samples: await loadSamples().catch(() => []) });
    if (problems.length) show(ui.settingsError, problems.join("\n"), "error");
    return this.setState(next);
  }

  /** Show a state: its settings in the form, its input in the text panel (a state with no input keeps the text). */
  async setState(next) {
    await this.ready;
    const { training } = next;
    state.settings = { ...structuredClone(training.settings), sample: training.sample ?? "" };
    writeForm(state.settings);
    checkPatternSoon();
    if (training.sample !== undefined) {
      if (training.sample !== state.sample?.id) await pickSample(training.sample, { applySettings: false });
      const sample = state.samples.find((s) => s.id === training.sample);
      // As after a pick: another sample picked later puts the settings the user left alone back to the defaults.
      state.preset = sample?.settings ? { ...sample.settings } : null;
    } else if (training.counts !== undefined) {
      setSample(null);
      await showCountsJson(training.counts);  // Python reads the object (in its order) back into the box's lines
    } else if (training.text !== undefined || training.documents !== undefined) {
      setInputKind("text");
      const documents = training.documents ?? [];
      state.files = documents.map((text, i) => ({ name: `document ${i + 1}`, text, chars: countChars(text) }));
      renderFiles();
      if (state.text.value !== (training.text ?? "")) { state.text.value = training.text ?? ""; textChanged(); }
      setSample(null);
    }
    state.heldout.value = next.heldout;
    updateCounter();
    stateShown(this);
    paramsChanged();
  }

  /** Embed commands: "text" {text} replaces the training text and trains on it (resolves once trained). */
  async command(action, args = {}) {
    await this.ready;
    if (action === "text") {
      if (typeof args.text !== "string") throw new Error(`text needs args.text, a string; got ${JSON.stringify(args.text)}`);
      const bad = loneSurrogateProblem(args.text);
      if (bad) throw new Error(bad);
      state.files = [];
      renderFiles();
      state.text.value = args.text;
      textChanged();
      setSample(null);
      updateCounter();
      paramsChanged();
      await store.ready;
      const result = await startTraining();
      if (result !== true) throw new Error(`not trained: ${result}`);
      return;
    }
    throw new Error(`the train view does not support ${JSON.stringify(action)}; it supports "text"`);
  }

  /** One click for a first-time visitor: the textbook corpus, its settings, trained. */
  async workedExample() {
    await store.ready;
    await pickSample("seed003-low-lower");
    // The keyboard (and a screen reader) goes to what the click made: the results' summary once trained.
    if (await startTraining() === true) {
      state.focusTrainWhenReady = false;  // the run's end would send the keyboard back to Train (the button was disabled)
      ui.resultsSummary.focus({ preventScroll: true });
      ui.resultsSummary.scrollIntoView({ block: "center" });
    }
  }
}

customElements.define("bpe-train-view", TrainView);
