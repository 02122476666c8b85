// The encode trace: type a word or a sentence; see the pieces the pre-tokenizer's pattern cut
// (and which alternative of the pattern matched each), then each piece's merge steps by rank:
// the candidate pairs with their ranks, the one applied, the sequence after it (seed 003's
// trace of `lowest`). Python builds it (explore.py Explorer.trace, request "explore_trace").
import { el } from "../../dom.js";
import { tokenChip, pairNode } from "../../components/pair-table.js";

export class TraceBox {
  /**
   * request(text, useStep) -> trace; onToken(id) opens provenance; onChange() when the text changes.
   * collapsed: the box starts closed behind its heading (the embed: a lesson about merges keeps its
   * widget short; a `trace` parameter opens it).
   */
  constructor({ request, onToken, onChange, collapsed = false, id = (name) => name }) {
    this.request = request;
    this.onToken = onToken;
    this.onChange = onChange;
    this.timer = 0;
    this.serial = 0;
    this.input = el("input", { type: "text", id: id("explorer-trace-text"), value: "lowest", spellcheck: "false", autocomplete: "off" });
    this.atStep = el("input", { type: "checkbox", id: id("explorer-trace-step") });
    this.output = el("div", { className: "trace-output", "aria-live": "polite" });
    this.input.addEventListener("input", () => this.soon());
    this.atStep.addEventListener("change", () => this.run());
    const title = el("h3", { id: id("explorer-trace-title") }, "Encode trace");
    const body = [
      el("label", { className: "block-label", for: id("explorer-trace-text") }, "Text to encode, step by step"),
      this.input,
      el("label", { className: "radio" }, this.atStep, " Use only the merges up to the slider's step"),
      this.output,
    ];
    this.details = collapsed
      ? el("details", { className: "trace-details" }, el("summary", {}, title, el("span", { className: "meta" }, " how a text is encoded, merge by merge")), ...body)
      : null;
    this.node = el("section", { className: "explorer-trace panel", "aria-labelledby": id("explorer-trace-title") },
      ...(this.details ? [this.details] : [title, ...body]));
  }

  /** Show the box (a collapsed one opens). */
  expand() {
    if (this.details) this.details.open = true;
  }

  get text() {
    return this.input.value;
  }

  set text(value) {
    this.input.value = value;
  }

  soon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.run(); this.onChange(); }, 250);
  }

  async run() {
    const serial = ++this.serial;
    if (!this.text) {
      this.output.replaceChildren(el("p", { className: "meta" }, "Type a word or a sentence."));
      return;
    }
    try {
      const trace = await this.request(this.text, this.atStep.checked);
      if (serial === this.serial) this.draw(trace);
    } catch (error) {
      if (serial === this.serial) this.output.replaceChildren(el("p", { className: "alert error" }, error.message || String(error)));
    }
  }

  draw(trace) {
    const alternatives = trace.alternatives;
    const head = trace.pattern
      ? el("p", { className: "meta" }, `The ${trace.pretokenizer} pattern cut the text into ${trace.pieces.length} piece${trace.pieces.length === 1 ? "" : "s"}`
        + `${trace.truncated ? " (the first ones shown)" : ""}; its alternatives are tried left to right and the first that matches wins. `
        + `Merges used: ${trace.merges.toLocaleString("en-US")}.`)
      : el("p", { className: "meta" }, "This pre-tokenizer does not split the text: it is one piece.");
    const pieces = trace.pieces.map((piece, i) => this.pieceNode(piece, i, alternatives));
    const final = trace.pieces.flatMap((piece) => piece.ids.map((id, j) => {
      const parts = piece.special_id !== undefined ? [["t", piece.piece]] : piece.tokens[j];
      // The accessible name is the visible text (chip, id) and a hidden hint: axe's label-content-name-mismatch.
      return el("button", { type: "button", className: "token-button", onclick: () => this.onToken(id) },
        tokenChip(parts), el("span", { className: "tok-id" }, ` ${id}`), el("span", { className: "sr-only" }, ", where it came from"));
    }));
    this.output.replaceChildren(head, el("ol", { className: "trace-pieces" }, pieces),
      el("div", { className: "trace-result" }, el("h4", {}, "Result"), el("div", { className: "token-row" }, final)));
  }

  pieceNode(piece, i, alternatives) {
    const alt = piece.alternative !== null && piece.alternative !== undefined ? alternatives[piece.alternative] : null;
    const cut = alt
      ? el("p", { className: "trace-cut" }, `cut by alternative ${alt.index + 1}: `, el("code", {}, alt.source), alt.note ? ` — ${alt.note}` : "")
      : el("p", { className: "trace-cut" }, piece.special_id !== undefined ? `a special token: id ${piece.special_id}, never merged` : "the whole text");
    const steps = (piece.steps || []).map((step, n) => {
      const applied = step.applied;
      const candidates = step.candidates.length
        ? step.candidates.map((c) => el("span", { className: `cand${applied && c.position === applied.position ? " applied" : ""}` },
          pairNode(c), el("span", { className: "rank" }, `merge ${c.rank + 1}`)))
        : [el("span", { className: "meta" }, "no learned pair")];
      return el("li", {}, el("span", { className: "seq" }, step.parts.map((parts) => tokenChip(parts))),
        el("span", { className: "cands" }, " candidates: ", candidates),
        el("span", { className: "apply" }, applied ? ` → apply merge ${applied.rank + 1}` : n === 0 ? " → nothing to merge" : " → done"));
    });
    const whole = piece.whole_piece ? el("p", { className: "meta" }, "tiktoken's rule: the piece is itself a token, so it is encoded whole.")
      : piece.steps_note ? el("p", { className: "meta" }, piece.steps_note) : null;
    return el("li", { className: "trace-piece", dataset: { piece: String(i) } },
      el("p", { className: "trace-piece-head" }, tokenChip([["t", piece.piece]], "tok big")), cut,
      steps.length ? el("ol", { className: "trace-steps" }, steps) : null, whole);
  }
}
