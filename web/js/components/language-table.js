// What a tokenizer costs each language: seed 003's Vietnamese table for every
// bundled language (samples/aligned/) or for two pasted texts, with a bar
// chart of the ratios per tokenizer. Python (compare.language_table) computes
// every number; this file only draws them.
//
// <language-table> properties and methods:
//   el.render(table, {names})   table = the worker's language_table result;
//                               names: {tokenizer key: label shown}
//   el.clear(message)
import { el, fmt } from "../dom.js";
import { barChart } from "../chart.js";

const ratio = (value) => (value === null || value === undefined ? "–" : `${value.toFixed(2)}×`);
const perToken = (value) => (value === null || value === undefined ? "–" : value.toFixed(2));

class LanguageTable extends HTMLElement {
  connectedCallback() {
    if (!this._built) {
      this._built = true;
      this.classList.add("language-table");
    }
  }

  clear(message = "") {
    this.replaceChildren(message ? el("p", { className: "meta", text: message }) : "");
  }

  /** Draw the table: a row per language, a column group (tokens, bytes/token, ratio) per tokenizer. */
  render(table, { names = {}, caption = "" } = {}) {
    const tokenizers = [...new Set(table.rows.map((row) => row.tokenizer))];
    const by = new Map(table.rows.map((row) => [`${row.tokenizer}\u0000${row.code}`, row]));
    const base = table.languages.find((lang) => lang.code === table.base);
    const label = (key) => names[key] || key;

    const head1 = el("tr", {}, el("th", { scope: "col", rowspan: "2", text: "Language" }),
      el("th", { scope: "col", rowspan: "2", className: "num", text: "UTF-8 bytes" }),
      tokenizers.map((key) => el("th", { scope: "colgroup", colspan: "3", className: "group", text: label(key) })));
    const head2 = el("tr", {}, tokenizers.map((key) => [
      el("th", { scope: "col", className: "num", text: "tokens", title: `${label(key)}: tokens` }),
      el("th", { scope: "col", className: "num", text: "bytes/token" }),
      el("th", { scope: "col", className: "num", text: `÷ ${base ? base.name : table.base}` }),
    ]));
    const body = el("tbody", {}, table.languages.map((lang) => el("tr", { dataset: { code: lang.code } },
      el("th", { scope: "row", text: lang.name }),
      el("td", { className: "num", text: fmt(lang.bytes) }),
      tokenizers.map((key) => {
        const row = by.get(`${key}\u0000${lang.code}`);
        return [
          el("td", { className: "num", text: fmt(row.tokens) }),
          el("td", { className: "num", text: perToken(row.bytes_per_token) }),
          el("td", { className: "num ratio", text: ratio(row.ratio) }),
        ];
      }))));
    const tableNode = el("table", { className: "lang-table" },
      el("caption", { text: caption || `Tokens per language, and the ratio to ${base ? base.name : table.base} under the same tokenizer` }),
      el("thead", {}, head1, head2), body);

    // One small bar chart per tokenizer: the ratio of each language to the base.
    const charts = tokenizers.map((key) => {
      const bars = table.languages.map((lang) => ({ label: lang.code, value: by.get(`${key}\u0000${lang.code}`).ratio ?? 0 }));
      const title = `${label(key)}: tokens of each language ÷ tokens of ${base ? base.name : table.base}`;
      const figure = el("figure", { className: "chart lang-chart" },
        el("figcaption", { text: label(key) }),
        barChart({ bars, xLabel: "language", yLabel: `tokens ÷ ${base ? base.code : table.base}`, title, width: 360, height: 200 }));
      return figure;
    });
    const codes = el("p", { className: "hint" },
      "Language codes: ", table.languages.map((lang, i) => [i ? ", " : "", el("code", { text: lang.code }), ` ${lang.name}`]), ".");
    // A narrow page (a notebook cell) scrolls the table sideways: the keyboard must reach that scroll too.
    const wrap = el("div", { className: "table-wrap", tabindex: "0", role: "region", "aria-label": "Tokens by language (scrolls sideways)" }, tableNode);
    // Said in words too, whenever the table is wider than its pane (a phone, a narrow widget, a notebook cell).
    const note = el("p", { className: "hint scroll-note", hidden: true },
      "The table is wider than this pane: scroll it sideways (or focus it and use the arrow keys) to see every tokenizer.");
    const fits = () => { note.hidden = wrap.scrollWidth <= wrap.clientWidth + 1; };
    this._observer?.disconnect();
    if (typeof ResizeObserver === "function") {
      this._observer = new ResizeObserver(fits);
      this._observer.observe(wrap);
    }
    this.replaceChildren(note, wrap, el("div", { className: "lang-charts" }, charts), codes);
    fits();
  }
}

if (!customElements.get("language-table")) customElements.define("language-table", LanguageTable);
