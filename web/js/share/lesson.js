// Lesson files (*.bpelab.json): what a link is too short for. A lesson holds one view's
// state (share/states.js) with its text kept exactly:
//
//   {"format": "bpelab-lesson", "version": 1, "view": "explorer",
//    "text": "…" | "sample": "seed003-low-lower" | "documents": ["…", …]    the training input
//      | "counts": {"low": 5, "lower": 2},                                  (word counts, in order)
//    "settings": {"size": 265, "pretokenizer": "gpt2", …},                   every training setting
//    "state": {"step": 5, …}}                                                the view's own fields
//
// `view` is the embed's name (explorer, compare, train, encode) or vocab. The training input
// and settings are present when the view has a trained tokenizer (`state.training`). The
// state's fields are those of the view's FIELDS; a lesson gives any of them, the rest are
// the view's defaults. readLesson checks size, fields and types, then reads the fields
// through the view's own fromParams, so a lesson and a link are checked by the same code.
import { STATES, EMBED_ROUTES } from "./states.js";
import { INPUTS, baseSettings, checkRecipe, settingsFromObject } from "./recipe.js";
import { countsText, lessonCounts, stringifyLesson } from "./ordered-json.js";

export const FORMAT = "bpelab-lesson";
export const VERSION = 1;
export const MAX_LESSON_BYTES = 16 * 1024 * 1024;  // a 1,000,000-character text is at most 4 MB of UTF-8; JSON escapes can double it
const VIEW_ROUTES = { ...EMBED_ROUTES, vocab: "vocab" };
const TOP = ["format", "version", "view", ...INPUTS, "settings", "state"];

export class LessonError extends Error {}

/** The lesson object for a view's state. `view` is an embed name or "vocab". */
export function makeLesson(view, state) {
  const { training, ...own } = state;
  const lesson = { format: FORMAT, version: VERSION, view };
  if (training) {
    for (const kind of INPUTS) if (training[kind] !== undefined) lesson[kind] = training[kind];
    lesson.settings = structuredClone(training.settings);
  }
  lesson.state = structuredClone(own);
  return lesson;
}

/** The file's bytes: UTF-8 JSON, two-space indented, newline at the end. */
export function lessonBytes(lesson) {
  return new TextEncoder().encode(`${stringifyLesson(lesson)}\n`);
}

/** A file name for a lesson: bpe-lab-<view>.bpelab.json. */
export function lessonName(view) {
  return `bpe-lab-${view}.bpelab.json`;
}

const typeOf = (value) => (Array.isArray(value) ? "list" : value === null ? "null" : typeof value);

/**
 * Read a lesson: the file's text (or the object itself, from a `load` command).
 * @returns {{view, route, state}}; throws LessonError with one sentence naming the field and the fix.
 */
export function readLesson(source, { samples = [], name = "the lesson" } = {}) {
  let lesson = source;
  if (typeof source === "string") {
    if (source.length > MAX_LESSON_BYTES) throw new LessonError(`${name} is ${Math.round(source.length / 1048576)} MB; a lesson file is at most ${MAX_LESSON_BYTES / 1048576} MB.`);
    try {
      lesson = JSON.parse(source);
      if (lesson && typeof lesson === "object" && lesson.counts !== undefined) lesson.counts = lessonCounts(source);
    } catch (error) {
      throw new LessonError(`${name} is not JSON (${error.message}): a lesson file is the JSON that "Copy link" offers to download.`);
    }
  }
  const fail = (message) => { throw new LessonError(`${name}: ${message}`); };
  if (lesson && typeof lesson === "object" && lesson.counts && typeof lesson.counts === "object" && !Array.isArray(lesson.counts)) {
    lesson = { ...lesson, counts: countsText(lesson.counts) };  // an object from a `load` command: its own order
  }
  if (!lesson || typeOf(lesson) !== "object") fail(`a lesson is a JSON object, got ${typeOf(lesson)}.`);
  if (lesson.format !== FORMAT) fail(`"format" must be "${FORMAT}", got ${JSON.stringify(lesson.format)?.slice(0, 40)}.`);
  if (lesson.version !== VERSION) fail(`"version" ${JSON.stringify(lesson.version)?.slice(0, 20)} is not one this site reads: it reads version ${VERSION}.`);
  const extra = Object.keys(lesson).filter((key) => !TOP.includes(key));
  if (extra.length) fail(`unknown field${extra.length > 1 ? "s" : ""} ${extra.map((k) => JSON.stringify(k.slice(0, 30))).join(", ")}; a lesson has ${TOP.join(", ")}.`);
  const route = VIEW_ROUTES[lesson.view];
  if (!route) fail(`"view" must be one of ${Object.keys(VIEW_ROUTES).join(", ")}, got ${JSON.stringify(lesson.view)?.slice(0, 40)}.`);
  const module = STATES[route];
  const own = lesson.state ?? {};
  if (typeOf(own) !== "object") fail(`"state" must be an object, got ${typeOf(own)}.`);
  for (const [field, value] of Object.entries(own)) {
    const type = module.FIELDS[field];
    if (!type) fail(`state.${field.slice(0, 30)} is not a field of the ${lesson.view} view; it has ${Object.keys(module.FIELDS).join(", ")}.`);
    if (typeOf(value) !== type) fail(`state.${field} must be a ${type}, got ${typeOf(value)}.`);
    if (type === "list" && !value.every((v) => typeof v === "string")) fail(`state.${field} must be a list of strings.`);
  }
  const problems = [];
  checkRecipe(lesson, "the lesson", problems);
  if (problems.length) fail(problems[0]);
  const input = INPUTS.find((kind) => lesson[kind] !== undefined);
  if (lesson.sample !== undefined && !samples.some((s) => s.id === lesson.sample)) {
    fail(`there is no sample ${JSON.stringify(lesson.sample.slice(0, 40))}; the bundled samples are: ${samples.map((s) => s.id).join(", ")}.`);
  }
  const sample = samples.find((s) => s.id === lesson.sample) || null;
  const settings = settingsFromObject(lesson.settings, baseSettings(sample), "settings", problems);
  if (problems.length) fail(problems[0]);
  // The view's own fields are read as its params are (each field is the param of the same name),
  // so a lesson and a link are checked by the same code.
  const params = {};
  for (const [field, value] of Object.entries(own)) {
    if (field === "sample" && value === "") continue;  // no sample: the view's text is its input
    if (field === "text" && own.sample) continue;  // a sample: its text is the input
    params[field] = Array.isArray(value) ? value.join(",") : typeof value === "boolean" ? (value ? "1" : "0") : String(value);
  }
  // The training input goes in as the view's own key for it (documents as a stand-in text), then the
  // recipe read above (typed settings, the documents) replaces what the params gave.
  const prefix = route === "train" || route === "explore" ? "" : "train_";
  const inputKey = input === "counts" ? "counts" : `${prefix}${input === "documents" ? "text" : input}`;
  if (input) params[inputKey] = input === "documents" ? "" : lesson[input];
  if (input && route === "explore" && params.tok === "trained") delete params.tok;
  const read = module.fromParams(params, { samples });
  if (read.problems.length) fail(read.problems[0]);
  const state = read.state;
  if (input || lesson.settings !== undefined) {
    if (!input && route !== "train") fail(`"settings" are for a tokenizer trained on a text: give "text", "sample" or "documents" too.`);
    if (!state.training) {
      fail(`the ${lesson.view} view's state shows no trained tokenizer, so the lesson's ${input} would not be used: `
        + `name one (${route === "compare" ? "a trained pane" : 'tok: "trained"'}) or leave the ${input} out.`);
    }
    state.training = input ? { [input]: structuredClone(lesson[input]), settings } : { settings };
  }
  return { view: lesson.view, route, state };
}
