// The Train view's text panel: pasted text, opened and dropped files, bundled
// samples, the character counter, and undo for anything that replaces the text.
import { ui, state, paramsChanged } from "./train-context.js";
import { el, clear, fmt, show, showParts, hide, bdi, isolate } from "../../dom.js";
import { countChars, readTextFiles, separatorString, TextInputError } from "../../text-input.js";
import { ExactText } from "../../components/exact-text.js";
import { loadSamples, sampleText } from "../../samples.js";
import { DEFAULTS } from "../../settings.js";
import { embedCode } from "../../share/share.js";
import { lessonName } from "../../share/lesson.js";

const GALLERY = "From the textbooks";  // samples/index.json's group of published worked examples

// The controller's callbacks, given to initText: the form shows new settings; a text change closes its question.
let hooks = null;

/** The documents to train on: each opened file, then the text box. */
export function textDocuments() {
  return [...state.files.map((f) => f.text), ...(state.text.value ? [state.text.value] : [])];
}

function countDocuments(settings) {
  const sep = separatorString(settings.separator, settings.separator_text);
  let n = 0;
  for (const doc of textDocuments()) n += sep ? doc.split(sep).length : 1;
  return n;
}

let counterFrame = 0;
export function updateCounter() {
  cancelAnimationFrame(counterFrame);
  counterFrame = requestAnimationFrame(() => {
    const limit = state.settings.limit;
    const chars = state.files.reduce((n, f) => n + f.chars, 0) + countChars(state.text.value);
    const docs = countDocuments(state.settings);
    ui.charCount.textContent = fmt(chars);
    ui.charLimit.textContent = fmt(limit);
    ui.docCount.textContent = `${fmt(docs)} document${docs === 1 ? "" : "s"}`;
    const over = chars > limit;
    ui.counter.classList.toggle("over", over);
    ui.overBadge.hidden = !over;
  });
}

/** The training text or its files changed: an open over-limit question is about the old ones. */
export function textChanged() {
  hooks.onTextChanged();
}

// ------------------------------------------------------------------ undo

/** What the text panel holds now, to put back with Undo. */
function snapshot() {
  return { text: state.text.value, files: [...state.files], sample: state.sample, settings: structuredClone(state.settings), preset: state.preset };
}

const sameValue = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function hasUserText() {
  return (state.text.value.length > 0 && !state.sample) || state.files.length > 0;
}

/** Something replaced or removed the user's text: say so, and offer it back. */
function offerUndo(message, before) {
  state.undo = before;
  ui.undoText.replaceChildren(...[message].flat());
  ui.undoBar.hidden = false;
}

function dropUndo() {
  state.undo = null;
  ui.undoBar.hidden = true;
}

function undo() {
  const before = state.undo;
  if (!before) return;
  dropUndo();
  textChanged();
  state.text.value = before.text;
  state.files = before.files;
  state.settings = before.settings;
  state.preset = before.preset;
  hooks.showSettings(state.settings);
  setSample(before.sample);
  renderFiles();
  updateCounter();
  paramsChanged();
  ui.text.focus();
}

// ------------------------------------------------------------------ files

export function renderFiles() {
  clear(ui.fileList);
  for (const [i, file] of state.files.entries()) {
    ui.fileList.append(el("li", {},
      el("span", {}, bdi(file.name), ` · ${fmt(file.chars)} characters`),
      el("button", { type: "button", "aria-label": `Remove ${file.name}`, title: `Remove ${file.name}`, onclick: () => {
        const before = snapshot();
        state.files.splice(i, 1);
        textChanged();
        renderFiles();
        updateCounter();
        offerUndo(["Removed ", bdi(file.name), "."], before);
      } }, "×")));
  }
}

async function addFiles(fileList) {
  hide(ui.textError);
  const files = [...fileList];
  if (!files.length) return;
  try {
    const docs = await readTextFiles(files);
    state.files.push(...docs);
    textChanged();
    setSample(null);
    renderFiles();
    updateCounter();
    paramsChanged();
  } catch (error) {
    const none = files.length > 1 ? "No file was added. " : "";
    const parts = error instanceof TextInputError ? isolate(error.message, error.subject) : [`Could not read the file: ${error.message}`];
    showParts(ui.textError, [none, ...parts], "error");
  }
}

// ------------------------------------------------------------------ samples

/** A sample's name for a learner: the lesson a toy corpus comes from goes in the secondary line. */
export function sampleLabel(sample) {
  const title = sample.title.replace(/\s*\(seed \d+\)$/, "");
  // A title that names the language already, in any word order ("(Simplified Chinese)" for
  // "Chinese (Simplified)"), does not get it a second time.
  const named = (sample.language.match(/\p{L}+/gu) || []).every((word) => title.includes(word));
  return named || sample.group !== "Real texts" ? title : `${title} (${sample.language})`;
}

export function setSample(sample) {
  state.sample = sample;
  if (!sample) {
    ui.sample.value = "";
    ui.sampleInfo.hidden = true;
    state.settings.sample = "";
    return;
  }
  ui.sample.value = sample.id;
  state.settings.sample = sample.id;
  clear(ui.sampleInfo);
  const size = sample.input === "counts"
    ? `${fmt(sample.pieces)} words with counts (${fmt(sample.occurrences)} in all)` : `${fmt(sample.chars)} characters`;
  ui.sampleInfo.append(el("strong", { text: sampleLabel(sample) }), ` · ${sample.language} · ${size}`);
  if (sample.note) ui.sampleInfo.append(el("br"), sample.note);
  const where = [sample.source, sample.section, sample.link].filter(Boolean).join(", ");
  ui.sampleInfo.append(el("br"), el("span", { className: "source", text: `Source: ${where} · Licence: ${sample.licence}` }));
  if (sample.group === GALLERY) ui.sampleInfo.append(el("br"), embedButton(sample));
  ui.sampleInfo.hidden = false;
}

/** A gallery item's one-click embed code: the widget of its view, with the sample and its settings. */
function embedButton(sample) {
  const status = el("span", { className: "hint", role: "status" });
  const button = el("button", { type: "button", className: "secondary", "data-embed-sample": sample.id, onclick: async () => {
    const params = { sample: sample.id, ...(sample.tokenizer ? { tok: sample.tokenizer } : {}) };
    const view = sample.view || "explorer";
    const made = embedCode({ view, params, documents: false, lessonName: lessonName(view) }, location.href);
    try {
      await navigator.clipboard.writeText(made.code);
      status.textContent = " Copied: paste it into a course page.";
    } catch (error) {
      status.textContent = ` Could not copy (${error.message}): ${made.code}`;
    }
  } }, "Copy embed code");
  return el("span", {}, button, status);
}

async function listSamples() {
  try {
    state.samples = await loadSamples();
  } catch (error) {
    show(ui.textError, `The bundled samples could not be listed (${error.message}). You can still paste or open text.`, "error");
    return;
  }
  const groups = new Map();
  for (const sample of state.samples) {
    if (!groups.has(sample.group)) groups.set(sample.group, el("optgroup", { label: sample.group }));
    groups.get(sample.group).append(el("option", { value: sample.id, text: sampleLabel(sample) }));
  }
  ui.sample.append(...groups.values());
  state.samplesLoaded?.();
}

/** Put a bundled sample in the text box (and, unless told not to, its settings in the form). Train waits for it. */
export function pickSample(id, options) {
  const loading = loadSample(id, options);
  state.loadingSample = loading;
  loading.finally(() => { if (state.loadingSample === loading) state.loadingSample = null; });
  return loading;
}

async function loadSample(id, { applySettings = true } = {}) {
  hide(ui.textError);
  await state.samplesReady;
  const sample = state.samples.find((s) => s.id === id);
  if (!sample) { setSample(null); updateCounter(); return; }
  const before = hasUserText() ? snapshot() : null;
  const shownAtPick = hooks.readSettings();
  let text;
  try {
    text = await sampleText(sample.id);
  } catch (error) {
    show(ui.textError, `The sample ${sampleLabel(sample)} could not be loaded: ${error.message}`, "error");
    ui.sample.value = state.sample?.id || "";
    return;
  }
  hooks.showSampleInput(sample, text);  // the text box, or the word-counts box for a counts sample
  state.files = [];
  textChanged();
  renderFiles();
  setSample(sample);
  if (applySettings) {
    // What the user set while the sample loaded, or is typing now, is theirs: the sample leaves it alone
    // (rewriting a field between its select-all and the typed text would make 1000600 of 600).
    const shown = hooks.readSettings();
    state.settings = { ...shown };
    const editing = ui.form.contains(document.activeElement) ? document.activeElement.name : "";
    const usersOwn = (key) => key === editing || !sameValue(shown[key], shownAtPick[key]);
    // A toy sample's settings (4 merges, bytes, ...) would be odd for the next text: those the
    // user has not changed since go back to the defaults.
    const preset = state.preset || {};
    let changed = false;
    for (const [key, value] of Object.entries(preset)) {
      if (!usersOwn(key) && sameValue(state.settings[key], value)) {
        state.settings[key] = Array.isArray(DEFAULTS[key]) ? [...DEFAULTS[key]] : DEFAULTS[key];
        changed = true;
      }
    }
    state.preset = null;
    if (sample.settings) {
      // Toy corpora come with the settings of the lesson that uses them, so its numbers reappear.
      for (const [key, value] of Object.entries(sample.settings)) {
        if (!usersOwn(key)) state.settings[key] = Array.isArray(value) ? [...value] : value;
      }
      state.preset = { ...sample.settings };
      changed = true;
    }
    if (changed) hooks.showSettings(state.settings);
  }
  // Nothing the user typed is thrown away without a way back.
  if (before) offerUndo(`Your text was replaced by the sample “${sampleLabel(sample)}”.`, before);
  else dropUndo();
  paramsChanged();
  updateCounter();
}

// ------------------------------------------------------------------ events

function dropZone(zone, onFiles) {
  zone.addEventListener("dragover", (event) => {
    if (![...event.dataTransfer.types].includes("Files")) return;
    event.preventDefault();
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (event) => {
    zone.classList.remove("dragging");
    if (!event.dataTransfer.files.length) return;
    if ([...event.dataTransfer.files].some((file) => /\.bpelab\.json$/i.test(file.name))) return;  // a lesson: the page opens it
    event.preventDefault();
    event.stopPropagation();
    onFiles(event.dataTransfer.files);
  });
}

export function initText({ onTextInput, importFiles, showSettings, readSettings, onTextChanged, showSampleInput }) {
  hooks = { showSettings, readSettings, onTextChanged, showSampleInput };
  state.samplesReady = new Promise((resolve) => { state.samplesLoaded = resolve; });
  dropZone(ui.textDrop, addFiles);
  dropZone(ui.importDrop, importFiles);
  ui.openFiles.addEventListener("click", () => ui.fileInput.click());
  ui.fileInput.addEventListener("change", () => { addFiles(ui.fileInput.files); ui.fileInput.value = ""; });
  ui.sample.addEventListener("change", () => pickSample(ui.sample.value));
  ui.undo.addEventListener("click", undo);
  state.text = new ExactText(ui.text, ui.textNote, { onInput: () => {
    textChanged();
    if (state.undo) dropUndo();  // typing after a replace: the old text is not put back over new typing
    if (state.sample) setSample(null);
    hide(ui.textError);
    updateCounter();
    paramsChanged();
    onTextInput();
  } });
  state.heldout = new ExactText(ui.heldout, ui.heldoutNote);
  ui.clearText.addEventListener("click", () => {
    const before = state.text.value || state.files.length ? snapshot() : null;
    textChanged();
    state.text.value = "";
    state.files = [];
    renderFiles();
    setSample(null);
    hide(ui.textError);
    updateCounter();
    paramsChanged();
    if (before) offerUndo("The text was cleared.", before);
    ui.text.focus();
  });
  listSamples();
}
