// The controller: looks the DOM up once, wires the events, and keeps the page
// state. The model (Python, in the worker) never touches the DOM; this file
// never computes a merge.
import { WorkerClient } from "./worker-client.js";
import { el, clear, count, fmt, fmtBytes, show, hide } from "./dom.js";
import { hexToBytes, tokenNode, tokenLabel } from "./tokens.js";
import {
  DEFAULT_CHAR_LIMIT, countChars, findLoneSurrogate, loneSurrogateMessage, readTextFiles,
  separatorString, TextInputError,
} from "./text-input.js";
import { DEFAULTS, fromHash, toHash, validate, toTrainSettings } from "./settings.js";
import { lineChart, barChart } from "./chart.js";
import { makeZip } from "./zip.js";

const MERGES_PER_PAGE = 100;
const TEXT_IN_LINK_MAX = 1000; // characters of pasted text a shared link may carry
const $ = (id) => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from index.html`);
  return node;
};

const ui = {
  app: $("app"), status: $("status"), bootProgress: $("boot-progress"), restart: $("restart"), fatal: $("fatal"),
  sample: $("sample"), sampleInfo: $("sample-info"), openFiles: $("open-files"), fileInput: $("file-input"),
  clearText: $("clear-text"), fileList: $("file-list"), textDrop: $("text-drop"), text: $("text"),
  counter: $("counter"), charCount: $("char-count"), charLimit: $("char-limit"), docCount: $("doc-count"),
  overBadge: $("over-badge"), textError: $("text-error"), heldout: $("heldout"),
  form: $("settings"), size: $("size"), sizeLabel: $("size-label"), sizeHint: $("size-hint"),
  pretokenizer: $("pretokenizer"), pretokenizerHint: $("pretokenizer-hint"), patternRow: $("pattern-row"),
  patternCheck: $("pattern-check"),
  pattern: $("pattern"), tieBreak: $("tie_break"), minCount: $("min_count"), separator: $("separator"),
  separatorRow: $("separator-row"), separatorText: $("separator_text"), specialTokens: $("special_tokens"),
  settingsError: $("settings-error"), train: $("train"), copyLink: $("copy-link"), copyStatus: $("copy-status"),
  limitDialog: $("limit-dialog"), limitText: $("limit-text"), limitTruncate: $("limit-truncate"), limitBack: $("limit-back"),
  progressPanel: $("progress-panel"), trainProgress: $("train-progress"), progressText: $("progress-text"), cancel: $("cancel"),
  runMessage: $("run-message"),
  results: $("results"), resultsSummary: $("results-summary"),
  tabs: [$("tab-merges"), $("tab-vocab"), $("tab-compression")],
  mergePrev: $("merge-prev"), mergeNext: $("merge-next"), mergeRange: $("merge-range"), mergeJump: $("merge-jump"),
  mergeBody: $("merge-body"), vocabStats: $("vocab-stats"), longest: $("longest"), hist: $("hist"),
  reportBody: $("report-body"), heldoutHead: $("heldout-head"), curve: $("curve"), tabCompression: $("tab-compression"),
  exportPanel: $("export-panel"), exportZip: $("export-zip"), exportFiles: $("export-files"), exportLayout: $("export-layout"),
  selfCheck: $("self-check"),
  importDrop: $("import-drop"), importOpen: $("import-open"), importInput: $("import-input"), importMessage: $("import-message"),
  versions: $("versions"),
};

const PRETOKENIZER_HINTS = {
  gpt2: "Words with their leading space, numbers, punctuation runs and contractions are split apart; merges never cross them.",
  cl100k: "Like gpt2, but numbers split into groups of up to three digits and case-insensitive contractions.",
  o200k: "GPT-4o's pattern: also splits at case changes inside words, which suits many scripts.",
  whitespace: "A word with its leading space, or a run of whitespace (seed 004's lesson).",
  bytes: "No split at all: merges may cross spaces and words (seed 000's lab). Slower on long texts.",
  custom: "Your own regular expression; each match is a pre-token.",
};
const STOP_REASONS = {
  size: "the requested size was reached",
  no_pairs: "no pair was left to merge",
  min_count: "the best pair count fell below the minimum count",
};

const state = {
  phase: "booting",
  settings: fromHash(location.hash),
  files: [],           // opened .txt files: [{name, text, chars, bytes}]
  samples: [],         // samples/index.json
  sample: null,        // the sample now in the text box, or null
  current: null,       // the tokenizer on show: the worker's description of it
  exported: null,      // {layout, files: [{name, data, size, sha256}], selfCheck}
  mergePage: 0,
  pendingTruncation: null, // {documents, chars, limit} while the over-limit question is open
  preset: null,        // the settings a toy sample set, to undo when another text is picked
  focusTrainWhenReady: false, // keyboard focus was lost with Cancel: give it to Train when Python is ready
  running: null,       // {kind, started} while a request runs
  bootStages: [],      // the start-up stages seen, in order (shown in the status line)
  bootTimes: [],       // [stage, ms since navigation] for each stage, to see where start-up time goes
  runs: 0,             // training runs finished, results and export included
};

// ------------------------------------------------------------------ worker

const client = new WorkerClient(new URL("./worker.js", import.meta.url), {
  onBoot: ({ stage, step, steps }) => {
    state.bootStages.push(stage);
    state.bootTimes.push([stage, Math.round(performance.now())]);
    const names = { config: "reading the build", runtime: "loading Python (Pyodide)", package: "loading the bpelab package", import: "importing bpelab" };
    ui.status.textContent = `Starting Python… step ${step} of ${steps}: ${names[stage] || stage}`;
    ui.bootProgress.value = step - 1;
    ui.bootProgress.max = steps;
  },
  onReady: (versions) => {
    hide(ui.fatal);
    ui.restart.hidden = true;
    ui.versions.textContent = `bpelab ${versions.bpelab} · Python ${versions.python} in Pyodide ${versions.pyodide} · Unicode ${versions.unicodedata}`;
    setPhase(state.running ? "busy" : "ready");
    state.bootTimes.push(["ready", Math.round(performance.now())]);
    if (state.readyAt === undefined) {
      state.readyAt = performance.now();
      ui.status.textContent = `Python is ready (${(state.readyAt / 1000).toFixed(1)} s)`;
    } else {
      ui.status.textContent = "Python is ready again (restarted)";
    }
  },
  onFatal: (message) => workerFailed(`Python could not start: ${message}`),
  onCrash: (message) => workerCrashed(message),
});

/** A worker that ran and then died is restarted at once; one that cannot start waits for the user. */
function workerCrashed(message) {
  state.running = null;
  ui.progressPanel.hidden = true;
  detachCurrent();
  show(ui.runMessage, `The Python worker stopped unexpectedly (${message}). It was restarted; ` +
    "your text, settings and the results shown are unchanged. Run the last step again to continue.", "error");
  setPhase("booting");
  ui.status.textContent = "Restarting Python after a crash…";
  client.restart("the worker crashed");
}

function workerFailed(message) {
  setPhase("error");
  show(ui.fatal, `${message}\nYour text and settings are still here. Restart Python to continue.`, "error");
  ui.status.textContent = "Python is not running";
  ui.restart.hidden = false;
  endRun();
}

function setPhase(phase) {
  state.phase = phase;
  ui.app.dataset.state = phase;
  const idle = phase === "ready";
  ui.train.disabled = !idle;
  ui.train.textContent = phase === "booting" ? "Train (starting Python…)" : "Train";
  ui.importOpen.disabled = !idle;
  updateZipButton();
  if (idle && state.focusTrainWhenReady) {
    state.focusTrainWhenReady = false;
    if (document.activeElement === document.body) ui.train.focus();
  }
}

function updateZipButton() {
  ui.exportZip.disabled = state.phase === "busy" || !state.exported;
}

ui.restart.addEventListener("click", () => {
  hide(ui.fatal);
  ui.restart.hidden = true;
  setPhase("booting");
  ui.status.textContent = "Restarting Python…";
  client.restart("restarted by the user");
  if (state.current) detachCurrent();
});

/** After a restart the worker has forgotten every tokenizer; the page keeps what it has. */
function detachCurrent() {
  if (state.current) state.current.detached = true;
}

// ------------------------------------------------------------------ text

function textDocuments() {
  return [...state.files.map((f) => f.text), ...(ui.text.value ? [ui.text.value] : [])];
}

function countDocuments(settings) {
  const sep = separatorString(settings.separator, settings.separator_text);
  let n = 0;
  for (const doc of textDocuments()) n += sep ? doc.split(sep).length : 1;
  return n;
}

let counterFrame = 0;
function updateCounter() {
  cancelAnimationFrame(counterFrame);
  counterFrame = requestAnimationFrame(() => {
    const limit = state.settings.limit;
    const chars = state.files.reduce((n, f) => n + f.chars, 0) + countChars(ui.text.value);
    const docs = countDocuments(state.settings);
    ui.charCount.textContent = fmt(chars);
    ui.charLimit.textContent = fmt(limit);
    ui.docCount.textContent = `${fmt(docs)} document${docs === 1 ? "" : "s"}`;
    const over = chars > limit;
    ui.counter.classList.toggle("over", over);
    ui.overBadge.hidden = !over;
  });
}

function renderFiles() {
  clear(ui.fileList);
  for (const [i, file] of state.files.entries()) {
    ui.fileList.append(el("li", {},
      el("span", { text: `${file.name} · ${fmt(file.chars)} characters` }),
      el("button", { type: "button", "aria-label": `Remove ${file.name}`, title: `Remove ${file.name}`, onclick: () => {
        state.files.splice(i, 1);
        textChanged();
        renderFiles();
        updateCounter();
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
  } catch (error) {
    const none = files.length > 1 ? "No file was added. " : "";
    show(ui.textError, none + (error instanceof TextInputError ? error.message : `Could not read the file: ${error.message}`), "error");
  }
}

function setSample(sample) {
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
  ui.sampleInfo.append(
    el("strong", { text: sample.title }), ` · ${sample.language} · ${fmt(sample.chars)} characters · `,
    `Source: ${sample.source} · Licence: ${sample.licence}`);
  if (sample.note) ui.sampleInfo.append(el("br"), sample.note);
  ui.sampleInfo.hidden = false;
}

async function loadSamples() {
  try {
    const response = await fetch("samples/index.json");
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    state.samples = (await response.json()).samples;
  } catch (error) {
    show(ui.textError, `The bundled samples could not be listed (${error.message}). You can still paste or open text.`, "error");
    return;
  }
  const groups = new Map();
  for (const sample of state.samples) {
    if (!groups.has(sample.group)) groups.set(sample.group, el("optgroup", { label: sample.group }));
    const label = sample.title.includes(sample.language) ? sample.title : `${sample.title} (${sample.language})`;
    groups.get(sample.group).append(el("option", { value: sample.id, text: label }));
  }
  ui.sample.append(...groups.values());
  if (state.settings.sample) await pickSample(state.settings.sample, { applySettings: false });
}

async function pickSample(id, { applySettings = true } = {}) {
  hide(ui.textError);
  const sample = state.samples.find((s) => s.id === id);
  if (!sample) { setSample(null); updateCounter(); return; }
  try {
    const response = await fetch(`samples/${sample.file}`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    ui.text.value = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    show(ui.textError, `The sample ${sample.title} could not be loaded: ${error.message}`, "error");
    return;
  }
  state.files = [];
  textChanged();
  renderFiles();
  setSample(sample);
  if (applySettings) {
    // A toy sample's settings (4 merges, bytes, ...) would be odd for the next text: those the
    // user has not changed since go back to the defaults.
    const preset = state.preset || {};
    let changed = false;
    for (const [key, value] of Object.entries(preset)) {
      if (JSON.stringify(state.settings[key]) === JSON.stringify(value)) {
        state.settings[key] = Array.isArray(DEFAULTS[key]) ? [...DEFAULTS[key]] : DEFAULTS[key];
        changed = true;
      }
    }
    state.preset = null;
    if (sample.settings) {
      // Toy corpora come with the settings of the seed that uses them, so its numbers reappear.
      Object.assign(state.settings, sample.settings);
      state.preset = { ...sample.settings };
      changed = true;
    }
    if (changed) writeForm(state.settings);
  }
  saveHash();
  updateCounter();
}

// ------------------------------------------------------------------ settings form

function readForm() {
  const s = { ...state.settings };
  s.size_mode = ui.form.elements.size_mode.value;
  s.size = ui.size.value === "" ? NaN : Number(ui.size.value);
  s.pretokenizer = ui.pretokenizer.value;
  s.pattern = ui.pattern.value;
  s.tie_break = ui.tieBreak.value;
  s.min_count = ui.minCount.value === "" ? NaN : Number(ui.minCount.value);
  s.separator = ui.separator.value;
  s.separator_text = ui.separatorText.value;
  s.special_tokens = ui.specialTokens.value.split("\n").map((t) => t.replace(/\r$/, "")).filter((t) => t.length > 0);
  s.id_layout = ui.form.elements.id_layout.value;
  return s;
}

function writeForm(s) {
  ui.form.elements.size_mode.value = s.size_mode;
  ui.size.value = String(s.size);
  ui.pretokenizer.value = s.pretokenizer;
  ui.pattern.value = s.pattern;
  ui.tieBreak.value = s.tie_break;
  ui.minCount.value = String(s.min_count);
  ui.separator.value = s.separator;
  ui.separatorText.value = s.separator_text;
  ui.specialTokens.value = s.special_tokens.join("\n");
  ui.form.elements.id_layout.value = s.id_layout;
  updateFormHints(s);
}

function updateFormHints(s) {
  ui.patternRow.hidden = s.pretokenizer !== "custom";
  ui.separatorRow.hidden = s.separator !== "custom";
  ui.pretokenizerHint.textContent = PRETOKENIZER_HINTS[s.pretokenizer] || "";
  const nSpecial = s.special_tokens.length;
  if (s.size_mode === "vocab") {
    ui.sizeLabel.textContent = "Vocabulary size";
    const merges = s.size - 256 - nSpecial;
    ui.sizeHint.textContent = Number.isInteger(merges) && merges >= 0
      ? `256 bytes + up to ${count(merges, "merge")} + ${count(nSpecial, "special token")}`
      : `A whole number, at least 256 + ${nSpecial} = ${256 + nSpecial}`;
  } else {
    ui.sizeLabel.textContent = "Number of merges";
    ui.sizeHint.textContent = Number.isInteger(s.size) && s.size >= 0
      ? `Vocabulary of up to 256 + ${fmt(s.size)} + ${nSpecial} = ${fmt(256 + s.size + nSpecial)}`
      : "A whole number, at least 0";
  }
}

/** The page's state as a URL hash: the settings, and a short pasted text. */
function currentHash() {
  let hash = toHash(state.settings);
  const text = ui.text.value;
  if (!state.sample && !state.files.length && text && text.length <= TEXT_IN_LINK_MAX && !findLoneSurrogate(text)) {
    hash += `${hash ? "&" : "#"}text=${encodeURIComponent(text)}`;
  }
  return hash;
}

let hashTimer = 0;
function saveHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => {
    const hash = currentHash();
    if (hash !== location.hash && !(hash === "" && location.hash === "")) {
      history.replaceState(null, "", hash || location.pathname + location.search);
    }
  }, 150);
}

function onSettingsInput() {
  const before = state.settings.id_layout;
  const patternBefore = `${state.settings.pretokenizer} ${state.settings.pattern}`;
  state.settings = readForm();
  updateFormHints(state.settings);
  if (`${state.settings.pretokenizer} ${state.settings.pattern}` !== patternBefore) checkPatternSoon();
  hide(ui.settingsError);
  saveHash();
  updateCounter();
  if (state.current && state.settings.id_layout !== before) exportCurrent();
}

// ------------------------------------------------------------------ custom pattern check

let patternTimer = 0;
let patternAsked = 0;  // the newest check asked for; older answers are dropped
const PATTERN_CHECK_SAMPLE = 200;  // characters of the text the preview splits
const PATTERN_CHECK_MS = 3000;  // a pattern that backtracks badly can take for ever: give up after this

/** Check a custom pattern as it is typed (Python compiles it) and show how it splits the start of the text. */
function checkPatternSoon() {
  clearTimeout(patternTimer);
  patternTimer = setTimeout(checkPattern, 300);
}

async function checkPattern() {
  const { pretokenizer, pattern } = state.settings;
  if (pretokenizer !== "custom") {
    ui.pattern.removeAttribute("aria-invalid");
    ui.patternCheck.textContent = "";
    return;
  }
  // Busy or starting: Train checks the pattern anyway; try again once Python is free.
  if (state.phase !== "ready") { checkPatternSoon(); return; }
  const asked = ++patternAsked;
  const sample = (ui.text.value || "Hello world! It's 2024: naïve café, 12345.").slice(0, PATTERN_CHECK_SAMPLE);
  let reply = null;
  let problem = null;
  let timer = 0;
  const tooLong = new Promise((resolve) => { timer = setTimeout(() => resolve("too long"), PATTERN_CHECK_MS); });
  try {
    reply = await Promise.race([client.request("pattern", { pattern, sample }), tooLong]);
  } catch (error) {
    problem = error.message;
  }
  clearTimeout(timer);
  if (asked !== patternAsked) return;
  if (reply === "too long") {
    // Python is stuck in the regex engine: only a new worker gets it back (as Cancel does).
    restartPython("Restarting Python after a slow pattern…", "a custom pattern took too long");
    ui.pattern.setAttribute("aria-invalid", "true");
    ui.patternCheck.className = "hint pattern-check bad";
    ui.patternCheck.textContent = `Splitting ${PATTERN_CHECK_SAMPLE} characters with this pattern took over ` +
      `${PATTERN_CHECK_MS / 1000} s, so Python was restarted: the pattern backtracks badly. Avoid nested repeats such as (a+)+.`;
    return;
  }
  if (problem !== null) {
    ui.pattern.setAttribute("aria-invalid", "true");
    ui.patternCheck.className = "hint pattern-check bad";
    ui.patternCheck.textContent = `This pattern cannot be used: ${problem}`;
    return;
  }
  ui.pattern.removeAttribute("aria-invalid");
  ui.patternCheck.className = "hint pattern-check";
  const pieces = reply.pieces.slice(0, 12);
  ui.patternCheck.replaceChildren(`Splits ${ui.text.value ? "the start of your text" : "a sample"} into: `,
    ...pieces.map((piece) => tokenNode(new TextEncoder().encode(piece))), reply.pieces.length > 12 ? " …" : "");
}

// ------------------------------------------------------------------ held-out text

let heldoutTimer = 0;
/** The held-out text changed after training: measure the tokenizer on show again, once typing pauses. */
function remeasureSoon() {
  clearTimeout(heldoutTimer);
  heldoutTimer = setTimeout(() => {
    const info = state.current;
    if (!info || info.source !== "trained" || info.detached) return;
    if (state.phase !== "ready") { remeasureSoon(); return; }
    measureCurrent(ui.heldout.value || null);
  }, 800);
}
ui.heldout.addEventListener("input", remeasureSoon);

ui.form.addEventListener("input", onSettingsInput);
ui.form.addEventListener("change", onSettingsInput);
window.addEventListener("hashchange", () => {
  const fresh = fromHash(location.hash);
  state.settings = fresh;
  writeForm(fresh);
  checkPatternSoon();
  const text = new URLSearchParams(location.hash.slice(1)).get("text");
  if (text !== null) { ui.text.value = text; textChanged(); setSample(null); }
  else if (fresh.sample && fresh.sample !== state.sample?.id) pickSample(fresh.sample, { applySettings: false });
  updateCounter();
});

ui.copyLink.addEventListener("click", async () => {
  state.settings = readForm();
  saveHash();
  const url = new URL(location.href);
  url.hash = currentHash();
  try {
    await navigator.clipboard.writeText(url.href);
    ui.copyStatus.textContent = "Link copied.";
  } catch {
    ui.copyStatus.textContent = `Copy this link: ${url.href}`;
  }
});

// ------------------------------------------------------------------ training

ui.form.addEventListener("submit", (event) => {
  event.preventDefault();
  startTraining();
});

function startTraining() {
  if (state.phase !== "ready") return;
  hide(ui.settingsError);
  hide(ui.textError);
  hide(ui.runMessage);
  ui.limitDialog.hidden = true;
  const settings = (state.settings = readForm());
  const problems = validate(settings);
  if (problems.length) {
    show(ui.settingsError, problems.join("\n"), "error");
    ui.settingsError.focus?.();
    return;
  }
  for (const [node, what] of [[ui.text, "The training text"], [ui.heldout, "The held-out text"]]) {
    const where = findLoneSurrogate(node.value);
    if (where) {
      show(ui.textError, loneSurrogateMessage(where, what), "error");
      node.focus();
      node.setSelectionRange(where.index, where.index + 1);
      return;
    }
  }
  const documents = textDocuments();
  const chars = documents.reduce((n, d) => n + countChars(d), 0);
  if (chars === 0) {
    show(ui.textError, "There is no text to train on. Paste some, open .txt files, or pick a sample.", "error");
    ui.text.focus();
    return;
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
    return;
  }
  runTraining(documents, null);
}

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

/** Close the over-limit question without training. */
function dismissLimitDialog() {
  state.pendingTruncation = null;
  ui.limitDialog.hidden = true;
}

/** The training text or its files changed: an open over-limit question is about the old ones. */
function textChanged() {
  if (state.pendingTruncation) dismissLimitDialog();
}

const RUN_NAMES = { train: "training", export: "writing the files", import: "importing files", report: "measuring compression" };

function beginRun(kind, label) {
  // Cancel takes the keyboard focus while the run lasts; it goes back where it was after.
  const from = document.activeElement;
  state.running = { kind, started: performance.now(), focusBefore: from === ui.cancel ? state.running?.focusBefore : from };
  setPhase("busy");
  ui.status.textContent = `Python is busy: ${RUN_NAMES[kind] || kind}…`;
  ui.progressPanel.hidden = false;
  ui.trainProgress.removeAttribute("value");
  ui.progressText.textContent = label;
  ui.cancel.focus();
}

function endRun() {
  const focusBefore = state.running?.focusBefore;
  state.running = null;
  const hadFocus = document.activeElement === ui.cancel;
  ui.progressPanel.hidden = true;
  if (state.phase === "busy") {
    setPhase("ready");
    ui.status.textContent = "Python is ready";
  }
  if (hadFocus || document.activeElement === document.body) {
    if (focusBefore && focusBefore !== document.body && focusBefore.isConnected && !focusBefore.disabled
        && focusBefore.offsetParent !== null) focusBefore.focus();
    else focusTrainWhenReady();
  }
  if (state.exportAfterRun) {
    state.exportAfterRun = false;
    if (state.exported && state.exported.layout !== state.settings.id_layout) setTimeout(exportCurrent, 0);
  }
}

function onTrainProgress(p) {
  const elapsed = ((performance.now() - state.running.started) / 1000).toFixed(1);
  if (p.stage === "report") {
    ui.trainProgress.max = Math.max(1, p.total);
    ui.trainProgress.value = p.done;
    ui.progressText.textContent = `Merges learned; measuring compression (${p.done} of ${p.total} points) · ${elapsed} s elapsed`;
    return;
  }
  ui.trainProgress.max = Math.max(1, p.total);
  ui.trainProgress.value = p.done;
  ui.progressText.textContent = `${fmt(p.done)} / ${fmt(p.total)} merges · ${elapsed} s elapsed`;
}

async function runTraining(documents, truncation) {
  const settings = state.settings;
  const separator = separatorString(settings.separator, settings.separator_text);
  const payload = {
    documents,
    settings: { ...toTrainSettings(settings), document_separator: separator || null },
    // The report comes in its own request after the export, so results show as soon as merges exist.
    report: false,
    // The worker cuts with the CLI's own function and records the cut in the manifest.
    truncate: Boolean(truncation?.truncate),
    char_limit: settings.limit,
    name: state.sample ? state.sample.id : state.files.length ? state.files.map((f) => f.name).join("+") : "pasted text",
  };
  beginRun("train", "Pre-tokenizing the text…");
  const started = performance.now();
  try {
    const info = await client.request("train", payload, { onProgress: onTrainProgress });
    info.wallSeconds = (performance.now() - started) / 1000;
    info.layoutAtTraining = settings.id_layout;
    replaceCurrent(info);
    endRun();
    renderResults();
    await exportCurrent();
    clearTimeout(heldoutTimer);  // a held-out edit made while training is measured here
    await measureCurrent(ui.heldout.value || null);
    // Counts finished runs, so a test (or a script) can tell this result from the one before.
    ui.app.dataset.runs = String(++state.runs);
    if (state.phase === "ready") ui.status.textContent = `Python is ready · learned ${fmt(info.n_merges)} merges`;
    if (info.truncation) {
      show(ui.runMessage, `Trained on the first ${fmt(info.truncation.kept_characters)} of ${fmt(info.truncation.original_characters)} characters, as you chose. The manifest records the cut.`, "warn");
    }
  } catch (error) {
    endRun();
    if (error.type === "Cancelled") {
      show(ui.runMessage, "Training was cancelled. Python was restarted; your text and settings are unchanged.", "");
    } else if (error.type !== "WorkerCrashed" && error.type !== "fatal") {
      show(ui.runMessage, `Training failed: ${error.message}`, "error");
    }
  }
}

ui.cancel.addEventListener("click", () => {
  if (!state.running) return;
  if (state.running.kind !== "train") {
    show(ui.runMessage, `Cancelled while ${RUN_NAMES[state.running.kind] || state.running.kind}. Python was restarted; your text, settings and the results shown are unchanged.`, "");
  }
  restartPython("Restarting Python after the cancel…", "cancelled by the user");
  focusTrainWhenReady();
});

/** Stop the worker wherever it is and start a fresh one; the page keeps what it shows. */
function restartPython(status, reason) {
  detachCurrent();
  state.running = null;
  ui.progressPanel.hidden = true;
  setPhase("booting");
  ui.status.textContent = status;
  client.restart(reason);
}

/** Keyboard focus was on a control that went away (Cancel): put it on Train, now or once Python is ready. */
function focusTrainWhenReady() {
  if (state.phase === "ready") ui.train.focus();
  else state.focusTrainWhenReady = true;
}

// ------------------------------------------------------------------ results

/** Show a new tokenizer; the worker may forget the one it replaces (a training text can be large). */
function replaceCurrent(info) {
  const old = state.current;
  state.current = info;
  state.exported = null;
  if (old && !old.detached && old.handle !== info.handle) {
    client.request("drop", { handle: old.handle }).catch(() => {});
  }
}

function tokenBytes(id) {
  const cache = state.current.bytesCache;
  let bytes = cache.get(id);
  if (!bytes) {
    const hex = state.current.vocab[id];
    bytes = hex == null ? new Uint8Array() : hexToBytes(hex);
    cache.set(id, bytes);
  }
  return bytes;
}

function renderResults() {
  const info = state.current;
  info.bytesCache = new Map();
  state.mergePage = 0;
  ui.results.hidden = false;
  clear(ui.resultsSummary);
  const nSpecial = Object.keys(info.special_tokens).length;
  const parts = [];
  if (info.source === "trained") {
    parts.push(`Learned ${count(info.n_merges, "merge")} in ${info.seconds.toFixed(2)} s from ${count(info.corpus.documents, "document")} ` +
      `(${fmt(info.corpus.characters)} characters, ${fmt(info.corpus.bytes)} bytes); stopped because ${STOP_REASONS[info.stop_reason] || info.stop_reason}.`);
  } else {
    parts.push(`Imported ${info.name}: ${count(info.n_merges, "merge")}.`);
  }
  parts.push(` Vocabulary: ${fmt(info.n_vocab)} = ${fmt(info.n_base)} bytes + ${count(info.n_merges, "merge")} + ${count(nSpecial, "special token")}. Pre-tokenizer: ${info.pretokenizer.name}.`);
  ui.resultsSummary.append(...parts);
  renderMergePage();
  renderVocab();
  renderReport();
  ui.tabCompression.hidden = info.source !== "trained";
  if (ui.tabCompression.hidden && ui.tabCompression.getAttribute("aria-selected") === "true") selectTab(ui.tabs[0]);
  ui.exportPanel.hidden = info.source !== "trained";
}

function renderMergePage() {
  const info = state.current;
  const total = info.merges.length;
  const pages = Math.max(1, Math.ceil(total / MERGES_PER_PAGE));
  state.mergePage = Math.min(Math.max(0, state.mergePage), pages - 1);
  const start = state.mergePage * MERGES_PER_PAGE;
  const end = Math.min(total, start + MERGES_PER_PAGE);
  const rows = [];
  for (let rank = start; rank < end; rank++) {
    const [a, b, id] = info.merges[rank];
    const count = info.merge_counts ? fmt(info.merge_counts[rank]) : "—";
    rows.push(el("tr", {},
      el("td", { text: String(rank) }),
      el("td", { text: String(id) }),
      el("td", { "aria-label": `${tokenLabel(tokenBytes(a))} plus ${tokenLabel(tokenBytes(b))}` },
        tokenNode(tokenBytes(a)), el("span", { className: "plus", "aria-hidden": "true", text: "+" }), tokenNode(tokenBytes(b))),
      el("td", {}, tokenNode(tokenBytes(id))),
      el("td", { text: count })));
  }
  if (!rows.length) {
    const why = info.merges_note ? `No merge list: ${info.merges_note}`
      : info.source === "trained" ? `No merges were learned: ${STOP_REASONS[info.stop_reason] || info.stop_reason}.`
      : "This tokenizer has no merges.";
    rows.push(el("tr", {}, el("td", { colspan: "5", className: "note", text: why })));
  }
  ui.mergeBody.replaceChildren(...rows);
  ui.mergeRange.textContent = total ? `Ranks ${fmt(start)}–${fmt(end - 1)} of ${fmt(total)} merges · page ${state.mergePage + 1} of ${pages}` : "0 merges";
  ui.mergePrev.disabled = state.mergePage === 0;
  ui.mergeNext.disabled = state.mergePage >= pages - 1;
  ui.mergeJump.max = String(Math.max(0, total - 1));
  ui.mergeJump.min = "0";
}

ui.mergePrev.addEventListener("click", () => { state.mergePage--; renderMergePage(); });
ui.mergeNext.addEventListener("click", () => { state.mergePage++; renderMergePage(); });
ui.mergeJump.addEventListener("change", () => {
  const rank = Number(ui.mergeJump.value);
  if (!Number.isInteger(rank) || !state.current) return;
  state.mergePage = Math.floor(Math.max(0, rank) / MERGES_PER_PAGE);
  renderMergePage();
});

function stat(label, value) {
  return el("div", {}, el("dt", { text: label }), el("dd", { text: value }));
}

function renderVocab() {
  const info = state.current;
  const report = info.report;
  const stats = [
    stat("Vocabulary size", fmt(info.n_vocab)),
    stat("Bytes", fmt(info.n_base)),
    stat("Merges", fmt(info.n_merges)),
    stat("Special tokens", fmt(Object.keys(info.special_tokens).length)),
  ];
  if (report?.train?.entries_used != null) stats.push(stat("Entries used on the training text", fmt(report.train.entries_used)));
  if (report?.heldout?.entries_used != null) stats.push(stat("Entries used on the held-out text", fmt(report.heldout.entries_used)));
  const lengths = [];
  for (const [, , id] of info.merges) lengths.push([id, tokenBytes(id).length]);
  if (lengths.length) {
    const mean = lengths.reduce((n, [, l]) => n + l, 0) / lengths.length;
    stats.push(stat("Mean merged-token length", `${mean.toFixed(2)} bytes`));
  }
  const specials = Object.entries(info.special_tokens).sort((x, y) => x[1] - y[1]);
  if (specials.length) {
    stats.push(el("div", { className: "wide" }, el("dt", { text: "Special tokens and their ids" }),
      el("dd", { className: "specials" }, specials.map(([token, id]) => el("span", { className: "tok", text: `${token} = ${id}` })))));
  }
  ui.vocabStats.replaceChildren(...stats);

  const longest = [...lengths].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, 12);
  ui.longest.replaceChildren(...longest.map(([id, len]) =>
    el("li", {}, tokenNode(tokenBytes(id)), el("span", { className: "meta", text: `id ${id} · ${len} bytes` }))));
  if (!longest.length) ui.longest.replaceChildren(el("li", { text: "No merged tokens." }));

  const CAP = 16;
  const buckets = new Map();
  for (const [, len] of lengths) buckets.set(Math.min(len, CAP), (buckets.get(Math.min(len, CAP)) || 0) + 1);
  const maxLen = Math.max(2, ...buckets.keys());
  const bars = [];
  for (let len = 2; len <= maxLen; len++) bars.push({ label: len === CAP ? `${CAP}+` : String(len), value: buckets.get(len) || 0 });
  ui.hist.replaceChildren(barChart({ bars, xLabel: "token length in bytes", yLabel: "merged tokens",
    title: "Histogram of merged-token lengths in bytes" }));
}

const REPORT_ROWS = [
  ["bytes", "Bytes", (v) => fmt(v)],
  ["characters", "Characters", (v) => fmt(v)],
  ["words", "Words", (v) => fmt(v)],
  ["tokens", "Tokens", (v) => fmt(v)],
  ["bytes_per_token", "Bytes per token", (v) => v.toFixed(3)],
  ["characters_per_token", "Characters per token", (v) => v.toFixed(3)],
  ["tokens_per_word", "Tokens per word", (v) => v.toFixed(3)],
  ["entries_used", "Vocabulary entries used", (v) => fmt(v)],
];

/** Ask the worker for the compression report of the current tokenizer and show it. */
async function measureCurrent(heldout) {
  const info = state.current;
  if (!info || info.source !== "trained") return;
  if (info.detached) {  // cancelled (or crashed) before the report: say so instead of "Measuring…" for ever
    info.reportMessage = "Not measured: Python was restarted before the compression report. Train again to measure it.";
    renderReport();
    return;
  }
  beginRun("report", "Measuring compression…");
  try {
    info.report = await client.request("report", { handle: info.handle, heldout }, { onProgress: onTrainProgress });
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

function renderReport() {
  const info = state.current;
  const report = info.report;
  clear(ui.reportBody);
  clear(ui.curve);
  ui.heldoutHead.textContent = report && !report.heldout ? "Held-out text (none given)" : "Held-out text";
  if (!report) {
    const message = info.reportMessage || "Measuring compression…";
    ui.reportBody.append(el("tr", {}, el("td", { colspan: "3", text: message })));
    return;
  }
  for (const [key, label, format] of REPORT_ROWS) {
    const a = report.train?.[key];
    const b = report.heldout?.[key];
    if (a == null && b == null) continue;
    ui.reportBody.append(el("tr", {}, el("th", { scope: "row", text: label }),
      el("td", { text: a == null ? "—" : format(a) }), el("td", { text: b == null ? "—" : format(b) })));
  }
  const curve = report.curve || [];
  const series = [];
  const trainPoints = curve.filter((p) => p.train != null).map((p) => [p.merges, p.train]);
  const heldoutPoints = curve.filter((p) => p.heldout != null).map((p) => [p.merges, p.heldout]);
  if (trainPoints.length) series.push({ name: "training text", className: "train", points: trainPoints });
  if (heldoutPoints.length) series.push({ name: "held-out text", className: "heldout", points: heldoutPoints });
  if (series.length) {
    ui.curve.append(lineChart({ series, xLabel: "merges learned", yLabel: "characters per token",
      title: "Characters per token against the number of merges, for the training and held-out texts" }));
  }
}

function selectTab(tab) {
  for (const t of ui.tabs) {
    const on = t === tab;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
  }
}
for (const tab of ui.tabs) {
  tab.addEventListener("click", () => selectTab(tab));
  tab.addEventListener("keydown", (event) => {
    const visible = ui.tabs.filter((t) => !t.hidden);
    const i = visible.indexOf(tab);
    let next = null;
    if (event.key === "ArrowRight") next = visible[(i + 1) % visible.length];
    else if (event.key === "ArrowLeft") next = visible[(i - 1 + visible.length) % visible.length];
    else if (event.key === "Home") next = visible[0];
    else if (event.key === "End") next = visible[visible.length - 1];
    if (next) { event.preventDefault(); selectTab(next); next.focus(); }
  });
}

// ------------------------------------------------------------------ export

function base64ToBytes(b64) {
  const raw = atob(b64);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function bytesToBase64(bytes) {
  let raw = "";
  for (let i = 0; i < bytes.length; i += 0x8000) raw += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(raw);
}

async function exportCurrent() {
  const info = state.current;
  if (!info || info.source !== "trained") return;
  if (state.running) {
    // Another request is running; export when it ends so the files follow the chosen layout.
    state.exportAfterRun = true;
    return;
  }
  const layout = state.settings.id_layout;
  if (info.detached) {
    show(ui.selfCheck, `Python was restarted since this tokenizer was trained, so it cannot be exported again with the ${layout} layout. Train again to export it that way; the files below are still the ${state.exported?.layout ?? "earlier"} layout.`, "warn");
    return;
  }
  ui.exportPanel.hidden = false;
  ui.exportLayout.textContent = `Preparing files (${layout} id layout)…`;
  // The list may hold another tokenizer's files (or the other layout's): never offer them for this one.
  state.exported = null;
  clear(ui.exportFiles);
  updateZipButton();
  hide(ui.selfCheck);
  beginRun("export", "Writing the files and checking them…");
  try {
    const reply = await client.request("export", { handle: info.handle, id_layout: layout });
    state.exported = {
      layout,
      files: reply.files.map((f) => ({ name: f.name, size: f.size, sha256: f.sha256, data: base64ToBytes(f.base64) })),
      selfCheck: reply.self_check,
    };
    endRun();
    renderExport();
  } catch (error) {
    endRun();
    ui.exportLayout.textContent = "No files";
    show(ui.selfCheck, error.type === "Cancelled"
      ? "Writing the files was cancelled, so there are none to download. Train again to write them."
      : `Export failed: ${error.message}`, error.type === "Cancelled" ? "warn" : "error");
  }
}

const MIME = { ".json": "application/json", ".bpe": "text/plain", ".tiktoken": "text/plain", ".zip": "application/zip" };

function download(name, data) {
  const ext = name.slice(name.lastIndexOf("."));
  const url = URL.createObjectURL(new Blob([data], { type: MIME[ext] || "application/octet-stream" }));
  const a = el("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function renderExport() {
  const exported = state.exported;
  updateZipButton();
  ui.exportLayout.textContent = `${exported.files.length} files, ${exported.layout} id layout`;
  ui.exportFiles.replaceChildren(...exported.files.map((file) =>
    el("li", {},
      el("span", { className: "name", title: `sha256 ${file.sha256}` }, file.name, el("span", { className: "size", text: fmtBytes(file.size) })),
      el("button", { type: "button", className: "secondary", "aria-label": `Download ${file.name}`, dataset: { file: file.name },
        onclick: () => download(file.name, file.data) }, "Download"))));
  const check = exported.selfCheck;
  if (check.ok) {
    show(ui.selfCheck, `Self-check passed: ${(check.checked || []).join(", ")}, loaded back, encode a ${fmt(check.sample_chars)}-character ` +
      `sample of the training text to the same ${fmt(check.tokens)} ids as the trained tokenizer${exported.layout === "gpt2" ? " (renumbered to GPT-2's id layout)" : ""}.`, "ok");
  } else {
    show(ui.selfCheck, `${check.message || "Self-check FAILED: the files, loaded back, encode the sample differently."} Please report this.`, "error");
  }
}

ui.exportZip.addEventListener("click", () => {
  if (!state.exported) return;
  const base = (state.current?.name || "tokenizer").replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 40) || "tokenizer";
  download(`bpelab-${base}.zip`, makeZip(state.exported.files.map((f) => ({ name: f.name, data: f.data }))));
});

// ------------------------------------------------------------------ import

const IMPORT_MAX_BYTES = 64 * 1024 * 1024;

async function importFiles(fileList) {
  const files = [...fileList];
  if (!files.length) return;
  hide(ui.importMessage);
  if (state.phase !== "ready") {
    show(ui.importMessage, "Python is busy or starting; try again in a moment.", "error");
    return;
  }
  for (const file of files) {
    if (file.size > IMPORT_MAX_BYTES) {
      show(ui.importMessage, `${file.name} is too large to import: ${fmtBytes(file.size)}, and the limit is ${fmtBytes(IMPORT_MAX_BYTES)}.`, "error");
      return;
    }
  }
  beginRun("import", `Loading ${files.map((f) => f.name).join(", ")}…`);
  try {
    const payload = [];
    for (const file of files) payload.push({ name: file.name, base64: bytesToBase64(new Uint8Array(await file.arrayBuffer())) });
    const info = await client.request("import", { files: payload });
    endRun();
    replaceCurrent(info);
    renderResults();
    ui.app.dataset.runs = String(++state.runs);
    // Entries that are neither bytes nor made by a merge are read as special tokens: name them, so a
    // damaged file (an ordinary token whose merge is missing) does not pass unnoticed.
    const specials = Object.keys(info.special_tokens);
    const named = specials.slice(0, 6).map((t) => JSON.stringify(t)).join(", ") + (specials.length > 6 ? ", …" : "");
    show(ui.importMessage, `Imported ${info.name}: ${count(info.n_vocab, "token")}, ${count(info.n_merges, "merge")}, ` +
      `${count(specials.length, "special token")}${specials.length ? ` (${named})` : ""}, pre-tokenizer ${info.pretokenizer.name}. Its merges are shown above.`, "ok");
    ui.importMessage.setAttribute("role", "status");
  } catch (error) {
    endRun();
    ui.importMessage.setAttribute("role", "alert");
    if (error.type !== "Cancelled") show(ui.importMessage, `Could not import: ${error.message}`, "error");
  }
}

ui.importOpen.addEventListener("click", () => ui.importInput.click());
ui.importInput.addEventListener("change", () => { importFiles(ui.importInput.files); ui.importInput.value = ""; });

// ------------------------------------------------------------------ text events

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
    event.preventDefault();
    onFiles(event.dataTransfer.files);
  });
}
dropZone(ui.textDrop, addFiles);
dropZone(ui.importDrop, importFiles);
// A file dropped anywhere else would navigate away from the page and lose the work.
window.addEventListener("dragover", (event) => event.preventDefault());
window.addEventListener("drop", (event) => event.preventDefault());

ui.openFiles.addEventListener("click", () => ui.fileInput.click());
ui.fileInput.addEventListener("change", () => { addFiles(ui.fileInput.files); ui.fileInput.value = ""; });
ui.sample.addEventListener("change", () => pickSample(ui.sample.value));
ui.text.addEventListener("input", () => {
  textChanged();
  if (state.settings.pretokenizer === "custom") checkPatternSoon();  // its preview shows the text's start
  if (state.sample) setSample(null);
  hide(ui.textError);
  updateCounter();
  saveHash();
});
ui.clearText.addEventListener("click", () => {
  textChanged();
  ui.text.value = "";
  state.files = [];
  renderFiles();
  setSample(null);
  hide(ui.textError);
  updateCounter();
  saveHash();
  ui.text.focus();
});

// ------------------------------------------------------------------ start

writeForm(state.settings);
checkPatternSoon();  // a custom pattern from the link: checked once Python is ready
{
  const text = new URLSearchParams(location.hash.slice(1)).get("text");
  if (text !== null) ui.text.value = text;
}
setPhase("booting");
updateCounter();
loadSamples();

// For tests and the console: read-only views of the state, no new behaviour.
window.bpelab = { client, state, DEFAULT_CHAR_LIMIT, DEFAULTS };
