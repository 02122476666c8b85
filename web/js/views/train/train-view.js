// <bpe-train-view>: text, settings, training with progress and Cancel, results,
// export and import. Its markup is train-view.html. train-controller.js owns the
// runs and wires the leaf modules (train-text, train-form, train-results,
// train-export); all of them share ui/state through train-context.js.
//
// Params (the hash after #/train?): the settings' short keys (settings.js KEYS)
// and `text` for a short pasted text. Events: bpe-params, bpe-state {view:"train", merges, vocab_size}.
import { bind, ui, state, store, paramsChanged } from "./train-context.js";
import { show } from "../../dom.js";
import { fromHash } from "../../settings.js";
import { initTrain, startTraining } from "./train-controller.js";
import { updateCounter, textChanged, setSample, pickSample } from "./train-text.js";
import { writeForm, checkPatternSoon, currentParams, SETTING_KEYS } from "./train-form.js";
import { updateZipButton } from "./train-export.js";

/** The sample's own settings (as picking it applies them) for each one `params` leaves out; the link's win. */
function applySampleSettings(params) {
  const preset = {};
  for (const [name, value] of Object.entries(state.sample.settings || {})) {
    const key = SETTING_KEYS[name];
    if (!key || params[key] !== undefined) continue;
    state.settings[name] = Array.isArray(value) ? [...value] : value;
    preset[name] = value;
  }
  // As after a pick: another sample picked later puts the settings the user left alone back to the defaults.
  state.preset = Object.keys(preset).length ? preset : null;
  writeForm(state.settings);
  checkPatternSoon();
  paramsChanged();  // the address shows the settings in force, not those of the moment the sample loaded
}

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
    this._built();
  }

  /** The view's URL params: settings (short keys) and a short pasted text. */
  get params() {
    return state ? currentParams() : {};
  }

  async applyParams(params) {
    await this.ready;
    const fresh = fromHash(params);
    state.settings = fresh;
    writeForm(fresh);
    checkPatternSoon();
    if (params.text !== undefined) {
      if (ui.text.value !== params.text) { ui.text.value = params.text; textChanged(); }
      setSample(null);
    } else if (fresh.sample && fresh.sample !== state.sample?.id) {
      await pickSample(fresh.sample, { applySettings: false });
    }
    if (params.text === undefined && state.sample && state.sample.id === fresh.sample) applySampleSettings(params);
    updateCounter();
  }

  /** Embed commands: "text" {text} replaces the training text and trains on it (resolves once trained). */
  async command(action, args = {}) {
    await this.ready;
    if (action === "text") {
      if (typeof args.text !== "string") throw new Error(`text needs args.text, a string; got ${JSON.stringify(args.text)}`);
      ui.text.value = args.text;
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
    startTraining();
  }
}

customElements.define("bpe-train-view", TrainView);
