// The state <-> params <-> address <-> lesson file round trips of every view (share/states.js),
// run in Node on the site's own modules: tests/e2e/test_share_state.py calls it and checks each line.
// Prints one JSON object: {roundTrips: [{name, route, ok, detail}], problems: [{name, got}]}.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../web");
const load = (file) => import(pathToFileURL(path.join(web, file)).href);
const { STATES } = await load("js/share/states.js");
const { makeLesson, readLesson, lessonBytes } = await load("js/share/lesson.js");
const { compactParams, expandParams, queryOf } = await load("js/share/link.js");
const { baseSettings } = await load("js/share/recipe.js");

const samples = JSON.parse(fs.readFileSync(path.join(web, "samples/index.json"), "utf8")).samples;
const ctx = { samples };
const sample = (id) => samples.find((s) => s.id === id);
const settings = (over = {}, id = null) => ({ ...baseSettings(id ? sample(id) : null), ...over });
const EXACT = "line one\r\nline two\rlone CR\ttab\u0000NUL ế 🙂 \u202Eend";
const COUNTS = '{"low":5,"2024":3,"1":1,"new york":2,"\\n":4}';

// Every view, several states each: texts with CR, tab and NUL, samples with a setting set back to the
// default, custom patterns, special tokens holding a comma and a newline, references, imported.
const CASES = [
  ["train", "pasted text, custom settings", { training: { text: EXACT, settings: settings({ size: 300, tie_break: "first-seen", min_count: 2 }) }, heldout: "held\r\nout" }],
  ["train", "a sample with its own settings", { training: { sample: "seed003-low-lower", settings: settings({}, "seed003-low-lower") }, heldout: "" }],
  ["train", "a sample's setting put back to the default", { training: { sample: "seed004-walk", settings: settings({ pretokenizer: "gpt2" }, "seed004-walk") }, heldout: "" }],
  ["train", "custom pattern and separator, specials with , and newline", { training: { text: "a,b\n---\nc", settings: settings({ pretokenizer: "custom", pattern: "\\p{L}+| ?[^\\s]", separator: "custom", separator_text: "\\n---\\n", special_tokens: ["<a,b>", "<x\ny>"], size_mode: "merges", size: 7, limit: 40 }) }, heldout: "" }],
  ["train", "no input yet", { training: { settings: settings({ size: 512 }) }, heldout: "" }],
  ["explore", "trained on a pasted text at step 5", { ...STATES.explore.defaults(), tok: "trained", training: { text: EXACT, settings: settings({ size: 270 }) }, step: 5 }],
  ["explore", "seed 003 with predict, speed, window and trace", { ...STATES.explore.defaults(), tok: "trained", training: { sample: "seed003-low-lower", settings: settings({}, "seed003-low-lower") }, step: 3, predict: true, speed: 8, at: 12, trace: "lower\tnewest" }],
  ["explore", "OpenAI's o200k", { ...STATES.explore.defaults(), tok: "o200k", step: 40 }],
  ["explore", "cl100k at step 0", { ...STATES.explore.defaults(), tok: "cl100k" }],
  ["compare", "trained@3 and a second configuration, trained on another text", { ...STATES.compare.defaults(), text: "Xin chào\r\nthế giới", panes: ["trained@3", "alt_400_whitespace_smaller-id", "bytes"], policy: "text", ws: false, training: { sample: "seed003-low-lower", settings: settings({}, "seed003-low-lower") } }],
  ["compare", "trained on the compared text itself", { ...STATES.compare.defaults(), text: "abab cdcd", panes: ["trained", "gpt2"], training: { text: "abab cdcd", settings: settings({ size: 258, special_tokens: [] }) } }],
  ["compare", "a sample and the pasted language table", { ...STATES.compare.defaults(), text: "", sample: "handbook-ru", panes: ["o200k"], lang: "pasted", policy: "allow" }],
  ["encode", "trained, with a CR text", { ...STATES.encode.defaults(), tok: "trained", text: "a\rb\r\nc\u0000", training: { text: "training\ttext", settings: settings({ size: 280 }) } }],
  ["encode", "gpt2, allow, no marks", { ...STATES.encode.defaults(), tok: "gpt2", policy: "allow", ws: false, text: "<|endoftext|> hi" }],
  ["encode", "a sample on o200k", { ...STATES.encode.defaults(), tok: "o200k", text: "", sample: "kjv-genesis" }],
  ["vocab", "o200k, a search, page 3", { ...STATES.vocab.defaults(), tok: "o200k", q: "東京", page: 3 }],
  ["vocab", "trained, hex search", { ...STATES.vocab.defaults(), tok: "trained", kind: "hex", q: "E1 BA", training: { sample: "seed003-low-lower", settings: settings({}, "seed003-low-lower") } }],
  // Word counts: a JSON object's text, whose order (keys a JS object would sort first, a newline, a space) survives.
  ["train", "word counts in their order", { training: { counts: COUNTS, settings: settings({ size_mode: "merges", size: 12, pretokenizer: "whitespace" }) }, heldout: "" }],
  ["train", "a counts sample", { training: { sample: "cs336-bpe-example", settings: settings({}, "cs336-bpe-example") }, heldout: "" }],
  ["explore", "trained on word counts at step 4", { ...STATES.explore.defaults(), tok: "trained", training: { counts: COUNTS, settings: settings({ size: 270 }) }, step: 4 }],
  ["compare", "trained@2 on word counts", { ...STATES.compare.defaults(), text: "the newest", panes: ["trained@2", "trained"], training: { counts: COUNTS, settings: settings({ size: 270 }) } }],
];

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const roundTrips = [];
for (const [route, name, state] of CASES) {
  const module = STATES[route];
  const { params } = module.toParams(state, ctx);
  const direct = module.fromParams(params, ctx);
  // Through the address: compressed where shorter, written as a query string, parsed, unpacked.
  const query = queryOf(await compactParams(params));
  const parsed = Object.fromEntries(new URLSearchParams(query));
  const problems = [];
  const viaLink = module.fromParams(await expandParams(parsed, problems), ctx);
  const view = { explore: "explorer" }[route] || route;
  const lessonText = new TextDecoder().decode(lessonBytes(makeLesson(view, state)));
  let viaLesson;
  try { viaLesson = readLesson(lessonText, ctx).state; } catch (error) { viaLesson = { error: error.message }; }
  const checks = {
    params: same(direct.state, state) && direct.problems.length === 0,
    link: same(viaLink.state, state) && viaLink.problems.length === 0 && problems.length === 0,
    lesson: same(viaLesson, state),
  };
  roundTrips.push({ name, route, ok: checks.params && checks.link && checks.lesson, checks, query: query.slice(0, 300),
    detail: { want: state, params: direct.state, link: viaLink.state, lesson: viaLesson, problems: [...direct.problems, ...viaLink.problems, ...problems] } });
}

// Several documents: a lesson file carries them, a link says it cannot.
const documents = { training: { documents: ["first\r\nfile", "second\u0000file"], settings: settings({ size: 300 }) }, heldout: "" };
const docNotes = STATES.train.toParams(documents, ctx).notes;
let docLesson;
try { docLesson = readLesson(new TextDecoder().decode(lessonBytes(makeLesson("train", documents))), ctx).state; } catch (error) { docLesson = error.message; }
roundTrips.push({ name: "several documents", route: "train", ok: same(docLesson, documents) && docNotes.some((n) => n.includes("2 opened files")), detail: { docLesson, docNotes } });

// Params that cannot be honoured: each gives its one-sentence problem.
const BAD = [
  ["explore", { tok: "o200k", text: "abc" }],
  ["explore", { tok: "gpt5" }],
  ["explore", { tok: "trained" }],
  ["explore", { step: "-1", sample: "seed003-low-lower" }],
  ["explore", { speed: "3", sample: "seed003-low-lower" }],
  ["explore", { size: "300" }],
  ["train", { sample: "no-such-sample" }],
  ["train", { text: "x", size: "12" }],
  ["train", { text: "x", limit: "2000000" }],
  ["train", { text: "x", special: "[1]" }],
  ["train", { text: "x", pattern: "a+", pre: "gpt2" }],
  ["train", { text: "x", sample: "seed003-low-lower" }],
  ["compare", { panes: "gpt2,gpt5" }],
  ["compare", { policy: "never" }],
  ["encode", { tok: "bert" }],
  ["vocab", { page: "0" }],
];
const problems = BAD.map(([route, params]) => ({ name: `${route} ${JSON.stringify(params)}`, got: STATES[route].fromParams(params, ctx).problems }));

// Lesson files that are wrong in one way each: one sentence naming the field.
const good = makeLesson("explorer", CASES[5][2]);
const BAD_LESSONS = [
  ["not JSON", "{"],
  ["an array", "[]"],
  ["another format", { ...good, format: "bpelab" }],
  ["a later version", { ...good, version: 2 }],
  ["an unknown field", { ...good, colour: "red" }],
  ["an unknown view", { ...good, view: "timeline" }],
  ["a state field of another view", { ...good, state: { panes: ["gpt2"] } }],
  ["a field of the wrong type", { ...good, state: { step: "5" } }],
  ["a setting of the wrong type", { ...good, settings: { size: "300" } }],
  ["an unknown setting", { ...good, settings: { colour: 1 } }],
  ["two inputs", { ...good, sample: "seed003-low-lower" }],
  ["a lone surrogate", { ...good, text: "a\ud800b" }],
  ["text for a view with no trained tokenizer", { format: "bpelab-lesson", version: 1, view: "compare", text: "x", state: { panes: ["gpt2"] } }],
];
const lessons = BAD_LESSONS.map(([name, lesson]) => {
  try { readLesson(typeof lesson === "string" ? lesson : JSON.stringify(lesson), { ...ctx, name: "lesson.bpelab.json" }); return { name, got: null }; } catch (error) { return { name, got: error.message }; }
});

console.log(JSON.stringify({ roundTrips, problems, lessons }));
