// The Train view's controller: it owns the runs (checking the settings and the text, the
// over-limit question, training with progress and Cancel, the compression report, and the
// start and end of every run the leaves ask for) and wires the leaf modules, which get what
// they need from here as callbacks and never import this file.
import { ui, state, store, host } from "./train-context.js";
import { count, fmt, show, hide } from "../../dom.js";
import { countChars, findLoneSurrogate, loneSurrogateMessage, separatorString } from "../../text-input.js";
import { validate, toTrainSettings } from "../../settings.js";
import { initForm, readForm, writeForm, checkPatternSoon } from "./train-form.js";
import { initText, textDocuments, setSample, updateCounter } from "./train-text.js";
import { initCounts, inputKind, setInputKind, setCountsText, countsPayload, showCountsError } from "./train-counts.js";
import { initResults, replaceCurrent, renderResults, renderReport, renderVocab } from "./train-results.js";
import { initExport, exportCurrent, exportAfterRun, importFiles } from "./train-export.js";

const RUN_NAMES = { train: "training", export: "writing the files", import: "importing files", report: "measuring compression" };

/** Check and train; resolves true when trained, or to a sentence saying why not (for the embed's "text" command). */
export async function startTraining() {
  if (state.loadingSample) await state.loadingSample;  // Train pressed while a sample loads: train on the sample
  if (store.phase !== "ready") return "Python is busy or starting";
  hide(ui.settingsError);
  hide(ui.sizeError);
  ui.size.removeAttribute("aria-invalid");
  hide(ui.textError);
  hide(ui.runMessage);
  ui.limitDialog.hidden = true;
  const settings = (state.settings = readForm());
  const problems = validate(settings);
  if (problems.length) {
    // The size's problem is said at its field, which takes the keyboard and comes into view (not under
    // the sticky Train bar); the others under the settings.
    const sizeProblem = problems.find((p) => /^The (vocabulary size|number of merges) /.test(p));
    const rest = problems.filter((p) => p !== sizeProblem);
    if (rest.length) show(ui.settingsError, rest.join("\n"), "error");
    if (sizeProblem) {
      show(ui.sizeError, sizeProblem, "error");
      ui.size.setAttribute("aria-invalid", "true");
      ui.size.setAttribute("aria-describedby", "size-error size-hint");
      ui.size.focus({ preventScroll: true });
      ui.sizeError.scrollIntoView({ block: "center" });
    }
    return problems.join(" ");
  }
  if (inputKind() === "counts") {
    hide(ui.countsError);
    if (!ui.counts.value.trim()) {
      const message = "Word counts: the box is empty; write one piece and its count per line, such as low 5.";
      showCountsError({ message });
      ui.counts.focus();
      return message;
    }
    return runTraining([], null, countsPayload());  // Python reads the lines; a bad one comes back with its number
  }
  for (const [node, exact, what] of [[ui.text, state.text, "The training text"], [ui.heldout, state.heldout, "The held-out text"]]) {
    const where = findLoneSurrogate(exact.value);
    if (where) {
      show(ui.textError, loneSurrogateMessage(where, what), "error");
      node.focus();
      node.setSelectionRange(where.index, where.index + 1);
      return loneSurrogateMessage(where, what);
    }
  }
  const documents = textDocuments();
  const chars = documents.reduce((n, d) => n + countChars(d), 0);
  if (chars === 0) {
    show(ui.textError, "The training text is empty: give at least one character of text to train on. Paste some, open .txt files, or pick a sample.", "error");
    ui.text.focus();
    return "the training text is empty";
  }
  if (chars > settings.limit) {
    // Never cut silently: the user decides, and the manifest records it.
    state.pendingTruncation = { documents, chars, limit: settings.limit };
    ui.limitText.textContent =
      `The text has ${fmt(chars)} characters, and the limit is ${fmt(settings.limit)}. ` +
      `You can train on the first ${fmt(settings.limit)} characters (the rest, ${fmt(chars - settings.limit)} characters, is left out, ` +
      `and the manifest says so), or go back and shorten the text.`;
    ui.limitTruncate.textContent = `Train on the first ${fmt(settings.limit)} characters`;
    ui.limitDialog.hidden = false;
    ui.limitTruncate.focus();
    return `the text is over the character limit of ${fmt(settings.limit)}`;
  }
  return runTraining(documents, null);
}

/** Close the over-limit question without training. */
export function dismissLimitDialog() {
  state.pendingTruncation = null;
  ui.limitDialog.hidden = true;
}

export function beginRun(kind, label, { focusCancel = true } = {}) {
  // Cancel takes the keyboard focus while the run lasts; it goes back where it was after.
  const from = document.activeElement;
  state.running = { kind, started: performance.now(), focusBefore: from === ui.cancel ? state.running?.focusBefore : from };
  store.begin(kind);
  ui.progressPanel.hidden = false;
  ui.trainProgress.removeAttribute("value");
  ui.progressText.textContent = label;
  if (focusCancel) ui.cancel.focus();
}

export function endRun() {
  const focusBefore = state.running?.focusBefore;
  state.running = null;
  const hadFocus = document.activeElement === ui.cancel;
  ui.progressPanel.hidden = true;
  store.end();
  if (hadFocus || document.activeElement === document.body) {
    if (focusBefore && focusBefore !== document.body && focusBefore.isConnected && !focusBefore.disabled
        && focusBefore.offsetParent !== null) focusBefore.focus({ preventScroll: true });
    else focusTrainWhenReady();
  }
  exportAfterRun();
}

export function onTrainProgress(p) {
  if (!state.running) return;
  const elapsed = ((performance.now() - state.running.started) / 1000).toFixed(1);
  ui.trainProgress.max = Math.max(1, p.total);
  ui.trainProgress.value = p.done;
  ui.progressText.textContent = p.stage === "report"
    ? `Merges learned; measuring compression (${p.done} of ${p.total} points) · ${elapsed} s elapsed`
    : `${fmt(p.done)} / ${fmt(p.total)} merges · ${elapsed} s elapsed`;
}

/** Bring the results into view (they sit below the settings), unless the user has scrolled on. */
function revealResults() {
  const top = ui.results.getBoundingClientRect().top;
  if (top > window.innerHeight * 0.6 || top < 0) {
    const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
    ui.results.scrollIntoView({ block: "start", behavior: smooth ? "smooth" : "auto" });
  }
}

/** What the view trains on now and how (share/recipe.js): a link or a lesson file reproduces the run from it. */
export function currentRecipe() {
  const { sample: _sample, ...settings } = state.settings;
  const recipe = { settings: structuredClone(settings) };
  if (state.sample) recipe.sample = state.sample.id;
  else if (inputKind() === "counts") { if (state.countsJson) recipe.counts = state.countsJson; }  // as Python last read the box
  else if (state.files.length) recipe.documents = textDocuments();
  else if (state.text.value) recipe.text = state.text.value;
  return recipe;
}

/** Results trained from another text or other settings than the form's now are marked as such. */
export function markStale() {
  const trained = state.current && state.current.source === "trained" && state.trainedRecipe;
  const stale = Boolean(trained) && JSON.stringify(currentRecipe()) !== state.trainedRecipe;
  ui.resultsStale.hidden = !stale;
  ui.results.toggleAttribute("data-stale", stale);
}

export async function runTraining(documents, truncation, counts = null) {
  const settings = state.settings;
  const recipe = currentRecipe();
  const separator = separatorString(settings.separator, settings.separator_text);
  beginRun("train", counts ? "Reading the word counts…" : "Pre-tokenizing the text…");
  const started = performance.now();
  try {
    const info = await store.train(documents, { ...toTrainSettings(settings), document_separator: separator || null }, {
      onProgress: onTrainProgress,
      // The worker cuts with the CLI's own function and records the cut in the manifest.
      truncate: Boolean(truncation?.truncate),
      char_limit: settings.limit,
      recipe,
      ...counts,
      name: state.sample ? state.sample.id : counts ? "word counts" : state.files.length ? state.files.map((f) => f.name).join("+") : "pasted text",
    });
    info.wallSeconds = (performance.now() - started) / 1000;
    replaceCurrent(info);
    state.trainedRecipe = JSON.stringify(recipe);  // what these results were made from (markStale compares)
    ui.resultsStale.hidden = true;
    endRun();
    renderResults();
    revealResults();
    await exportCurrent();
    clearTimeout(heldoutTimer);  // a held-out edit made while training is measured here
    await measureCurrent(state.heldout.value || null);
    store.countRun();
    if (store.phase === "ready") store.say(`Python is ready · learned ${count(info.n_merges, "merge")}`);
    host.dispatchEvent(new CustomEvent("bpe-state", { bubbles: true, detail: { view: "train", merges: info.n_merges, vocab_size: info.n_vocab } }));
    if (info.truncation) {
      show(ui.runMessage, `Trained on the first ${fmt(info.truncation.kept_characters)} of ${fmt(info.truncation.original_characters)} characters, as you chose. The manifest records the cut.`, "warn");
    }
    return true;
  } catch (error) {
    endRun();
    if (error.type === "Cancelled") {
      show(ui.runMessage, "Training was cancelled. Python was restarted; your text and settings are unchanged.", "");
    } else if (error.type !== "WorkerCrashed" && error.type !== "fatal") {
      show(ui.runMessage, `Training failed: ${error.message}`, "error");
      if (error.type === "CountsError") showCountsError(error);
    }
    return error.type === "Cancelled" ? "training was cancelled" : error.message;
  }
}

/** Ask the worker for the compression report of the current tokenizer and show it. */
export async function measureCurrent(heldout) {
  const info = state.current;
  if (!info || info.source !== "trained") return;
  if (info.detached) {  // cancelled (or crashed) before the report: say so instead of "Measuring…" for ever
    info.reportMessage = "Not measured: Python was restarted before the compression report. Train again to measure it.";
    renderReport();
    return;
  }
  beginRun("report", "Measuring compression…");
  try {
    info.report = await store.request("report", { handle: info.handle, heldout }, { onProgress: onTrainProgress });
    info.reportMessage = null;
  } catch (error) {
    info.reportMessage = error.type === "Cancelled"
      ? "The compression report was cancelled. Train again to measure it."
      : `The compression report failed: ${error.message}`;
  }
  endRun();
  if (state.current === info) {
    renderReport();
    renderVocab();
  }
}

let heldoutTimer = 0;
/** The held-out text changed after training: measure the tokenizer on show again, once typing pauses. */
function remeasureSoon() {
  clearTimeout(heldoutTimer);
  heldoutTimer = setTimeout(() => {
    const info = state.current;
    if (!info || info.source !== "trained" || info.detached) return;
    if (store.phase !== "ready") { remeasureSoon(); return; }
    measureCurrent(state.heldout.value || null);
  }, 800);
}

/** Stop the worker wherever it is and start a fresh one; the page keeps what it shows. */
export function restartPython(status, reason) {
  state.running = null;
  ui.progressPanel.hidden = true;
  store.restart(reason);
  store.say(status);
}

/** Keyboard focus was on a control that went away (Cancel): put it on Train, now or once Python is ready. */
export function focusTrainWhenReady() {
  if (store.phase === "ready") ui.train.focus({ preventScroll: true });
  else state.focusTrainWhenReady = true;
}

/** Wire the leaves (each gets the callbacks it needs) and the run's own controls. */
export function initTrain() {
  initText({
    importFiles,
    showSettings: writeForm,
    readSettings: readForm,
    onTextChanged: () => { if (state.pendingTruncation) dismissLimitDialog(); },
    onTextInput: () => { if (state.settings.pretokenizer === "custom") checkPatternSoon(); },
    // A sample is text or word counts: it goes in its own box, and the switch follows it.
    showSampleInput: (sample, text) => {
      if (sample.input === "counts") { setInputKind("counts"); setCountsText(text); return; }
      setInputKind("text");
      state.text.value = text;
    },
  });
  initCounts({ onInput: () => { if (state.sample) setSample(null); if (state.pendingTruncation) dismissLimitDialog(); updateCounter(); } });
  initForm({ restartPython, onLayoutChange: () => { if (state.current) exportCurrent({ keepFocus: true }); } });
  initResults();
  initExport({ beginRun, endRun, showTokenizer: (info) => { replaceCurrent(info); renderResults(); } });
  ui.heldout.addEventListener("input", remeasureSoon);
  ui.form.addEventListener("submit", (event) => {
    event.preventDefault();
    startTraining();
  });
  ui.limitTruncate.addEventListener("click", () => {
    const pending = state.pendingTruncation;
    if (!pending) return;
    dismissLimitDialog();
    const documents = textDocuments();
    const settings = readForm();
    if (documents.length !== pending.documents.length || documents.some((d, i) => d !== pending.documents[i])
        || settings.limit !== pending.limit) {
      startTraining();  // the text or the limit changed under the dialog: ask again about what is there now
      return;
    }
    runTraining(pending.documents, { truncate: true, originalChars: pending.chars });
  });
  ui.limitDialog.addEventListener("keydown", (event) => {
    if (event.key === "Escape") ui.limitBack.click();
    if (event.key === "Tab") {  // a modal question: Tab cycles between its two answers
      event.preventDefault();
      (document.activeElement === ui.limitTruncate ? ui.limitBack : ui.limitTruncate).focus();
    }
  });
  ui.limitBack.addEventListener("click", () => {
    dismissLimitDialog();
    ui.text.focus();
  });
  ui.cancel.addEventListener("click", () => {
    if (!state.running) return;
    if (state.running.kind !== "train") {
      show(ui.runMessage, `Cancelled while ${RUN_NAMES[state.running.kind] || state.running.kind}. Python was restarted; your text, settings and the results shown are unchanged.`, "");
    }
    restartPython("Restarting Python after the cancel…", "cancelled by the user");
    focusTrainWhenReady();
  });
}
