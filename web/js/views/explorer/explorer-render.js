// Draws one step of the explorer (explore.py step_view) into nodes made once: the pair counts
// now (the table the next merge is chosen from), and the merge that made this step with its
// tie-break, overlaps, changed rows and the pairs it removed and created.
import { el } from "../../dom.js";
import { PairTable, tokenChip, pairNode, tokenText } from "../../components/pair-table.js";

const fmt = (n) => (n === null || n === undefined ? "–" : n.toLocaleString("en-US"));
const RULE_NAMES = { greater: "greater pair", "smaller-id": "smaller ids", "first-seen": "first seen" };

export class StepRender {
  constructor({ onPick, onToken, id = (name) => name }) {
    this.onPick = onPick;
    this.onToken = onToken;
    this.summary = el("p", { className: "explorer-summary" });
    this.stats = el("dl", { className: "explorer-stats" });
    this.statNodes = {};
    for (const [key, label] of [["step", "Step"], ["tokens", "Corpus tokens"], ["bpt", "Bytes per token"]]) {
      this.statNodes[key] = el("dd", { dataset: { stat: key } });
      this.stats.append(el("div", {}, el("dt", {}, label), this.statNodes[key]));
    }

    // The pair counts now.
    this.table = new PairTable("Top pairs now");
    this.nextRule = el("p", { className: "meta next-rule" });
    this.noNext = el("p", { className: "meta" });
    this.nextSection = el("section", { className: "explorer-next", "aria-labelledby": id("explorer-next-title") },
      el("h3", { id: id("explorer-next-title") }, "Pair counts now"), this.table.node, this.nextRule, this.noNext);

    // The merge that made this step.
    this.mergeTitle = el("h3", { id: id("explorer-merge-title") }, "The last merge");
    this.mergeLine = el("p", { className: "merge-line" });
    this.reason = el("p", { className: "merge-reason" });
    this.picks = el("ul", { className: "merge-picks" });
    this.overlap = el("p", { className: "alert warn overlap", hidden: true });
    this.rowsCaption = el("caption");
    this.rowsBody = el("tbody");
    this.rowsTable = el("table", { className: "rows-table" }, this.rowsCaption,
      el("thead", {}, el("tr", {}, el("th", { scope: "col", className: "num" }, "Count"), el("th", { scope: "col" }, "Before"),
        el("th", { scope: "col" }, "After"))), this.rowsBody);
    this.vanished = el("ul", { className: "pair-list" });
    this.appeared = el("ul", { className: "pair-list" });
    this.pairsBox = el("div", { className: "pairs-box" },
      el("div", {}, el("h4", {}, "Pairs that vanished"), this.vanished),
      el("div", {}, el("h4", {}, "Pairs that appeared"), this.appeared));
    this.mergeBody = el("div", {}, this.mergeLine, this.reason, this.picks, this.overlap, this.rowsTable, this.pairsBox);
    this.noMerge = el("p", { className: "meta" }, "Step 0 is the bytes: nothing is merged yet. Step forward to make the first merge.");
    this.mergeSection = el("section", { className: "explorer-merge", "aria-labelledby": id("explorer-merge-title") },
      this.mergeTitle, this.noMerge, this.mergeBody);
  }

  /** Draw step view `v`; predict: hide which pair wins next and offer the table's pairs as guesses. */
  update(v, { predict = false, answered = false, busy = false } = {}) {
    const m = v.merge;
    this.statNodes.step.textContent = `${fmt(v.step)} of ${fmt(v.steps)}`;
    this.statNodes.tokens.textContent = v.has_counts ? fmt(v.tokens) : "not known";
    this.statNodes.bpt.textContent = v.has_counts && v.bytes_per_token ? v.bytes_per_token.toFixed(2) : "–";
    this.summary.textContent = summaryText(v);

    // Pair counts now, and which rule decides the next merge.
    const next = v.next;
    this.table.node.hidden = !next;
    this.nextRule.hidden = !next;
    this.noNext.hidden = !!next;
    if (next) {
      const hide = predict && !answered;
      this.table.setCaption(hide ? `Which pair does merge ${fmt(next.step)} merge? Pick one.`
        : `The most frequent pairs at step ${fmt(v.step)}; merge ${fmt(next.step)} takes the top one`);
      this.table.update(next.rows, { hideWinner: hide, onPick: hide ? this.onPick : null, chosenLabel: "merged next", disabled: busy });
      const d = next.decision;
      this.nextRule.textContent = hide
        ? `Ties are broken by “${RULE_NAMES[d.rule]}”: ${d.rule_text}.`
        : d.reason;
    } else {
      this.noNext.textContent = v.has_counts
        ? "This is the last step: training stopped here."
        : "This tokenizer was not trained here, so there are no pair counts; its merges, provenance and the encode trace are shown.";
    }

    // The merge that made this step.
    this.noMerge.hidden = !!m;
    this.mergeBody.hidden = !m;
    this.mergeTitle.textContent = m ? `Merge ${fmt(m.step)}, which made step ${fmt(m.step)}` : "The last merge";
    if (!m) return;
    const made = el("button", { type: "button", className: "link token-link", onclick: () => this.onToken(m.id) },
      tokenChip(m.token, "tok big"), el("span", { className: "sr-only" }, ", where it came from"));
    this.mergeLine.replaceChildren(pairNode(m), el("span", { "aria-hidden": "true" }, " → "), el("span", { className: "sr-only" }, " make "),
      made, el("span", { className: "meta" }, ` new id ${m.id}${m.count !== undefined ? ` · count ${fmt(m.count)} · merged ${fmt(m.merged)} times` : ""}`));
    this.reason.textContent = m.table ? m.table.decision.reason : "";
    this.reason.hidden = !m.table;
    this.picks.replaceChildren(...picksOf(m));
    this.overlap.hidden = !m.overlap;
    this.overlap.textContent = m.overlap_text || "";
    this.rowsTable.hidden = !m.rows;
    this.pairsBox.hidden = !m.rows;
    if (!m.rows) return;
    const shown = m.rows.length;
    this.rowsCaption.textContent = `Rows (pre-tokens) whose tokens changed: ${fmt(m.rows_changed)}`
      + (m.rows_changed > shown ? `, the ${shown} most frequent shown` : "");
    this.rowsBody.replaceChildren(...m.rows.map((row) => el("tr", {},
      el("td", { className: "num" }, fmt(row.count), excerptNote(row.cut)),
      el("td", {}, sequence(row.before, row.cut)), el("td", {}, sequence(row.after, row.cut)))));
    this.vanished.replaceChildren(...pairItems(m.vanished, "none"));
    this.appeared.replaceChildren(...pairItems(m.appeared, "none"));
  }
}

function summaryText(v) {
  const m = v.merge;
  if (!m) return `Step 0 of ${fmt(v.steps)}: the text as bytes${v.has_counts ? `, ${fmt(v.tokens)} tokens` : ""}.`;
  let text = `Step ${fmt(v.step)} of ${fmt(v.steps)}: merged ${tokenText(m.left)} + ${tokenText(m.right)} into ${tokenText(m.token)} (id ${m.id})`;
  if (m.count !== undefined) text += `, count ${fmt(m.count)}; the corpus is now ${fmt(v.tokens)} tokens, ${v.bytes_per_token.toFixed(2)} bytes per token`;
  return `${text}.`;
}

function picksOf(m) {
  const picks = m.table && m.table.decision.picks;
  if (!picks) return [];
  return Object.entries(picks).map(([rule, pick]) => el("li", { className: pick.differs ? "differs" : "" },
    `${RULE_NAMES[rule]}${rule === m.table.decision.rule ? " (used)" : ""}: `, pairNode(pick),
    pick.differs ? " — a different merge" : " — the same"));
}

// A long row (a whole document under the bytes pre-tokenizer) comes as an excerpt around its first
// change; cut {start, end, bytes} is its byte span, and an ellipsis stands for the rest.
function sequence(tokens, cut) {
  const more = (shown) => (shown ? [el("span", { className: "meta", "aria-hidden": "true" }, "…")] : []);
  return el("span", { className: "seq" }, ...more(cut && cut.start > 0), ...tokens.map((parts) => tokenChip(parts)),
    ...more(cut && cut.end < cut.bytes));
}

function excerptNote(cut) {
  if (!cut) return "";
  return el("span", { className: "meta excerpt-note" },
    ` · bytes ${fmt(cut.start)}–${fmt(cut.end)} of ${fmt(cut.bytes)}`);
}

function pairItems(list, empty) {
  if (!list.length) return [el("li", { className: "meta" }, empty)];
  return list.map((row) => el("li", {}, pairNode(row), el("span", { className: "num" }, ` ${fmt(row.count)}`)));
}
