// The embed's URL parameters: read from the query string and from "#" (same
// keys; "#" wins), checked, and read into the view's state by the view's own
// state module (share/states.js), the one the app's links use too.
// This is a public API (README, "Embed in a course page"): keep names and
// values stable, and add rather than change.
//
// Nothing here touches the DOM or Python; parseEmbedParams is pure but for
// the samples index it is given and the deflate-raw decoder (z=, share/link.js).

import { STATES, EMBED_ROUTES } from "./share/states.js";
import { COMPRESSED, expandParams } from "./share/link.js";
import { readParts } from "./share/parts.js";
import { baseSettings } from "./share/recipe.js";
import { needsTraining } from "./views/compare/compare-state.js";

export const VIEWS = ["explorer", "compare", "train", "encode"];
export const VIEW_TITLES = {
  explorer: "Merge explorer", compare: "Compare tokenizers", train: "Train a tokenizer", encode: "Encode a text",
};
// The app's route name for each embed view (#/<route>?…).
export const APP_ROUTES = EMBED_ROUTES;

export const DEFAULT_SAMPLE = "seed003-low-lower";

// Keys that only steer the widget; every other key is the view's (its state module's KEYS).
// lesson=1: the state comes in a `load` command (<bpe-lab src> sends the file it fetched); nothing is shown before it.
export const WIDGET_KEYS = ["view", "start", "theme", "id", "autoplay", "parts", "lesson", "report"];
// report=: what of the reader's own input the host hears (protocol version 2). Without it, a state
// message about a text the reader typed carries no ids; texts the host sent are always reported.
export const REPORTS = ["ids", "text"];
const VIEW_KEYS = [...new Set(Object.values(STATES).flatMap((module) => module.KEYS))];
export const KNOWN_KEYS = [...WIDGET_KEYS, ...VIEW_KEYS, ...Object.values(COMPRESSED)];

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

/**
 * Check the raw parameters and read the view's state from them (its state module: share/states.js).
 * @param {Map<string,string>} raw     from rawParams()
 * @param {Array<{id,title,settings}>} samples  samples/index.json's list
 * @returns {Promise<{view, route, start, theme, id, autoplay, parts, state, params, title, errors: string[], warnings: string[]}>}
 *   errors stop the widget (each says what is missing or wrong), warnings do not; params: every view's keys
 *   as given (z= unpacked), for a view the host switches to later.
 */
export async function parseEmbedParams(raw, samples) {
  const errors = [];
  const warnings = [];
  const get = (key) => (raw.has(key) ? raw.get(key) : null);
  const out = { view: "explorer", start: "visible", theme: "light", id: get("id"), autoplay: false, parts: null, report: [], state: null, errors, warnings };
  const choice = (key, list, target) => {
    const value = get(key);
    if (value === null) return;
    if (list.includes(value)) target(value);
    else errors.push(`${key}=${quote(value.slice(0, 40))} is not known: use ${oneOf(list)}.`);
  };
  choice("view", VIEWS, (v) => { out.view = v; });
  choice("start", ["visible", "click"], (v) => { out.start = v; });
  choice("theme", ["light", "dark", "auto"], (v) => { out.theme = v; });
  const autoplay = get("autoplay");
  if (autoplay !== null && autoplay !== "0" && autoplay !== "1") errors.push(`autoplay=${quote(autoplay.slice(0, 20))} must be 1 (on) or 0 (off).`);
  out.autoplay = autoplay === "1";
  const report = get("report");
  if (report !== null && report !== "" && report !== "none") {
    const asked = report.split(",").map((r) => r.trim());
    const bad = asked.filter((r) => !REPORTS.includes(r));
    if (bad.length) errors.push(`report=${quote(report.slice(0, 40))}: ${quote(bad[0].slice(0, 20))} is not known: use ids, text, both (report=ids,text) or none.`);
    else out.report = [...new Set(asked)];
  }
  const lesson = get("lesson");
  if (lesson !== null && lesson !== "1") errors.push(`lesson=${quote(lesson.slice(0, 20))} must be 1: the widget then waits for a load command with the lesson.`);
  out.awaitLesson = lesson === "1";
  if (out.id !== null && out.id.length > 200) errors.push(`id= is ${out.id.length} characters long; keep it to 200.`);
  out.route = EMBED_ROUTES[out.view];
  const module = STATES[out.route];
  if (raw.has("parts")) {
    const read = readParts(out.view, get("parts"));
    if (read.error) errors.push(read.error);
    else out.parts = read.parts;
  }

  // A key of another view is kept for a later `view` command; a key no view reads is named in a warning.
  const unknown = [...raw.keys()].filter((key) => !KNOWN_KEYS.includes(key));
  if (unknown.length) {
    warnings.push(`Ignored the unknown parameter${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => quote(k.slice(0, 30))).join(", ")}; `
      + `the widget knows ${KNOWN_KEYS.join(", ")}.`);
  }
  const given = Object.fromEntries([...raw].filter(([key]) => KNOWN_KEYS.includes(key) && !WIDGET_KEYS.includes(key)));
  const params = await expandParams(given, errors);
  out.params = { ...params };  // every view's keys, for a view the host switches to later
  // A lesson's toy corpus, never an empty frame: the explorer and train widgets show seed 003 unless told otherwise.
  if ((out.view === "explorer" || out.view === "train") && params.sample === undefined && params.text === undefined
      && params.counts === undefined && !(out.view === "explorer" && params.tok !== undefined)) {
    params.sample = DEFAULT_SAMPLE;
  }
  const read = module.fromParams(Object.fromEntries(Object.entries(params).filter(([key]) => module.KEYS.includes(key))), { samples });
  errors.push(...read.problems);
  out.state = read.state;
  // A widget is a fresh page with nothing trained: its trained panes (compare) or tokenizer (encode)
  // are trained on its own text, or sample, with the settings it is given.
  const state = read.state;
  if (!state.training && ((out.route === "compare" && needsTraining(state.panes)) || (out.route === "encode" && state.tok === "trained"))) {
    const sample = state.sample ? samples.find((s) => s.id === state.sample) || null : null;
    state.training = { ...(state.sample ? { sample: state.sample } : { text: state.text }), settings: baseSettings(sample) };
  }
  const sample = samples.find((s) => s.id === (read.state.training?.sample ?? read.state.sample)) || null;
  const text = read.state.training?.text ?? read.state.text;
  out.title = errors.length ? "BPE Lab: this widget's parameters need fixing" : presetTitle(out.view, sample, text);
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
