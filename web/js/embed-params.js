// The embed's URL parameters: read from the query string and from "#" (same
// keys; "#" wins), checked, and turned into what the view's applyParams takes.
// This is a public API (README, "Embed in a course page"): keep names and
// values stable, and add rather than change.
//
// Nothing here touches the DOM or Python; parseEmbedParams is pure but for
// the samples index it is given and the deflate-raw decoder (z=).

export const VIEWS = ["explorer", "compare", "train", "encode"];
export const VIEW_TITLES = {
  explorer: "Merge explorer", compare: "Compare tokenizers", train: "Train a tokenizer", encode: "Encode a text",
};
// The app's route name for each embed view (#/<route>?…).
export const APP_ROUTES = { explorer: "explore", compare: "compare", train: "train", encode: "encode" };

const PRETOKENIZERS = ["gpt2", "cl100k", "o200k", "whitespace", "bytes", "custom"];
const TIE_BREAKS = ["greater", "smaller-id", "first-seen"];
const SEPARATORS = ["none", "line", "blank", "custom"];
const POLICIES = ["raise", "allow", "text"];
const PANE_NAMES = ["gpt2", "cl100k", "o200k", "bytes", "trained"];
const MAX_VOCAB = 1_000_000;
export const MAX_PANES = 6;
export const DEFAULT_SAMPLE = "seed003-low-lower";

// Keys that only steer the widget; every other key is handed to the view.
const WIDGET_KEYS = ["view", "start", "theme", "id", "autoplay", "z"];
// Keys the view understands (the app's short keys plus the per-view ones).
const VIEW_KEYS = ["sample", "text", "size", "mode", "pre", "pattern", "tie", "min", "special", "sep", "septext",
  "limit", "layout", "step", "predict", "panes", "policy", "tok", "k", "ws", "speed", "at", "trace", "lang"];
export const KNOWN_KEYS = [...WIDGET_KEYS, ...VIEW_KEYS];

// A sample's settings (samples/index.json, long names) as short keys.
const SAMPLE_SETTING_KEYS = {
  size_mode: "mode", size: "size", pretokenizer: "pre", tie_break: "tie", min_count: "min",
  special_tokens: "special", separator: "sep", pattern: "pattern", separator_text: "septext",
};

const quote = (value) => JSON.stringify(value);
const oneOf = (list) => list.slice(0, -1).join(", ") + " or " + list[list.length - 1];

/** URLSearchParams of the query merged with those after "#" ("#" wins; a leading "/" or "?" is ignored). */
export function rawParams(search, hash) {
  const merged = new Map();
  for (const source of [search, hash]) {
    const text = (source || "").replace(/^[?#]/, "").replace(/^\/?\??/, "");
    for (const [key, value] of new URLSearchParams(text)) merged.set(key, value);
  }
  return merged;
}

function wholeNumber(value, lo, hi) {
  if (!/^\d+$/.test(value)) return null;
  const n = Number(value);
  return n >= lo && n <= hi ? n : null;
}

/** base64url (no padding) of bytes. */
export function toBase64Url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("it holds characters outside base64url (A-Z a-z 0-9 - _)");
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** The z= form of a text: UTF-8, deflate-raw, base64url. */
export async function compressText(text) {
  return toBase64Url(await pipe(new TextEncoder().encode(text), new CompressionStream("deflate-raw")));
}

/** The text of a z= value; throws Error saying what is wrong with it. */
export async function decompressText(value) {
  const bytes = fromBase64Url(value);
  let raw;
  try {
    raw = await pipe(bytes, new DecompressionStream("deflate-raw"));
  } catch {
    throw new Error("it is not deflate-raw data (make it with CompressionStream(\"deflate-raw\"), then base64url)");
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    throw new Error("it does not unpack to UTF-8 text");
  }
}

/**
 * Check the raw parameters.
 * @param {Map<string,string>} raw     from rawParams()
 * @param {Array<{id,title,settings}>} samples  samples/index.json's list
 * @returns {Promise<{view, start, theme, id, autoplay, params, title, errors: string[], warnings: string[]}>}
 *   params: short keys (strings) for the view's applyParams; errors stop the widget, warnings do not.
 */
export async function parseEmbedParams(raw, samples) {
  const errors = [];
  const warnings = [];
  const get = (key) => (raw.has(key) ? raw.get(key) : null);
  const out = { view: "explorer", start: "visible", theme: "light", id: get("id"), autoplay: false, params: {}, errors, warnings };

  const unknown = [...raw.keys()].filter((key) => !KNOWN_KEYS.includes(key));
  if (unknown.length) {
    warnings.push(`Ignored the unknown parameter${unknown.length > 1 ? "s" : ""} ${unknown.map(quote).join(", ")}; `
      + `the widget knows ${KNOWN_KEYS.join(", ")}.`);
  }

  const choice = (key, list, target) => {
    const value = get(key);
    if (value === null) return;
    if (list.includes(value)) target(value);
    else errors.push(`${key}=${quote(value)} is not known: use ${oneOf(list)}.`);
  };
  choice("view", VIEWS, (v) => { out.view = v; });
  choice("start", ["visible", "click"], (v) => { out.start = v; });
  choice("theme", ["light", "dark", "auto"], (v) => { out.theme = v; });
  for (const key of ["autoplay", "predict"]) {
    const value = get(key);
    if (value !== null && value !== "0" && value !== "1") errors.push(`${key}=${quote(value)} must be 1 (on) or 0 (off).`);
  }
  out.autoplay = get("autoplay") === "1";
  const params = out.params;

  // The text: a bundled sample, the text itself, or the text compressed (z=).
  const given = ["sample", "text", "z"].filter((key) => raw.has(key));
  if (given.length > 1) errors.push(`Give only one of sample, text and z; got ${given.join(" and ")}.`);
  let sample = null;
  if (raw.has("sample")) {
    sample = samples.find((s) => s.id === get("sample")) || null;
    if (!sample) {
      errors.push(`There is no sample ${quote(get("sample"))}. The bundled samples are: ${samples.map((s) => s.id).join(", ")}.`);
    } else {
      params.sample = sample.id;
    }
  } else if (raw.has("text")) {
    params.text = get("text");
  } else if (raw.has("z")) {
    try {
      params.text = await decompressText(get("z"));
    } catch (error) {
      errors.push(`z= could not be read: ${error.message}.`);
    }
  } else if (out.view === "explorer" || out.view === "train") {
    sample = samples.find((s) => s.id === DEFAULT_SAMPLE) || null; // a lesson's toy corpus, never an empty frame
    if (sample) params.sample = sample.id;
  }
  // A sample's own settings are its defaults (seed 003 learns its eight merges); the URL's win.
  if (sample?.settings) {
    for (const [name, key] of Object.entries(SAMPLE_SETTING_KEYS)) {
      if (!(name in sample.settings) || raw.has(key)) continue;
      const value = sample.settings[name];
      params[key] = Array.isArray(value) ? JSON.stringify(value) : String(value);
    }
  }

  // Training settings.
  for (const key of ["mode", "pre", "tie", "sep", "policy", "layout", "tok", "ws", "lang"]) {
    const list = { mode: ["vocab", "merges"], pre: PRETOKENIZERS, tie: TIE_BREAKS, sep: SEPARATORS, policy: POLICIES,
      layout: ["seed", "gpt2"], tok: ["gpt2", "cl100k", "o200k", "trained"], ws: ["0", "1"], lang: ["bundled", "pasted"] }[key];
    choice(key, list, (v) => { params[key] = v; });
  }
  // The app's own view keys (the explorer's speed, window and trace box; k): its views check them.
  for (const key of ["pattern", "septext", "k", "limit", "speed", "at", "trace"]) if (raw.has(key)) params[key] = get(key);
  if (raw.has("pattern") && !raw.has("pre")) params.pre = "custom";
  if (params.pre === "custom" && !params.pattern) errors.push("pre=custom needs a pattern= (a regular expression).");
  if (raw.has("pattern") && params.pre && params.pre !== "custom") {
    errors.push(`pattern= is used only with pre=custom, and pre is ${quote(params.pre)}.`);
  }

  let nSpecial = 1; // the app's default: <|endoftext|>
  const special = raw.has("special") ? get("special") : params.special ?? null;
  if (special !== null) {
    let list = null;
    try { list = JSON.parse(special); } catch { /* reported below */ }
    if (!Array.isArray(list) || !list.every((t) => typeof t === "string" && t !== "")) {
      errors.push(`special=${quote(special)} must be a JSON list of strings, such as ["<|endoftext|>"], or [] for none.`);
    } else if (new Set(list).size !== list.length) {
      errors.push(`special=${quote(special)} lists a token twice.`);
    } else {
      params.special = special;
      nSpecial = list.length;
    }
  }

  const mode = params.mode || "vocab";
  const size = raw.has("size") ? get("size") : params.size ?? null;
  if (size !== null) {
    const least = mode === "vocab" ? 256 + nSpecial : 0;
    const n = wholeNumber(size, least, MAX_VOCAB);
    if (n === null) {
      errors.push(mode === "vocab"
        ? `size=${quote(size)} is not a vocabulary size: give a whole number from ${least} (256 bytes + ${nSpecial} special token${nSpecial === 1 ? "" : "s"}) to ${MAX_VOCAB}.`
        : `size=${quote(size)} is not a number of merges: give a whole number from 0 to ${MAX_VOCAB}.`);
    } else {
      params.size = String(n);
    }
  }
  const min = raw.has("min") ? get("min") : params.min ?? null;
  if (min !== null) {
    if (wholeNumber(min, 1, 1e9) === null) errors.push(`min=${quote(min)} must be a whole number of at least 1.`);
    else params.min = String(Number(min));
  }
  if (raw.has("step")) {
    if (wholeNumber(get("step"), 0, MAX_VOCAB) === null) errors.push(`step=${quote(get("step"))} must be a whole number of at least 0.`);
    else params.step = String(Number(get("step")));
  }
  if (raw.has("limit") && wholeNumber(get("limit"), 1, 1e9) === null) {
    errors.push(`limit=${quote(get("limit"))} must be a whole number of characters, at least 1.`);
  }
  if (get("predict") === "1") params.predict = "1";

  if (raw.has("panes")) {
    const panes = get("panes").split(",").map((p) => p.trim());
    const bad = panes.filter((p) => !(PANE_NAMES.includes(p) || /^trained@\d+$/.test(p)));
    if (bad.length || !panes.length) {
      errors.push(`panes=${quote(get("panes"))}: ${bad.map(quote).join(", ")} ${bad.length === 1 ? "is" : "are"} not a pane; `
        + `use a comma list of ${PANE_NAMES.join(", ")} and trained@K (the trained tokenizer after K merges).`);
    } else if (panes.length > MAX_PANES) {
      errors.push(`panes= lists ${panes.length} panes; the widget shows at most ${MAX_PANES}.`);
    } else {
      params.panes = panes.join(",");
    }
  }
  if (out.id !== null && out.id.length > 200) errors.push(`id= is ${out.id.length} characters long; keep it to 200.`);

  out.title = errors.length ? "BPE Lab: this widget's parameters need fixing" : presetTitle(out.view, sample, params.text);
  return out;
}

/** The preview's heading: the view and what it is about. */
export function presetTitle(view, sample, text) {
  const what = VIEW_TITLES[view] || "BPE Lab";
  if (sample) return `${what}: ${sample.title}`;
  if (text) {
    const flat = text.replace(/\s+/g, " ").trim();
    return `${what}: “${flat.length > 60 ? flat.slice(0, 59) + "…" : flat}”`;
  }
  return what;
}
