// <bpe-vocab-view>: every entry of a tokenizer's vocabulary, a page at a time,
// and searches by text, by bytes in hex, or by id. Python pages and searches
// (bpelab.vocab_browse, worker request "vocab"); this draws what it returns.
//
// State (vocab-state.js, the one mapping to params, links and lesson files): tok (gpt2 | cl100k |
// o200k | trained | an imported handle), kind (text | hex | id), q, page (1-based), and the recipe
// of the trained tokenizer when tok is "trained".
import { store } from "../../store.js";
import { el, fmt, show, hide, bdi } from "../../dom.js";
import { partsNode } from "../../components/token-display.js";
import { showProvenance } from "../../components/provenance.js";
import { REFERENCES, tokenizerOptions, useTokenizer, loadingNote } from "../../components/tokenizer-choice.js";
import { samplesNow } from "../../samples.js";
import * as mapping from "./vocab-state.js";
import { stateShown } from "../../state-hold.js";

const PER_PAGE = 100;
const KINDS = { text: "Text", hex: "Bytes (hex)", id: "Id" };
const PLACEHOLDERS = { text: "e.g.  the  or 東京", hex: "e.g. E1 BA or 20 74 68", id: "e.g. 1234" };
let serial = 0;

class VocabView extends HTMLElement {
  connectedCallback() {
    if (this._built) return;
    this._built = true;
    const n = ++serial;
    const id = (name) => `voc${n}-${name}`;
    this.s = { tok: "", kind: "text", query: "", page: 0, asked: 0, reply: null };
    const ui = (this.ui = {
      tokenizer: el("select", { id: id("tok") }),
      tokInfo: el("p", { className: "hint" }),
      kind: el("select", { id: id("kind") }, ...Object.entries(KINDS).map(([value, label]) => el("option", { value, text: label }))),
      query: el("input", { type: "search", id: id("q"), spellcheck: "false", autocomplete: "off", placeholder: PLACEHOLDERS.text }),
      search: el("button", { type: "submit", className: "primary", text: "Search" }),
      all: el("button", { type: "button", className: "secondary", text: "List all" }),
      summary: el("p", { className: "meta", role: "status", "aria-live": "polite" }),
      error: el("div", { className: "alert error", role: "alert", hidden: true }),
      body: el("tbody"),
      prev: el("button", { type: "button", className: "secondary", text: "‹ Previous", "aria-label": "Previous page of entries" }),
      next: el("button", { type: "button", className: "secondary", text: "Next ›", "aria-label": "Next page of entries" }),
      range: el("span", { className: "meta" }),
      jump: el("input", { type: "number", id: id("jump"), min: "1", step: "1", inputmode: "numeric" }),
    });
    const form = el("form", { className: "vocab-search", role: "search", "aria-label": "Search the vocabulary" },
      el("div", {}, el("label", { for: id("kind"), className: "block-label", text: "Search by" }), ui.kind),
      el("div", { className: "grow" }, el("label", { for: id("q"), className: "block-label", text: "Find" }), ui.query),
      el("div", { className: "row" }, ui.search, ui.all));
    this.append(el("section", { className: "panel vocab-panel", "aria-labelledby": id("h") },
      el("h2", { id: id("h"), text: "Vocabulary" }),
      el("p", { className: "hint", text: "Every entry of a tokenizer, in id order. Search by text (entries that contain it), by bytes in hex (to find pieces of characters), or by id." }),
      el("div", {}, el("label", { for: id("tok"), className: "block-label", text: "Tokenizer" }), ui.tokenizer, ui.tokInfo),
      form, ui.error, ui.summary,
      el("div", { className: "row wrap pager" }, ui.prev, ui.range, ui.next,
        el("label", { for: id("jump"), text: "Go to page" }), ui.jump),
      (ui.tableWrap = el("div", { className: "table-wrap", "aria-busy": "false" }, el("table", { className: "vocab-table" },
        el("caption", { className: "sr-only", text: "Vocabulary entries" }),
        el("thead", {}, el("tr", {}, ...["Id", "Token", "Bytes (hex)", "Length", "Made from"].map((h) => el("th", { scope: "col", text: h })))),
        ui.body))),
      el("p", { className: "hint legend", text: "␣ is a space, ⏎ a newline, ⇥ a tab; ⟨E1⟩ is a byte of a character the token does not complete. “Made from” is the pair of ids its merge joined (tokenizers with a merge list)." })));
    form.addEventListener("submit", (event) => { event.preventDefault(); this.readForm(); this.s.page = 0; this.update(); this.changed(); });
    ui.all.addEventListener("click", () => { ui.query.value = ""; this.s.query = ""; this.s.page = 0; this.update(); this.changed(); });
    ui.kind.addEventListener("change", () => { ui.query.placeholder = PLACEHOLDERS[ui.kind.value]; });
    ui.tokenizer.addEventListener("change", () => { this.s.tok = ui.tokenizer.value; this.s.page = 0; this.update(); this.changed(); });
    ui.prev.addEventListener("click", () => this.goPage(this.s.page - 1));
    ui.next.addEventListener("click", () => this.goPage(this.s.page + 1));
    ui.jump.addEventListener("change", () => this.goPage(Number(ui.jump.value) - 1));
    const refresh = () => this.fillTokenizers();
    store.addEventListener("tokenizers", refresh);
    store.addEventListener("trained", ({ detail }) => { this.s.training = store.recipeOf(detail.handle); refresh(); if (this.s.tok === "trained") { this.s.page = 0; this.update(); } });
    store.addEventListener("ready", () => this.update());
    this.fillTokenizers();
  }

  /** The state on show (vocab-state.js): a plain value, the same for links and lesson files. */
  get state() {
    const { tok, kind, query, page } = this.s;
    const training = tok === "trained" ? structuredClone(this.s.training ?? store.recipeOf(store.trained)) : null;
    return { tok, kind, q: query, page: page + 1, training };
  }

  get params() {
    return mapping.toParams(this.state, { samples: samplesNow() || [] }).params;
  }

  async applyParams(params = {}) {
    const { state, problems } = mapping.fromParams(params, { samples: samplesNow() || [] });
    if (problems.length) show(this.ui.error, problems.join(" "), "error");
    return this.setState(state);
  }

  async setState(state) {
    if (state.tok) this.s.tok = state.tok;
    this.s.kind = state.kind;
    this.s.query = state.q;
    this.s.page = state.page - 1;
    this.s.training = state.training ? structuredClone(state.training) : null;
    this.ui.kind.value = this.s.kind;
    this.ui.query.value = this.s.query;
    this.ui.query.placeholder = PLACEHOLDERS[this.s.kind];
    stateShown(this);
    this.fillTokenizers();
    this.changed();
    await this.update();
  }

  async command(action) {
    throw new Error(`the vocabulary view does not support ${JSON.stringify(action)}`);
  }

  changed() {
    this.dispatchEvent(new CustomEvent("bpe-params", { bubbles: true }));
  }

  readForm() {
    this.s.kind = this.ui.kind.value;
    this.s.query = this.ui.query.value;
  }

  fillTokenizers() {
    const { options, value } = tokenizerOptions(this.s.tok);
    this.ui.tokenizer.replaceChildren(...options);
    this.ui.tokenizer.value = value;
    if (!this.s.tok) this.s.tok = value;
  }

  async goPage(page) {
    await this.pending;  // the pages of the search or list asked last, not of the one before it
    const total = this.s.reply?.total ?? 0;
    const last = Math.max(0, Math.ceil(total / PER_PAGE) - 1);
    if (!Number.isInteger(page)) return;
    this.s.page = Math.min(Math.max(0, page), last);
    this.update();
    this.changed();
  }

  update() {
    this.pending = this.ask();
    return this.pending;
  }

  /** While a request runs the table says so; a search typed before the vocabulary is loaded runs once it is. */
  loading(on) {
    const ui = this.ui;
    ui.tableWrap.setAttribute("aria-busy", on ? "true" : "false");
    if (!on) return;
    const loadingTable = Boolean(loadingNote(this.s.tok)) || store.phase !== "ready";
    if (!this.s.reply || loadingTable) {
      // A quick page turn keeps its summary (no flicker); a table still on its way says so.
      ui.summary.textContent = this.s.query ? "Loading… the search runs as soon as the vocabulary is here." : "Loading…";
      ui.body.replaceChildren(el("tr", {}, el("td", { colspan: "5", text: "Loading…" })));
      ui.range.textContent = "";
    }
  }

  async ask() {
    const ui = this.ui;
    const asked = ++this.s.asked;
    const { kind, query, page } = this.s;
    this.loading(true);
    let reply;
    try {
      if (this.s.tok === "trained" && this.s.training) await store.trainedFrom(this.s.training, { say: (line) => { ui.tokInfo.textContent = line; } });
      const handle = await useTokenizer(this.s.tok, ui.tokInfo, this.s.training);
      this.s.handle = handle;
      reply = await store.request("vocab", { handle, kind: query ? kind : "all", query, start: page * PER_PAGE, count: PER_PAGE });
    } catch (error) {
      if (asked !== this.s.asked) return;
      if (error.type === "Cancelled") { setTimeout(() => this.update(), 0); return; }
      this.loading(false);
      show(ui.error, error.type === "VocabError" ? `Nothing to show: ${error.message}.` : `Could not read the vocabulary: ${error.message}`, "error");
      ui.body.replaceChildren();
      ui.summary.textContent = "";
      return;
    }
    if (asked !== this.s.asked) return;
    this.loading(false);
    hide(ui.error);
    this.s.reply = reply;
    this.draw(reply);
  }

  draw(reply) {
    const ui = this.ui;
    const pages = Math.max(1, Math.ceil(reply.total / PER_PAGE));
    const name = REFERENCES[this.s.tok]?.label || ui.tokenizer.selectedOptions[0]?.textContent || "";
    // Ids may have gaps (cl100k: 16 unused between its ranks and its special tokens): say so, or the two numbers clash.
    const unused = reply.unused ? `, ${fmt(reply.unused)} of them unused` : "";
    const what = reply.kind === "all" ? [`${fmt(reply.size)} entries in ${name}: ids ${fmt(reply.first_id)}–${fmt(reply.last_id)}${unused}`]
      : reply.kind === "id" ? [`Id ${reply.query.trim()} in ${name}`]
      : [`${fmt(reply.total)} of ${fmt(reply.size)} entries contain `,
        reply.kind === "hex" ? `the bytes ${reply.query.trim().toUpperCase()}` : bdi(`“${reply.query}”`)];
    ui.summary.replaceChildren(...what, reply.total ? "" : ": none.");
    const first = reply.start + 1;
    const last = reply.start + reply.entries.length;
    ui.range.textContent = reply.total ? `${fmt(first)}–${fmt(last)} of ${fmt(reply.total)} · page ${this.s.page + 1} of ${fmt(pages)}` : "";
    ui.prev.disabled = this.s.page === 0;
    ui.next.disabled = this.s.page >= pages - 1;
    ui.jump.max = String(pages);
    ui.body.replaceChildren(...reply.entries.map((entry) => el("tr", { dataset: { id: String(entry.id) } },
      el("td", { text: String(entry.id) }),
      el("td", {}, el("button", { type: "button", className: "tok-button", title: "Where this token came from",
        onclick: () => showProvenance(store, this.s.handle, entry.id) }, partsNode(entry.parts, { special: entry.special })),
        entry.special ? el("span", { className: "meta", text: " special" }) : null),
      el("td", { className: "hex", text: entry.hex }),
      el("td", { text: String(entry.bytes) }),
      el("td", { text: entry.pair ? `${entry.pair[0]} + ${entry.pair[1]}` : "—" }))));
    if (!reply.entries.length) ui.body.replaceChildren(el("tr", {}, el("td", { colspan: "5", text: "No entries." })));
    // OpenAI's rank tables carry no merge list: a column of dashes would only be noise.
    this.querySelector(".vocab-table").classList.toggle("no-pairs", !reply.entries.some((entry) => entry.pair));
  }
}

if (!customElements.get("bpe-vocab-view")) customElements.define("bpe-vocab-view", VocabView);
