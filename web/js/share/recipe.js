// A training recipe: what a trained tokenizer learns from and every setting it is
// trained with. It is a plain value, so links, embed code, lesson files and notebook
// traits can all carry it:
//
//   {sample: "seed003-low-lower", settings}   a bundled sample (its own settings are the defaults)
//   {text: "…", settings}                     one text, exactly as given (CR, tab, NUL kept)
//   {documents: ["…", "…"], settings}         several documents (opened files): lesson files only
//   {counts: '{"low":5,"lower":2}', settings} word counts: a JSON object's text, in its order (each
//                                             piece one pre-token; Python reads and checks it)
//   {settings}                                no input yet
//
// `settings` has settings.js's long names (size_mode, size, pretokenizer, …, id_layout, limit).
// In params a recipe is the input key (`sample`, `text`; with a prefix such as "train_" when
// the view's own `text` is another text) and the settings' short keys (settings.js KEYS),
// leaving out those equal to the defaults. To add an input kind (word counts), add it to
// INPUTS and to inputOf/inputParams/readInput below.
import { DEFAULTS, PRETOKENIZERS, TIE_BREAKS, SEPARATORS, ID_LAYOUTS, MAX_VOCAB, KEYS } from "../settings.js";
import { DEFAULT_CHAR_LIMIT, findLoneSurrogate } from "../text-input.js";

export const INPUTS = ["sample", "text", "documents", "counts"];
// Settings names and their short keys, without "sample" (an input here, not a setting).
export const SETTING_KEYS = Object.fromEntries(Object.entries(KEYS).filter(([name]) => name !== "sample"));
export const SETTING_PARAMS = Object.values(SETTING_KEYS);
const quote = (value) => JSON.stringify(value);
const clip = (text) => (text.length > 40 ? `${text.slice(0, 39)}…` : text);
const oneOf = (list) => `${list.slice(0, -1).join(", ")} or ${list[list.length - 1]}`;

/** The default settings, or a sample's: its own settings over the defaults. */
export function baseSettings(sample = null) {
  const base = structuredClone({ ...DEFAULTS });
  delete base.sample;
  return Object.assign(base, structuredClone(sample?.settings || {}));
}

/** A recipe's input kind: "sample", "text", "documents" or null. */
export function inputOf(recipe) {
  return INPUTS.find((kind) => recipe && recipe[kind] !== undefined) ?? null;
}

/** The same input (the same sample, the same exact text)? */
export function sameInput(a, b) {
  const kind = inputOf(a);
  return kind !== null && kind === inputOf(b) && JSON.stringify(a[kind]) === JSON.stringify(b[kind]);
}

/** A string that is equal for two recipes exactly when they train the same tokenizer. */
export function recipeKey(recipe) {
  const kind = inputOf(recipe);
  const { id_layout: _layout, ...settings } = recipe.settings;  // the id layout changes only the files written
  return JSON.stringify([kind, kind && recipe[kind], Object.keys(settings).sort().map((k) => [k, settings[k]])]);
}

const asParam = (value) => (Array.isArray(value) ? JSON.stringify(value) : String(value));

/**
 * The settings as short keys: each that is not the default, and each that is not `base` (a sample's own
 * settings, which a link leaves out). Spelling out the non-defaults keeps a link's meaning if a sample's
 * settings change. The pattern is written only with pre=custom, septext only with sep=custom.
 */
export function settingsParams(settings, base = baseSettings()) {
  const params = {};
  const defaults = baseSettings();
  const differs = (a, b) => JSON.stringify(a) !== JSON.stringify(b);
  for (const [name, key] of Object.entries(SETTING_KEYS)) {
    if (name === "pattern" && settings.pretokenizer !== "custom") continue;
    if (name === "separator_text" && settings.separator !== "custom") continue;
    const custom = name === "pattern" || name === "separator_text";
    if (custom || differs(settings[name], defaults[name]) || differs(settings[name], base[name])) params[key] = asParam(settings[name]);
  }
  return params;
}

function wholeNumber(value, lo, hi) {
  if (!/^\d{1,10}$/.test(value)) return null;
  const n = Number(value);
  return n >= lo && n <= hi ? n : null;
}

/**
 * Settings from short keys over `base`; each bad value is a sentence in `problems` (and the base value is kept).
 * @param {object} params  {short key: string}
 */
export function readSettings(params, base, problems) {
  const s = structuredClone(base);
  const get = (key) => (params[key] === undefined ? null : String(params[key]));
  const choice = (key, name, list) => {
    const value = get(key);
    if (value === null) return;
    if (list.includes(value)) s[name] = value;
    else problems.push(`${key}=${quote(clip(value))} is not known: use ${oneOf(list)}.`);
  };
  choice("mode", "size_mode", ["vocab", "merges"]);
  choice("pre", "pretokenizer", PRETOKENIZERS);
  choice("tie", "tie_break", TIE_BREAKS);
  choice("sep", "separator", SEPARATORS);
  choice("layout", "id_layout", ID_LAYOUTS);
  if (get("pattern") !== null) {
    s.pattern = get("pattern");
    if (get("pre") === null) s.pretokenizer = "custom";  // a pattern alone means a custom pre-tokenizer
    else if (s.pretokenizer !== "custom") problems.push(`pattern= is used only with pre=custom, and pre is ${quote(s.pretokenizer)}.`);
  }
  if (s.pretokenizer === "custom" && !s.pattern) problems.push("pre=custom needs a pattern= (a regular expression).");
  if (get("septext") !== null) s.separator_text = get("septext");
  if (get("special") !== null) {
    let list = null;
    try { list = JSON.parse(get("special")); } catch { /* reported below */ }
    if (!Array.isArray(list) || !list.every((t) => typeof t === "string" && t !== "")) {
      problems.push(`special=${quote(clip(get("special")))} must be a JSON list of strings, such as ["<|endoftext|>"], or [] for none.`);
    } else if (new Set(list).size !== list.length) {
      problems.push(`special=${quote(clip(get("special")))} lists a token twice.`);
    } else {
      s.special_tokens = list;
    }
  }
  const nSpecial = s.special_tokens.length;
  if (get("size") !== null) {
    const least = s.size_mode === "vocab" ? 256 + nSpecial : 0;
    const n = wholeNumber(get("size"), least, MAX_VOCAB);
    if (n !== null) s.size = n;
    else {
      problems.push(s.size_mode === "vocab"
        ? `size=${quote(clip(get("size")))} is not a vocabulary size: give a whole number from ${least} (256 bytes + ${nSpecial} special token${nSpecial === 1 ? "" : "s"}) to ${MAX_VOCAB}.`
        : `size=${quote(clip(get("size")))} is not a number of merges: give a whole number from 0 to ${MAX_VOCAB}.`);
    }
  }
  if (get("min") !== null) {
    const n = wholeNumber(get("min"), 1, 1e9);
    if (n !== null) s.min_count = n;
    else problems.push(`min=${quote(clip(get("min")))} must be a whole number of at least 1.`);
  }
  if (get("limit") !== null) {
    const n = wholeNumber(get("limit"), 1, DEFAULT_CHAR_LIMIT);
    if (n !== null) s.limit = n;
    else problems.push(`limit=${quote(clip(get("limit")))} must be a whole number of characters from 1 to ${DEFAULT_CHAR_LIMIT.toLocaleString("en-US")} (a link can only lower the limit).`);
  }
  return s;
}

/**
 * The recipe as params: {params, notes}; notes say what params cannot carry (several documents).
 * @param {{prefix?: string, samples?: object[], withInput?: boolean}} options
 *   prefix for the input keys ("train_" where the view's own `text` is another text); withInput false
 *   leaves the input out (the view's own text is the training text).
 */
export function recipeParams(recipe, { prefix = "", samples = [], withInput = true } = {}) {
  const notes = [];
  const sample = recipe.sample !== undefined ? samples.find((s) => s.id === recipe.sample) || null : null;
  const params = settingsParams(recipe.settings, baseSettings(sample));
  if (withInput) {
    if (recipe.sample !== undefined) params[`${prefix}sample`] = recipe.sample;
    else if (recipe.text !== undefined) params[`${prefix}text`] = recipe.text;
    else if (recipe.counts !== undefined) params.counts = recipe.counts;  // one name in every view: only training takes counts
    else if (recipe.documents !== undefined) notes.push(`the ${recipe.documents.length} opened files (a link holds one text; a lesson file holds them all)`);
  }
  return { params, notes };
}

/**
 * A recipe from params, or null when they name no input and `fallback` gives none.
 * @param {object} params  short keys, text already expanded from z= (share/link.js)
 * @param {{prefix?: string, samples?: object[], fallback?: object|null, problems: string[]}} options
 *   fallback: an input ({sample} or {text}) to use when the params name none (the view's own text).
 */
export function readRecipe(params, { prefix = "", samples = [], fallback = null, problems }) {
  const key = (kind) => (kind === "counts" ? "counts" : `${prefix}${kind}`);
  const given = ["sample", "text", "counts"].filter((kind) => params[key(kind)] !== undefined);
  if (given.length > 1) {
    problems.push(given.includes("counts")
      ? `Give only one of ${prefix}sample, ${prefix}text (or ${prefix}z) and counts; got ${given.map(key).join(" and ")}.`
      : `Give only one of ${prefix}sample, ${prefix}text and ${prefix}z; got ${prefix}sample and ${prefix}text.`);
  }
  let input = given.length ? { [given[0]]: String(params[key(given[0])]) } : fallback;
  let sample = null;
  if (input?.sample !== undefined) {
    sample = samples.find((s) => s.id === input.sample) || null;
    if (!sample) {
      problems.push(`There is no sample ${quote(clip(input.sample))}. The bundled samples are: ${samples.map((s) => s.id).join(", ")}.`);
      input = null;
    }
  }
  if (input?.counts !== undefined && !/^\s*\{/.test(input.counts)) {
    problems.push(`counts=${quote(clip(input.counts))} must be a JSON object of word counts, such as {"low":5,"lower":2}.`);
    input = null;
  }
  if (input?.text !== undefined) {
    const where = findLoneSurrogate(input.text);
    if (where) { problems.push(`The ${prefix}text holds a lone surrogate (U+${where.code.toString(16).toUpperCase()}) at character ${where.char + 1}: it is not valid Unicode, so it cannot be trained on.`); input = null; }
  }
  const settings = readSettings(params, baseSettings(sample), problems);
  return input ? { ...input, settings } : { settings };
}

/** Whether the params name a setting (so a view that has no tokenizer to train can say it ignored them). */
export function hasSettings(params) {
  return SETTING_PARAMS.some((key) => params[key] !== undefined);
}

/** Check a recipe read from a lesson file or a notebook (long names, typed); problems as sentences. */
export function checkRecipe(recipe, where, problems) {
  const kinds = INPUTS.filter((kind) => recipe[kind] !== undefined);
  if (kinds.length > 1) problems.push(`${where} gives ${kinds.join(" and ")}: give only one.`);
  if (recipe.text !== undefined && typeof recipe.text !== "string") problems.push(`${where}.text must be a string, got ${typeof recipe.text}.`);
  if (recipe.sample !== undefined && typeof recipe.sample !== "string") problems.push(`${where}.sample must be a sample id (a string).`);
  if (recipe.counts !== undefined && (typeof recipe.counts !== "string" || !/^\s*\{/.test(recipe.counts))) {
    problems.push(`${where}.counts must be a JSON object of word counts, such as {"low": 5, "lower": 2}.`);
  }
  if (recipe.documents !== undefined && !(Array.isArray(recipe.documents) && recipe.documents.every((d) => typeof d === "string"))) {
    problems.push(`${where}.documents must be a list of strings.`);
  }
  for (const text of [recipe.text, ...(Array.isArray(recipe.documents) ? recipe.documents : [])]) {
    if (typeof text !== "string") continue;
    const lone = findLoneSurrogate(text);
    if (lone) { problems.push(`${where} holds a lone surrogate (U+${lone.code.toString(16).toUpperCase()}) at character ${lone.char + 1}: it is not valid Unicode.`); break; }
  }
}

// Each setting's type in a lesson file (long names): checked before it is read as params are.
const SETTING_TYPES = {
  size_mode: "string", size: "number", pretokenizer: "string", pattern: "string", tie_break: "string",
  min_count: "number", special_tokens: "list", separator: "string", separator_text: "string", id_layout: "string", limit: "number",
};

/** Settings from a typed object (a lesson file's `settings`, long names) over `base`; problems as sentences naming `where`. */
export function settingsFromObject(object, base, where, problems) {
  if (object === undefined) return structuredClone(base);
  if (!object || typeof object !== "object" || Array.isArray(object)) {
    problems.push(`${where} must be an object of settings, such as {"size": 300}.`);
    return structuredClone(base);
  }
  const params = {};
  for (const [name, value] of Object.entries(object)) {
    const type = SETTING_TYPES[name];
    if (!type) { problems.push(`${where}.${clip(name)} is not a setting: use ${Object.keys(SETTING_TYPES).join(", ")}.`); continue; }
    const ok = type === "list" ? Array.isArray(value) : typeof value === type;
    if (!ok) { problems.push(`${where}.${name} must be a ${type === "list" ? "list of strings" : type}, got ${clip(String(JSON.stringify(value)))}.`); continue; }
    // The two texts are kept whatever the pre-tokenizer and separator (a link writes them only when used).
    if (name !== "pattern" && name !== "separator_text") params[SETTING_KEYS[name]] = asParam(value);
  }
  const before = problems.length;
  const settings = readSettings(params, { ...base, pattern: object.pattern ?? base.pattern }, problems);
  if (typeof object.separator_text === "string") settings.separator_text = object.separator_text;
  for (let i = before; i < problems.length; i++) problems[i] = `${where}: ${problems[i]}`;
  return settings;
}
