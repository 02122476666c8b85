// One compare pane: which tokenizer (a menu, k merges, a second configuration),
// its counts, the count under each special-token policy, the token display
// with the linked ids (D's <token-display>), a pager for long texts and the
// focused token's detail. The view owns the panes; a pane reports changes
// through callbacks and draws what Python sends.
import { el, append, fmt, count } from "../../dom.js";
import "../../components/token-display.js";
import {
  REFERENCE_LABELS, ALT_PRETOKENIZERS, ALT_TIES, parseSpec, paneLabel, paneName, altSpec,
} from "./compare-specs.js";

const WINDOW = 500;  // tokens drawn per pane at once (about what a pane shows); the pager moves the window
let serial = 0;

const KIND_OPTIONS = [
  ["gpt2", REFERENCE_LABELS.gpt2], ["cl100k", REFERENCE_LABELS.cl100k], ["o200k", REFERENCE_LABELS.o200k],
  ["bytes", "Plain bytes"], ["trained", "Trained (all merges)"], ["trainedAt", "Trained, first k merges"],
  ["alt", "Second trained configuration"], ["imported", "Imported"],
];

const ratio = (value) => (value === null || value === undefined ? "–" : value.toFixed(2));

export class ComparePane {
  /** spec: the pane's spelling; hooks: {onSpec(pane, spec), onRemove(pane), onWindow(pane), onSelect(pane, index, id), onHover(pane, index)} */
  constructor(spec, hooks) {
    this.id = `pane-${++serial}`;
    this.spec = spec;
    this.hooks = hooks;
    this.handle = null;
    this.resets = 0;      // how often the handle was dropped: a handle resolved before the last drop is stale
    this.result = null;   // the pane's part of the worker's compare result
    this.window = null;   // [start, stop] asked for, or null for the first window
    this.build();
    this.setSpec(spec, { silent: true });
  }

  build() {
    const id = this.id;
    this.kind = el("select", { id: `${id}-kind`, "aria-label": "Tokenizer of this pane", onchange: () => this.kindChanged() },
      KIND_OPTIONS.map(([value, label]) => el("option", { value, text: label })));
    // The pane (and so the address) follows k as it is typed or dragged, not only when the field loses focus.
    const kTyped = () => { if (this.k.value !== "" && Number(this.k.value) >= 0) this.specFromControls(); };
    this.k = el("input", { type: "number", id: `${id}-k`, min: "0", step: "1", value: "0", inputmode: "numeric",
      oninput: kTyped, onchange: () => this.specFromControls() });
    this.kRange = el("input", { type: "range", id: `${id}-k-range`, min: "0", max: "0", value: "0", "aria-label": "Merges k (slider)",
      oninput: () => { this.k.value = this.kRange.value; kTyped(); }, onchange: () => this.specFromControls() });
    this.kRow = el("div", { className: "row wrap pane-k", hidden: true },
      el("label", { for: `${id}-k`, text: "Merges k" }), this.k, this.kRange);
    this.altSize = el("input", { type: "number", id: `${id}-alt-size`, min: "257", step: "1", value: "500" });
    this.altPre = el("select", { id: `${id}-alt-pre` }, ALT_PRETOKENIZERS.map((p) => el("option", { value: p, text: p })));
    this.altTie = el("select", { id: `${id}-alt-tie` }, ALT_TIES.map((t) => el("option", { value: t, text: t })));
    this.altRow = el("div", { className: "row wrap pane-alt", hidden: true },
      el("label", { for: `${id}-alt-size`, text: "Vocabulary" }), this.altSize,
      el("label", { for: `${id}-alt-pre`, text: "Pre-tokenizer" }), this.altPre,
      el("label", { for: `${id}-alt-tie`, text: "Tie-break" }), this.altTie,
      el("button", { type: "button", className: "secondary", text: "Train this configuration", onclick: () => this.specFromControls() }));
    this.remove = el("button", { type: "button", className: "secondary pane-remove", text: "Remove",
      onclick: () => this.hooks.onRemove(this) });
    this.title = el("h3", { id: `${id}-title`, className: "pane-title" });
    this.status = el("p", { className: "meta pane-status", role: "status" });
    // A second configuration trains in the worker: its progress, not read out at every message.
    this.progressBar = el("progress", { id: `${id}-progress`, max: "1", value: "0" });
    this.progressText = el("span", { className: "meta", "aria-hidden": "true" });  // the bar's aria-valuetext says it
    this.progress = el("div", { className: "row wrap pane-progress", hidden: true }, this.progressBar, this.progressText);
    this.counts = el("dl", { className: "pane-counts" });
    this.policies = el("p", { className: "hint pane-policies" });
    this.display = el("token-display", { "aria-label": "Tokens" });
    this.ids = el("token-ids", { "aria-label": "Token ids" });
    this.display.linkIds(this.ids);
    this.display.addEventListener("token-select", (event) => this.hooks.onSelect(this, event.detail.index, event.detail.id));
    this.display.addEventListener("token-hover", (event) => this.hooks.onHover?.(this, event.detail.index, event.detail.id));
    this.pager = el("div", { className: "row wrap pane-pager", hidden: true });
    this.detail = el("div", { className: "pane-detail", "aria-live": "polite" });
    this.node = el("section", { className: "compare-pane panel", "aria-labelledby": `${id}-title`, dataset: { spec: this.spec } },
      el("div", { className: "row wrap pane-head" }, this.title, this.remove, this.kind),
      this.kRow, this.altRow, this.status, this.progress, this.counts, this.policies, this.pager, this.display,
      el("details", { className: "pane-ids", open: true }, el("summary", { text: "Token ids" }), this.ids), this.detail);
  }

  /** Show a spelling in the controls (and the title). */
  setSpec(spec, { silent = false } = {}) {
    this.spec = spec;
    this.node.dataset.spec = spec;
    const p = parseSpec(spec) || { kind: "gpt2" };
    this.kind.value = p.kind === "reference" ? p.name : p.kind;
    this.kRow.hidden = p.kind !== "trainedAt";
    this.altRow.hidden = p.kind !== "alt";
    if (p.kind === "trainedAt") { this.k.value = String(p.k); this.kRange.value = String(p.k); }
    if (p.kind === "alt") { this.altSize.value = String(p.size); this.altPre.value = p.pre; this.altTie.value = p.tie; }
    this.title.textContent = paneName(spec);
    this.title.title = paneLabel(spec);
    this.kind.setAttribute("aria-label", `Tokenizer of pane ${paneName(spec)}`);
    this.remove.setAttribute("aria-label", `Remove the ${paneName(spec)} pane`);
    this.display.setAttribute("aria-label", `Tokens of ${paneName(spec)}`);
    this.ids.setAttribute("aria-label", `Token ids of ${paneName(spec)}`);
    this.window = null;
    this.progress.hidden = true;
    if (!silent) this.hooks.onSpec(this, spec);
  }

  /** What the pane shows must be resolved again (its spelling changed, or a new training run). */
  dropHandle() {
    this.handle = null;
    this.resets += 1;
  }

  kindChanged() {
    const kind = this.kind.value;
    if (kind === "trainedAt") { this.kRow.hidden = false; this.altRow.hidden = true; this.specFromControls(); return; }
    if (kind === "alt") { this.altRow.hidden = false; this.kRow.hidden = true; this.altSize.focus(); return; }  // trains on its button
    this.setSpec(kind);
  }

  specFromControls() {
    if (this.kind.value === "trainedAt") {
      const k = Math.max(0, Math.min(Number(this.k.max || 1e7), Math.floor(Number(this.k.value) || 0)));
      this.setSpec(`trained@${k}`);
    } else if (this.kind.value === "alt") {
      this.setSpec(altSpec(Math.max(257, Math.floor(Number(this.altSize.value) || 500)), this.altPre.value, this.altTie.value));
    }
  }

  /** The trained tokenizer's size bounds the k control. */
  setMergeLimit(total) {
    const max = String(Math.max(0, total ?? 0));
    this.k.max = max;
    this.kRange.max = max;
  }

  // aria-busy marks what is being redrawn, not the status line, which must be read out meanwhile.
  busy(text) {
    this.display.setAttribute("aria-busy", "true");
    this.status.textContent = text;
  }

  /** The worker trains this pane's second configuration: {done, total} merges, `elapsed` s since it began. */
  trainingProgress({ done, total, elapsed }) {
    if (this.progress.hidden) {
      this.busy(`Training ${paneName(this.spec)} on the Train view's text… The worker answers other requests once it is done.`);
      this.progressBar.setAttribute("aria-label", `Training ${paneName(this.spec)}`);
      this.progress.hidden = false;
    }
    this.progressBar.max = Math.max(1, total);
    this.progressBar.value = done;
    this.progressBar.setAttribute("aria-valuetext", `${fmt(done)} of ${fmt(total)} merges`);
    this.progressText.textContent = `${fmt(done)} / ${fmt(total)} merges · ${Number(elapsed || 0).toFixed(1)} s`;
  }

  /** The pane's tokenizer is resolved (or failed, or the pane changed): no training runs for it any more. */
  trainingDone() {
    this.progress.hidden = true;
  }

  /** A pane that cannot show anything (no trained tokenizer, raise with a special token...). */
  showError(message, result = null) {
    this.display.removeAttribute("aria-busy");
    this.result = result;
    this.status.textContent = message;
    this.status.classList.add("error");
    this.counts.replaceChildren();
    if (!result) this.policies.replaceChildren();
    this.drawn = null;
    this.pager.hidden = true;
    this.display.render?.({ tokens: [], ids: [], groups: [], start: 0, stop: 0, total: 0 }, { whitespace: true });
    this.node.dataset.tokens = "";
  }

  /** Draw the worker's result for this pane; `ws` shows whitespace as ␣ ⏎ ⇥. */
  render(result, { ws, policy }) {
    this.result = result;
    this.display.removeAttribute("aria-busy");
    this.status.classList.remove("error");
    this.drawPolicies(result.policies, policy);
    if (result.error) { this.showError(result.error, result); this.drawPolicies(result.policies, policy); return; }
    const c = result.counts;
    this.node.dataset.tokens = String(result.total);
    const unlike = "with boundaries unlike the pane beside it (underlined dashed)";
    this.status.textContent = result.neighbour === null || result.neighbour === undefined ? ""
      : result.n_differs === null ? `${count(result.n_differs_window, "token")} of those drawn ${unlike}.`
        : `${count(result.n_differs, "token")} ${unlike}.`;
    const item = (label, value, key) => el("div", { dataset: { count: key } }, el("dt", { text: label }), el("dd", { text: value }));
    this.counts.replaceChildren(
      item("tokens", fmt(c.tokens), "tokens"), item("characters", fmt(c.characters), "characters"), item("bytes", fmt(c.bytes), "bytes"),
      item("bytes / token", ratio(c.bytes_per_token), "bytes_per_token"), item("characters / token", ratio(c.chars_per_token), "chars_per_token"),
      item("tokens / word", ratio(c.tokens_per_word), "tokens_per_word"));
    this.drawPager(result);
    // Typing at the end of a long text leaves the drawn window as it was: then the DOM stays too.
    const drawn = JSON.stringify([ws, result.start, result.tokens, result.groups]);
    if (drawn === this.drawn) return;
    this.drawn = drawn;
    this.display.render(result, { whitespace: ws });
    // Boundaries unlike the neighbouring pane (Python marked the tokens).
    result.tokens.forEach((token, i) => { if (token.differs) this.display.spanAt(result.start + i)?.classList.add("differs"); });
  }

  drawPolicies(policies, current) {
    if (!policies) { this.policies.replaceChildren(); return; }
    const part = (name) => {
      const p = policies[name];
      const value = p.tokens === null ? "error" : fmt(p.tokens);
      return el("span", { className: name === current ? "current" : "", dataset: { policy: name } }, `${name}: `, el("strong", { text: value }));
    };
    this.policies.replaceChildren("Tokens under each policy: ", part("raise"), " · ", part("allow"), " · ", part("text"));
  }

  drawPager(result) {
    const { start, stop, total } = result;
    if (total <= stop - start) { this.pager.hidden = true; return; }
    this.pager.hidden = false;
    const move = (from) => { this.window = [Math.max(0, from), Math.max(0, from) + WINDOW]; this.hooks.onWindow(this); };
    this.pager.replaceChildren(
      el("button", { type: "button", className: "secondary", text: "‹ Earlier tokens", disabled: start === 0,
        onclick: () => move(start - WINDOW) }),
      el("span", { className: "meta", text: `tokens ${fmt(start + 1)}–${fmt(stop)} of ${fmt(total)} (only these are drawn)` }),
      el("button", { type: "button", className: "secondary", text: "Later tokens ›", disabled: stop >= total,
        onclick: () => move(stop) }));
  }

  /** The focused token's detail: id, bytes in hex, merge parents and which merge made it (numbered from 1). */
  showDetail(detail, { provenance = null } = {}) {
    if (!detail) { this.detail.replaceChildren(); return; }
    const rows = [
      ["id", fmt(detail.id)], ["bytes (hex)", detail.hex], ["token", detail.label],
      ["merge", detail.rank === null ? (detail.special ? "special token (no merge)" : "a single byte (no merge)") : fmt(detail.rank + 1)],  // merge 1 is rank 0, as everywhere
    ];
    const parents = detail.parents
      ? el("p", {}, "made by merging ", el("code", { text: detail.parents[0].label }), ` (id ${fmt(detail.parents[0].id)}) + `,
        el("code", { text: detail.parents[1].label }), ` (id ${fmt(detail.parents[1].id)})`)
      : null;
    // Through append(): it skips the parts a token lacks (replaceChildren would write "null").
    this.detail.replaceChildren();
    append(this.detail, [el("h4", { text: `Token ${fmt(detail.id)}` }),
      el("dl", { className: "detail-list" }, rows.map(([k, v]) => el("div", {}, el("dt", { text: k }), el("dd", { text: v })))), parents,
      provenance && detail.parents ? el("button", { type: "button", className: "secondary", text: "Where it came from…", onclick: provenance }) : null]);
  }
}

export { WINDOW };
