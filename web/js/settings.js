// Every setting the page has, its default, how it reads from and writes to
// location.hash, and how it becomes the Python TrainSettings.
import { DEFAULT_CHAR_LIMIT } from "./text-input.js";

export const PRETOKENIZERS = ["gpt2", "cl100k", "o200k", "whitespace", "bytes", "custom"];
export const TIE_BREAKS = ["greater", "smaller-id", "first-seen"];
export const SEPARATORS = ["none", "line", "blank", "custom"];
export const ID_LAYOUTS = ["seed", "gpt2"];
export const MAX_VOCAB = 1_000_000;

export const DEFAULTS = Object.freeze({
  size_mode: "vocab",      // "vocab": size is the vocabulary size; "merges": the number of merges
  size: 1000,
  pretokenizer: "gpt2",
  pattern: " ?[^\\s]+|\\s+",
  tie_break: "greater",
  min_count: 1,
  special_tokens: ["<|endoftext|>"],
  separator: "none",
  separator_text: "\\n---\\n",
  id_layout: "seed",
  sample: "",
  limit: DEFAULT_CHAR_LIMIT, // the character limit; the URL can lower it (tests, course pages)
});

// Short keys keep shared links readable.
export const KEYS = {
  size_mode: "mode", size: "size", pretokenizer: "pre", pattern: "pattern", tie_break: "tie",
  min_count: "min", special_tokens: "special", separator: "sep", separator_text: "septext",
  id_layout: "layout", sample: "sample", limit: "limit",
};

function intIn(value, lo, hi, fallback) {
  if (value === null || value === "") return fallback; // Number(null) would be 0
  const n = Number(value);
  return Number.isInteger(n) && n >= lo && n <= hi ? n : fallback;
}

/** Settings from a location.hash string or a params object; unknown or invalid values fall back to the defaults. */
export function fromHash(hash) {
  const params = typeof hash === "string" ? new URLSearchParams(hash.replace(/^#/, "")) : new URLSearchParams(hash);
  const s = { ...DEFAULTS, special_tokens: [...DEFAULTS.special_tokens] };
  const get = (name) => params.get(KEYS[name]);
  if (["vocab", "merges"].includes(get("size_mode"))) s.size_mode = get("size_mode");
  s.size = intIn(get("size"), 0, MAX_VOCAB, s.size);
  if (PRETOKENIZERS.includes(get("pretokenizer"))) s.pretokenizer = get("pretokenizer");
  if (params.has(KEYS.pattern)) s.pattern = get("pattern");
  if (TIE_BREAKS.includes(get("tie_break"))) s.tie_break = get("tie_break");
  s.min_count = intIn(get("min_count"), 1, 1e9, s.min_count);
  if (params.has(KEYS.special_tokens)) {
    // JSON keeps tokens that contain commas or newlines intact.
    try {
      const list = JSON.parse(get("special_tokens"));
      if (Array.isArray(list) && list.every((t) => typeof t === "string")) s.special_tokens = list;
    } catch { /* a hand-edited link: keep the default */ }
  }
  if (SEPARATORS.includes(get("separator"))) s.separator = get("separator");
  if (params.has(KEYS.separator_text)) s.separator_text = get("separator_text");
  if (ID_LAYOUTS.includes(get("id_layout"))) s.id_layout = get("id_layout");
  if (params.has(KEYS.sample)) s.sample = get("sample");
  // A link may only lower the limit (tests, course pages), never raise it.
  s.limit = intIn(get("limit"), 1, DEFAULT_CHAR_LIMIT, s.limit);
  return s;
}

/** The params for these settings, {short key: string}; defaults are left out so links stay short. */
export function toParams(settings) {
  const params = new Map();
  for (const [name, key] of Object.entries(KEYS)) {
    const value = settings[name];
    const fallback = DEFAULTS[name];
    if (name === "special_tokens") {
      if (JSON.stringify(value) !== JSON.stringify(fallback)) params.set(key, JSON.stringify(value));
    } else if (name === "pattern") {
      if (settings.pretokenizer === "custom") params.set(key, value);
    } else if (name === "separator_text") {
      if (settings.separator === "custom") params.set(key, value);
    } else if (value !== fallback && value !== "" && value !== undefined) {
      params.set(key, String(value));
    }
  }
  return Object.fromEntries(params);
}

/** The hash for these settings (the form older links have: no route). */
export function toHash(settings) {
  const text = new URLSearchParams(toParams(settings)).toString();
  return text ? `#${text}` : "";
}

/** A form value as an error message quotes it (an empty field is read as NaN). */
function given(value) {
  return Number.isNaN(value) ? "an empty field" : String(value);
}

/** A list of problems with the settings, each a sentence; empty when they can be trained. */
export function validate(settings) {
  const problems = [];
  const nSpecial = settings.special_tokens.length;
  if (settings.size_mode === "vocab") {
    const least = 256 + nSpecial;
    if (!Number.isInteger(settings.size) || settings.size < least) {
      problems.push(`The vocabulary size must be a whole number of at least 256 + ${nSpecial} special token${nSpecial === 1 ? "" : "s"} = ${least}, got ${given(settings.size)}.`);
    }
  } else if (!Number.isInteger(settings.size) || settings.size < 0) {
    problems.push(`The number of merges must be a whole number of at least 0, got ${given(settings.size)}.`);
  }
  // A link carries at most MAX_VOCAB (fromHash): a larger size could not be shared, so it is refused here too.
  if (Number.isInteger(settings.size) && settings.size > MAX_VOCAB) {
    const what = settings.size_mode === "vocab" ? "vocabulary size" : "number of merges";
    problems.push(`The ${what} must be at most ${MAX_VOCAB.toLocaleString("en-US")}, got ${settings.size.toLocaleString("en-US")}.`);
  }
  if (!Number.isInteger(settings.min_count) || settings.min_count < 1) {
    problems.push(`The minimum pair count must be a whole number of at least 1, got ${given(settings.min_count)}.`);
  }
  const seen = new Set();
  for (const token of settings.special_tokens) {
    if (seen.has(token)) problems.push(`The special token ${JSON.stringify(token)} is listed twice.`);
    seen.add(token);
  }
  if (settings.pretokenizer === "custom" && !settings.pattern) problems.push("The custom pre-tokenizer needs a pattern.");
  if (settings.separator === "custom" && !settings.separator_text) problems.push("The custom document separator is empty.");
  return problems;
}

/** The settings as bpelab.train.TrainSettings fields. */
export function toTrainSettings(settings) {
  const out = {
    pretokenizer: settings.pretokenizer,
    tie_break: settings.tie_break,
    min_count: settings.min_count,
    special_tokens: [...settings.special_tokens],
  };
  if (settings.pretokenizer === "custom") out.pattern = settings.pattern;
  if (settings.size_mode === "vocab") out.vocab_size = settings.size;
  else out.num_merges = settings.size;
  return out;
}
