// Token chips and the explorer's pair table. Python builds every row (py/bpelab/explore.py);
// this file only draws, and redraws in place: rows are made once and then updated, so
// stepping through training changes text and classes, never the table's structure.
//
//   tokenChip(parts)            a <span class="tok"> for a token's parts [["t", text] | ["b", "E1"]]
//   setToken(node, parts)       redraws a chip in place
//   tokenText(parts)            the same as one plain string (␣ for a space), for labels
//   new PairTable(caption)      .node (a <table>), .update(rows, {hideWinner, onPick, pickLabel})
import { el } from "../dom.js";

const REDUCED = window.matchMedia("(prefers-reduced-motion: reduce)");
const VISIBLE = { " ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍" };

/** A token's parts as plain text with visible whitespace: [["t", " new"]] -> "␣new". */
export function tokenText(parts) {
  return parts.map(([kind, value]) => (kind === "t" ? value.replace(/[ \n\t\r]/g, (c) => VISIBLE[c]) : `<${value}>`)).join("");
}

/** Fill `node` with the parts of one token: text runs (whitespace made visible) and byte chips. */
export function setToken(node, parts) {
  const children = [];
  for (const [kind, value] of parts) {
    if (kind === "b") {
      children.push(el("span", { className: "tok-byte", title: `byte 0x${value}` }, value));
      continue;
    }
    // Whitespace runs get their own span so CSS can mute them; the rest is plain text.
    for (const piece of value.split(/([ \n\t\r]+)/)) {
      if (!piece) continue;
      if (/^[ \n\t\r]+$/.test(piece)) children.push(el("span", { className: "tok-ws" }, piece.replace(/./gs, (c) => VISIBLE[c])));
      else children.push(piece);
    }
  }
  node.replaceChildren(...children.map((c) => (typeof c === "string" ? document.createTextNode(c) : c)));
  return node;
}

export function tokenChip(parts, className = "tok") {
  return setToken(el("span", { className }), parts);
}

/** "(a, b)" with both tokens as chips. */
export function pairNode(row) {
  return el("span", { className: "pair" }, tokenChip(row.left), el("span", { className: "pair-plus", "aria-hidden": "true" }, "+"),
    el("span", { className: "sr-only" }, " and "), tokenChip(row.right));
}

/** The top pairs of a step: rank, pair, count, tie and next-merge marks; optional pick buttons (predict mode). */
export class PairTable {
  constructor(caption) {
    this.caption = el("caption", {}, caption);
    this.body = el("tbody");
    this.pickHead = el("th", { scope: "col" }, "Your guess");
    this.node = el("table", { className: "pair-table" }, this.caption,
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "#"), el("th", { scope: "col" }, "Pair"), el("th", { scope: "col", className: "num" }, "Count"),
        el("th", { scope: "col" }, "Note"), this.pickHead)),
      this.body);
    this.rows = [];  // [{tr, rank, pair, count, note, pick, button}]
    this.onPick = null;
  }

  setCaption(text) {
    this.caption.textContent = text;
  }

  _row() {
    const cells = {
      rank: el("td", { className: "num" }), pair: el("td"), count: el("td", { className: "num" }), note: el("td"),
      pick: el("td"),
    };
    cells.button = el("button", { type: "button", className: "secondary pick" }, "This one");
    cells.button.addEventListener("click", () => { if (this.onPick) this.onPick(cells.data); });
    cells.pick.append(cells.button);
    cells.pairNode = el("span", { className: "pair" });
    cells.pair.append(cells.pairNode);
    cells.tr = el("tr", {}, cells.rank, cells.pair, cells.count, cells.note, cells.pick);
    this.body.append(cells.tr);
    return cells;
  }

  /** Draw `rows` (explore.py table rows); hideWinner hides which pair is chosen (predict mode). */
  update(rows, { hideWinner = false, onPick = null, chosenLabel = "merged", disabled = false } = {}) {
    this.onPick = onPick;
    this.pickHead.hidden = !onPick;
    while (this.rows.length < rows.length) this.rows.push(this._row());
    this.rows.forEach((cells, i) => {
      const row = rows[i];
      cells.tr.hidden = !row;
      if (!row) return;
      cells.data = row;
      cells.rank.textContent = String(i + 1);
      const key = `${row.pair[0]},${row.pair[1]}`;
      if (cells.key !== key) {  // a new pair in this row: redraw its chips (and flash it, if motion is fine)
        cells.key = key;
        cells.pairNode.replaceChildren(...pairNode(row).childNodes);
        if (!REDUCED.matches) cells.tr.animate([{ opacity: 0.35 }, { opacity: 1 }], { duration: 450, easing: "ease-out" });
      }
      cells.count.textContent = row.count.toLocaleString("en-US");
      const chosen = row.chosen && !hideWinner;
      cells.tr.classList.toggle("tied", !!row.tied && rows.filter((r) => r.tied).length > 1);
      cells.tr.classList.toggle("chosen", chosen);
      const notes = [];
      if (chosen) notes.push(chosenLabel);
      if (cells.tr.classList.contains("tied")) notes.push("tie");
      cells.note.textContent = notes.join(", ");
      cells.pick.hidden = !onPick;
      cells.button.disabled = disabled;
      cells.button.setAttribute("aria-label", `This one: ${tokenText(row.left)} + ${tokenText(row.right)}, count ${row.count}`);
    });
  }
}
