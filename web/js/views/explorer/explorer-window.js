// The explorer's window on the training text: one span per character, built when the window
// moves, held in one span per token (span.s), which each step regroups, so a token is one box
// (its shade, its outline when the keyboard is on it) and tokens fuse in place. Python encodes only the window's pre-tokens at step k and sends token groups
// [first, end, [ids]] (tokens that split a character share a group). Trained on word counts,
// the window is the pieces, one a line, each followed by its count ([first, end, count]).
import { el } from "../../dom.js";

const SHOWN = { " ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍" };

export class TextWindow {
  /** onSelect(id) opens a token's provenance; onMove(start) asks for another part of the text. */
  constructor({ onSelect, onMove, size, id = (name) => name }) {
    this.onSelect = onSelect;
    this.onMove = onMove;
    this.size = size;
    this.chars = [];       // span per code point of the window text
    this.text = null;
    this.start = -1;
    this.groups = [];
    this.groupOf = null;   // char index -> group index
    this.cursor = 0;       // the group the keyboard is on
    this.info = el("p", { className: "meta window-info" });
    this.earlier = el("button", { type: "button", className: "secondary", onclick: () => this.onMove(Math.max(0, this.start - this.size)) }, "Earlier text");
    this.later = el("button", { type: "button", className: "secondary", onclick: () => this.onMove(this.end) }, "Later text");
    this.body = el("div", {
      className: "text-window", tabindex: "0", role: "group",
      "aria-label": "The training text at this step; arrow keys move between tokens, Enter shows where one came from",
      onclick: (event) => this.click(event), onkeydown: (event) => this.key(event),
      onfocus: () => { this.markCursor(); this.said.textContent = this.describe(this.cursor); },
      onblur: () => this.markCursor(),
    });
    this.said = el("p", { className: "meta window-said", "aria-live": "polite" });
    this.node = el("section", { className: "explorer-window", "aria-labelledby": id("explorer-window-title") },
      el("h3", { id: id("explorer-window-title") }, "The text at this step"),
      el("div", { className: "row wrap" }, this.info, this.earlier, this.later),
      this.body, this.said);
  }

  /** Draw the window `win` (explore_step's window); rebuilds characters only when the text moved.
   *  The tokens `fused` (the id the step's merge made) are marked, and pulse once if motion is fine. */
  update(win, fused = null) {
    if (win.start !== this.start || win.text !== this.text) this.build(win);
    this.groups = win.groups;
    const n = this.chars.length;
    const groupOf = new Int32Array(n);
    const nodes = [];
    this.tokens = [];
    let c = 0;
    const loose = (upTo) => {  // characters outside every group (none in a well-formed window) stay as they are
      for (; c < upTo && c < n; c++) nodes.push(this.chars[c], ...this.after[c]);
    };
    win.groups.forEach(([first, end, ids], i) => {
      loose(first);
      const mark = fused !== null && ids.includes(fused) ? " fused" : "";
      const token = document.createElement("span");
      token.className = `s ${i % 2 ? "odd" : "even"}${mark}`;
      let tail = [];  // what follows the token's last character (a line break, a count) goes after its box
      for (c = first; c < end && c < n; c++) {
        groupOf[c] = i;
        token.append(this.chars[c]);
        if (c === end - 1 || c === n - 1) tail = this.after[c];
        else token.append(...this.after[c]);
      }
      this.tokens.push(token);
      nodes.push(token, ...tail);
    });
    loose(n);
    this.body.replaceChildren(...nodes);
    this.groupOf = groupOf;
    this.cursor = Math.min(this.cursor, Math.max(0, win.groups.length - 1));
    this.markCursor();
    this.info.textContent = `Characters ${(win.start + 1).toLocaleString("en-US")} to ${win.end.toLocaleString("en-US")} of `
      + `${win.length.toLocaleString("en-US")}: ${win.tokens.toLocaleString("en-US")} tokens at step ${win.step}.`;
  }

  build(win) {
    this.text = win.text;
    this.start = win.start;
    this.end = win.end;
    this.earlier.disabled = win.start === 0;
    this.later.disabled = win.end >= win.length;
    const chars = [];
    const after = [];  // per character, the nodes drawn after it (a line break, a piece's count)
    const counts = new Map((win.counts || []).map(([, end, count]) => [end, count]));  // piece end -> its count
    for (const ch of win.text) {  // code points, as Python counts them
      const span = document.createElement("span");
      span.dataset.i = String(chars.length);
      if (SHOWN[ch]) {
        span.textContent = SHOWN[ch];
        span.dataset.ws = "";  // an attribute, not a class: each step rewrites the classes
      } else {
        span.textContent = ch;
      }
      chars.push(span);
      const extra = [];
      if (ch === "\n") extra.push(document.createElement("br"));
      const count = counts.get(chars.length);
      if (count !== undefined) {
        extra.push(el("span", { className: "piece-count" }, ` × ${count.toLocaleString("en-US")}`), document.createElement("br"));
      }
      after.push(extra);
    }
    this.chars = chars;
    this.after = after;
    this.body.replaceChildren(...chars.flatMap((span, i) => [span, ...after[i]]));
    this.cursor = 0;
  }

  idsOf(group) {
    return this.groups[group] ? this.groups[group][2] : [];
  }

  describe(group) {
    const g = this.groups[group];
    if (!g) return "";
    const text = [...this.text].slice(g[0], g[1]).join("").replace(/[ \n\t\r]/g, (c) => SHOWN[c]);
    return `Token ${group + 1} of ${this.groups.length}: ${text} (id ${g[2].join(" + ")})`;
  }

  click(event) {
    const span = event.target.closest("span[data-i]");
    if (!span || !this.groupOf) return;
    this.cursor = this.groupOf[Number(span.dataset.i)];
    this.markCursor();
    const ids = this.idsOf(this.cursor);
    if (ids.length) this.onSelect(ids[0]);
  }

  key(event) {
    if (!this.groups.length) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 10, ArrowUp: -10 };
    if (event.key in moves) {
      this.cursor = Math.min(this.groups.length - 1, Math.max(0, this.cursor + moves[event.key]));
      this.markCursor();
      this.said.textContent = this.describe(this.cursor);
      event.preventDefault();
      event.stopPropagation();  // the view's own arrow keys step through training
    } else if (event.key === "Enter" || event.key === " ") {
      const ids = this.idsOf(this.cursor);
      if (ids.length) this.onSelect(ids[0]);
      event.preventDefault();
      event.stopPropagation();
    }
  }

  markCursor() {
    this.body.querySelectorAll(".cur").forEach((node) => node.classList.remove("cur"));
    const token = this.tokens && this.tokens[this.cursor];
    if (token && this.body === document.activeElement) token.classList.add("cur");
  }
}
