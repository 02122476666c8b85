// The Train view's word-counts input: the "Text" / "Word counts" switch and the counts box.
// Python reads the box (bpelab.counts, the same lines as a .tsv file for `bpelab train --counts`):
// each check gives the table's size and its JSON object (what links, embeds and lesson files
// carry), or the first bad line with its number, shown under the box.
import { ui, state, store, paramsChanged } from "./train-context.js";
import { fmt, show, hide } from "../../dom.js";

const CHECK_DELAY_MS = 150;
let hooks = null;
let timer = 0;
let asked = 0;  // the latest check asked for; an older answer is stale

function radios() {
  return [...ui.textPanel.querySelectorAll("input[name=input_kind]")];
}

/** "text" or "counts": what the view trains on. */
export function inputKind() {
  return state.inputKind;
}

/** Switch the input; the other box keeps what it holds. */
export function setInputKind(kind) {
  state.inputKind = kind;
  for (const radio of radios()) radio.checked = radio.value === kind;
  const counts = kind === "counts";
  ui.countsPanel.hidden = !counts;
  for (const node of [ui.textDrop, ui.fileList, ui.counter, ui.openFiles]) node.hidden = counts;
}

/** Put a table's lines in the box (a counts sample's file, or a link's counts read back by Python). */
export function setCountsText(lines, json = null) {
  ui.counts.value = lines;
  state.countsJson = json;
  hide(ui.countsError);
  ui.counts.removeAttribute("aria-invalid");
  if (json === null) checkSoon();
}

/** What the worker's train request takes for the box: its exact lines. */
export function countsPayload() {
  return { counts: ui.counts.value, counts_format: "lines" };
}

/** Show a CountsError from Python (a check or a training run); its line, when it has one, is selected. */
export function showCountsError(error) {
  show(ui.countsError, error.message, "error");
  ui.counts.setAttribute("aria-invalid", "true");
  ui.countsStatus.textContent = "";
  if (Number.isInteger(error.line)) {
    const lines = ui.counts.value.split("\n");
    const start = lines.slice(0, error.line - 1).reduce((n, line) => n + line.length + 1, 0);
    const end = start + (lines[error.line - 1] ?? "").length;
    ui.counts.setSelectionRange(start, end);
  }
}

function checkSoon() {
  clearTimeout(timer);
  timer = setTimeout(check, CHECK_DELAY_MS);
}

/** Ask Python to read the box: its size in the status line, or the bad line. Resolves when answered. */
export async function check() {
  clearTimeout(timer);
  const mine = ++asked;
  const text = ui.counts.value;
  if (!text.trim()) {
    state.countsJson = null;
    ui.countsStatus.textContent = "No word counts yet: one piece and its count per line.";
    hide(ui.countsError);
    return;
  }
  try {
    await store.ready;
    const info = await store.request("counts_check", { ...countsPayload(), special_tokens: state.settings.special_tokens });
    if (mine !== asked) return;
    state.countsJson = info.json;
    hide(ui.countsError);
    ui.counts.removeAttribute("aria-invalid");
    ui.countsStatus.textContent = `${fmt(info.pieces)} piece${info.pieces === 1 ? "" : "s"}, `
      + `${fmt(info.occurrences)} pre-token${info.occurrences === 1 ? "" : "s"} in all`;
  } catch (error) {
    if (mine !== asked) return;
    state.countsJson = null;
    if (error.type === "CountsError") showCountsError(error);
    else ui.countsStatus.textContent = `The counts could not be checked: ${error.message}`;
  }
  paramsChanged();
}

/** Resolves once Python has read what the box holds now (a share made right after typing must carry it). */
export async function countsSettled() {
  if (inputKind() === "counts" && state.countsJson === null && ui.counts.value.trim()) await check();
}

/** Read a link's or a lesson's counts (a JSON object's text) into the box, through Python. */
export async function showCountsJson(json) {
  setInputKind("counts");
  try {
    await store.ready;
    const info = await store.request("counts_check", { counts: json, counts_format: "json", counts_source: "counts" });
    setCountsText(info.lines, info.json);
    await check();
  } catch (error) {
    ui.counts.value = "";
    state.countsJson = null;
    showCountsError({ message: `The link's word counts cannot be used: ${error.message}` });
  }
}

export function initCounts({ onInput }) {
  hooks = { onInput };
  state.inputKind = "text";
  state.countsJson = null;
  for (const radio of radios()) {
    radio.addEventListener("change", () => {
      if (!radio.checked) return;
      setInputKind(radio.value);
      hooks.onInput();
      if (radio.value === "counts") check();
      paramsChanged();
    });
  }
  ui.counts.addEventListener("input", () => {
    state.countsJson = null;
    hooks.onInput();
    checkSoon();
  });
}
