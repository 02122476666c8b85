// The Train view's settings form: reading and writing it, its hints, and the
// custom-pattern check.
import { ui, state, store, paramsChanged } from "./train-context.js";
import { count, fmt, hide } from "../../dom.js";
import { tokenNode } from "../../tokens.js";

const PRETOKENIZER_HINTS = {
  gpt2: "Words with their leading space, numbers, punctuation runs and contractions are split apart; merges never cross them. Source: GPT-2 (seed 003, CS336).",
  cl100k: "Like GPT-2, but numbers split into groups of up to three digits, and contractions in any case. Source: tiktoken's cl100k_base (GPT-4).",
  o200k: "Also splits at case changes inside words, which suits many scripts. Source: tiktoken's o200k_base (GPT-4o).",
  whitespace: "A word with its leading space, or a run of whitespace. Source: seed 004, lesson 2.2.",
  bytes: "No split at all: merges may cross spaces and words. Slower on long texts. Source: seed 000's lab.",
  custom: "Your own regular expression; each match is a pre-token.",
};
const TIE_HINTS = {
  greater: "When two pairs are equally frequent, the one whose bytes sort last wins. Source: seed 003 and Stanford CS336.",
  "smaller-id": "When two pairs are equally frequent, the one with the smaller token ids wins. Source: seed 000.",
  "first-seen": "When two pairs are equally frequent, the one met first in the text wins, as Python's Counter.most_common does. Source: seed 004.",
};

// A special token may hold a newline: in the one-per-line box it is written \n (and a backslash \\).
const escapeToken = (t) => t.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const unescapeToken = (t) => t.replace(/\\(n|\\)/g, (_, c) => (c === "n" ? "\n" : "\\"));

export function readForm() {
  const s = { ...state.settings };
  s.size_mode = ui.form.elements.size_mode.value;
  s.size = ui.size.value === "" ? NaN : Number(ui.size.value);
  s.pretokenizer = ui.pretokenizer.value;
  s.pattern = ui.pattern.value;
  s.tie_break = ui.tieBreak.value;
  s.min_count = ui.minCount.value === "" ? NaN : Number(ui.minCount.value);
  s.separator = ui.separator.value;
  s.separator_text = ui.separatorText.value;
  s.special_tokens = ui.specialTokens.value.split("\n").map((t) => t.replace(/\r$/, "")).filter((t) => t.length > 0).map(unescapeToken);
  s.id_layout = ui.form.elements.id_layout.value;
  return s;
}

export function writeForm(s) {
  ui.form.elements.size_mode.value = s.size_mode;
  ui.size.value = String(s.size);
  ui.pretokenizer.value = s.pretokenizer;
  ui.pattern.value = s.pattern;
  ui.tieBreak.value = s.tie_break;
  ui.minCount.value = String(s.min_count);
  ui.separator.value = s.separator;
  ui.separatorText.value = s.separator_text;
  ui.specialTokens.value = s.special_tokens.map(escapeToken).join("\n");
  ui.form.elements.id_layout.value = s.id_layout;
  updateFormHints(s);
}

export function updateFormHints(s) {
  ui.patternRow.hidden = s.pretokenizer !== "custom";
  ui.separatorRow.hidden = s.separator !== "custom";
  ui.pretokenizerHint.textContent = PRETOKENIZER_HINTS[s.pretokenizer] || "";
  ui.tieHint.textContent = TIE_HINTS[s.tie_break] || "";
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

// ------------------------------------------------------------------ custom pattern check

let hooks = null;  // the controller's callbacks, given to initForm
let patternTimer = 0;
let patternAsked = 0;  // the newest check asked for; older answers are dropped
const PATTERN_CHECK_SAMPLE = 200;  // characters of the text the preview splits
const PATTERN_CHECK_MS = 3000;  // a pattern that backtracks badly can take for ever: give up after this

/** Check a custom pattern as it is typed (Python compiles it) and show how it splits the start of the text. */
export function checkPatternSoon() {
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
  if (store.phase !== "ready") { checkPatternSoon(); return; }
  const asked = ++patternAsked;
  const sample = (state.text.value || "Hello world! It's 2024: naïve café, 12345.").slice(0, PATTERN_CHECK_SAMPLE);
  let reply = null;
  let problem = null;
  let timer = 0;
  const tooLong = new Promise((resolve) => { timer = setTimeout(() => resolve("too long"), PATTERN_CHECK_MS); });
  try {
    reply = await Promise.race([store.request("pattern", { pattern, sample }), tooLong]);
  } catch (error) {
    problem = error.message;
  }
  clearTimeout(timer);
  if (asked !== patternAsked) return;
  if (reply === "too long") {
    // Python is stuck in the regex engine: only a new worker gets it back (as Cancel does).
    hooks.restartPython("Restarting Python after a slow pattern…", "a custom pattern took too long");
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
  ui.patternCheck.replaceChildren(`Splits ${state.text.value ? "the start of your text" : "a sample"} into: `,
    ...pieces.map((piece) => tokenNode(new TextEncoder().encode(piece))), reply.pieces.length > 12 ? " …" : "");
}

/** A control focused half under the sticky Train bar comes out from under it. The browser leaves a control
 * whose caret (a textarea's first line) or top is in view where it is; scroll-padding-bottom (app.css) sets the room. */
function clearTrainBar(event) {
  const bar = ui.form.querySelector(".actions");
  const target = event.target;
  if (!bar || bar.contains(target) || getComputedStyle(bar).position !== "sticky") return;
  if (target.getBoundingClientRect().bottom > bar.getBoundingClientRect().top) target.scrollIntoView({ block: "nearest" });
}

/** Wire the form; `restartPython(status, reason)` is the controller's (a runaway pattern check needs it). */
export function initForm({ onLayoutChange, restartPython }) {
  hooks = { restartPython };
  const onSettingsInput = (event) => {
    const before = state.settings.id_layout;
    const patternBefore = `${state.settings.pretokenizer} ${state.settings.pattern}`;
    state.settings = readForm();
    updateFormHints(state.settings);
    if (`${state.settings.pretokenizer} ${state.settings.pattern}` !== patternBefore) checkPatternSoon();
    hide(ui.settingsError);
    if (event.target === ui.size || event.target.name === "size_mode") {
      hide(ui.sizeError);
      ui.size.removeAttribute("aria-invalid");
    }
    paramsChanged();
    state.onSettings?.();
    if (state.settings.id_layout !== before) onLayoutChange(event);
  };
  ui.form.addEventListener("input", onSettingsInput);
  ui.form.addEventListener("change", onSettingsInput);
  ui.form.addEventListener("focusin", clearTrainBar);
  // The page keeps room for the sticky bar at its real height (app.css's scroll-padding-bottom).
  const bar = ui.form.querySelector(".actions");
  if (bar && typeof ResizeObserver === "function") {
    new ResizeObserver(() => {
      if (bar.offsetHeight) document.documentElement.style.setProperty("--train-bar", `${bar.offsetHeight}px`);
    }).observe(bar);
  }
}
