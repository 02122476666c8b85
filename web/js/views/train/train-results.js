// The Train view's results: the summary, the merge table (paged), vocabulary
// statistics and the compression report with its chart.
import { ui, state, store } from "./train-context.js";
import { el, clear, count, fmt } from "../../dom.js";
import { entriesText } from "../../components/tokenizer-choice.js";
import { hexToBytes, tokenNode, tokenLabel } from "../../tokens.js";
import { lineChart, barChart } from "../../chart.js";

const MERGES_PER_PAGE = 100;
const STOP_REASONS = {
  size: "the requested size was reached",
  no_pairs: "no pair was left to merge",
  min_count: "the best pair count fell below the minimum count",
};

/** Show a new tokenizer; the worker may forget the one it replaces of the same kind (a training text can be large). */
export function replaceCurrent(info) {
  const old = state.current;
  state.current = info;
  state.exported = null;
  if (old && !old.detached && old.handle !== info.handle && old.source === info.source) store.drop(old.handle);
}

/** The merge that makes each token: id -> [left id, right id]. */
function partsOf(info) {
  if (!info.partsById) info.partsById = new Map(info.merges.map(([a, b, id]) => [id, [a, b]]));
  return info.partsById;
}

/** A token's bytes. The reply spells out only tokens no merge makes; a merged token joins its parts. */
function tokenBytes(id) {
  const info = state.current;
  const cache = info.bytesCache;
  const parts = partsOf(info);
  // Without recursion: a chain of merges can be thousands deep (one long document under `bytes`).
  const pending = [id];
  while (pending.length) {
    const next = pending[pending.length - 1];
    if (cache.has(next)) { pending.pop(); continue; }
    const made = parts.get(next);
    const hex = info.vocab[next];
    if (hex != null || !made) {
      cache.set(next, hex == null ? new Uint8Array() : hexToBytes(hex));
      pending.pop();
      continue;
    }
    const [a, b] = made;
    const left = cache.get(a), right = cache.get(b);
    if (left && right) {
      const bytes = new Uint8Array(left.length + right.length);
      bytes.set(left);
      bytes.set(right, left.length);
      cache.set(next, bytes);
      pending.pop();
    } else {
      if (!left) pending.push(a);
      if (!right) pending.push(b);
    }
  }
  return cache.get(id);
}

/** [id, length in bytes] of each merge's token, in merge order, without building the bytes. */
function mergedLengths(info) {
  const known = new Map();
  const length = (id) => known.get(id) ?? tokenBytes(id).length;  // a part no merge made: its own bytes
  return info.merges.map(([a, b, id]) => {
    const n = length(a) + length(b);
    known.set(id, n);
    return [id, n];
  });
}

export function renderResults() {
  const info = state.current;
  info.bytesCache = new Map();
  state.mergePage = 0;
  ui.results.hidden = false;
  clear(ui.resultsSummary);
  const nSpecial = Object.keys(info.special_tokens).length;
  const parts = [];
  if (info.source === "trained") {
    const from = info.input === "counts"  // word counts: the table's pieces and how often they occur in all
      ? `${count(info.corpus.pieces, "counted piece")}, ${fmt(info.corpus.occurrences)} in all`
      : count(info.corpus.documents, "document");
    parts.push(`Learned ${count(info.n_merges, "merge")} in ${info.seconds.toFixed(2)} s from ${from} ` +
      `(${fmt(info.corpus.characters)} characters, ${fmt(info.corpus.bytes)} bytes); stopped because ${STOP_REASONS[info.stop_reason] || info.stop_reason}.`);
  } else {
    parts.push(`Imported ${info.name}: ${count(info.n_merges, "merge")}.`);
  }
  const gaps = entriesText(info) !== entriesText(info, { ids: false }) ? ` (ids 0–${fmt(info.n_vocab - 1)})` : "";
  parts.push(` Vocabulary: ${entriesText(info, { ids: false })} = ${fmt(info.n_base)} bytes + ${count(info.n_merges, "merge")} + ${count(nSpecial, "special token")}${gaps}. Pre-tokenizer: ${info.pretokenizer.name}.`);
  ui.resultsSummary.append(...parts);
  if (info.source === "trained") {
    // What a first-time visitor can do next with what they just made.
    ui.resultsSummary.append(el("span", { className: "next" }, "Next: ",
      el("a", { href: "#/encode?tok=trained" }, "encode your own words with it"), " · ",
      el("a", { href: "#/explore" }, "step through its merges"), " · ",
      el("a", { href: "#/compare?panes=trained,gpt2,cl100k" }, "compare it with GPT-2 and GPT-4")));
  }
  renderMergePage();
  renderVocab();
  renderReport();
  ui.tabCompression.hidden = info.source !== "trained";
  showATab();
}

/** Whether a tab is on show: not hidden, and not left out of a widget by its parts (css/embed.css). */
const isShown = (tab) => !tab.hidden && getComputedStyle(tab).display !== "none";

/** The selected tab, or the first shown when it is not; with none shown (a widget's parts), a line says so. */
function showATab() {
  const shown = ui.tabs.filter(isShown);
  const selected = ui.tabs.find((t) => t.getAttribute("aria-selected") === "true");
  if (shown.length && !shown.includes(selected)) selectTab(shown[0]);
  ui.resultsNoTab.hidden = shown.length > 0;
  ui.tabs[0].parentElement.hidden = !shown.length;  // an empty tablist is no list
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
    const n = info.merge_counts ? fmt(info.merge_counts[rank]) : "—";
    rows.push(el("tr", {},
      el("td", { text: String(rank + 1) }),  // merge 1 is rank 0: numbered as the explorer's steps and the trace
      el("td", { text: String(id) }),
      el("td", { "aria-label": `${tokenLabel(tokenBytes(a))} plus ${tokenLabel(tokenBytes(b))}` },
        tokenNode(tokenBytes(a)), el("span", { className: "plus", "aria-hidden": "true", text: "+" }), tokenNode(tokenBytes(b))),
      el("td", {}, tokenNode(tokenBytes(id))),
      el("td", { text: n })));
  }
  if (!rows.length) {
    const why = info.merges_note ? `No merge list: ${info.merges_note}`
      : info.source === "trained" ? `No merges were learned: ${STOP_REASONS[info.stop_reason] || info.stop_reason}.`
      : "This tokenizer has no merges.";
    rows.push(el("tr", {}, el("td", { colspan: "5", className: "note", text: why })));
  }
  ui.mergeBody.replaceChildren(...rows);
  ui.mergeRange.textContent = total ? `Merges ${fmt(start + 1)}–${fmt(end)} of ${fmt(total)} · page ${state.mergePage + 1} of ${pages}` : "0 merges";
  ui.mergePrev.disabled = state.mergePage === 0;
  ui.mergeNext.disabled = state.mergePage >= pages - 1;
  ui.mergeJump.max = String(Math.max(1, total));
  ui.mergeJump.min = "1";
}

function stat(label, value) {
  return el("div", {}, el("dt", { text: label }), el("dd", { text: value }));
}

export function renderVocab() {
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
  const lengths = mergedLengths(info);
  if (lengths.length) {
    const mean = lengths.reduce((n, [, l]) => n + l, 0) / lengths.length;
    stats.push(stat("Mean merged-token length", `${mean.toFixed(2)} bytes`));
  }
  const specials = Object.entries(info.special_tokens).sort((x, y) => x[1] - y[1]);
  if (specials.length) {
    stats.push(el("div", { className: "wide" }, el("dt", { text: "Special tokens and their ids" }),
      el("dd", { className: "specials" }, specials.map(([token, id]) => el("bdi", { className: "tok", text: `${token} = ${id}` })))));
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

export function renderReport() {
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
    ui.results.querySelector(`#${t.getAttribute("aria-controls")}`).hidden = !on;
  }
}

export function initResults() {
  for (const tab of ui.tabs) {
    tab.addEventListener("click", () => selectTab(tab));
    tab.addEventListener("keydown", (event) => {
      const visible = ui.tabs.filter(isShown);
      const i = visible.indexOf(tab);
      let next = null;
      if (event.key === "ArrowRight") next = visible[(i + 1) % visible.length];
      else if (event.key === "ArrowLeft") next = visible[(i - 1 + visible.length) % visible.length];
      else if (event.key === "Home") next = visible[0];
      else if (event.key === "End") next = visible[visible.length - 1];
      if (next) { event.preventDefault(); selectTab(next); next.focus(); }
    });
  }
  ui.mergePrev.addEventListener("click", () => { state.mergePage--; renderMergePage(); });
  ui.mergeNext.addEventListener("click", () => { state.mergePage++; renderMergePage(); });
  ui.mergeJump.addEventListener("change", () => {
    const merge = Number(ui.mergeJump.value);  // 1-based, as the table's first column
    if (!Number.isInteger(merge) || !state.current) return;
    state.mergePage = Math.floor(Math.max(0, merge - 1) / MERGES_PER_PAGE);
    renderMergePage();
  });
}
