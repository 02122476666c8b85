// <bpe-encode-view>: an encode box for every tokenizer the worker holds or
// ships: the one trained here, imported ones, and OpenAI's GPT-2, cl100k_base
// and o200k_base. Type or paste text and see, live, the tokens, their ids and
// counts; the special-token policy is a control with its effect beside it.
//
// State (encode-state.js, the one mapping to params, links and lesson files): tok, policy, ws,
// the text (kept exactly, apart from the box: components/exact-text.js) or a sample, and the
// recipe of the trained tokenizer when tok is "trained".
// Events: bpe-params; bpe-state {view: "encode", tokenizer, tokens, ids} (ids left out above 10,000 tokens);
// bpe-problem {message}.
import { store } from "../../store.js";
import { el, fmt, count, show, hide } from "../../dom.js";
import "../../components/token-display.js";
import { showProvenance } from "../../components/provenance.js";
import { REFERENCES, tokenizerOptions, useTokenizer } from "../../components/tokenizer-choice.js";
import { BOX_MAX, ExactText, loneSurrogateProblem } from "../../components/exact-text.js";
import { samplesNow, sampleText } from "../../samples.js";
import * as mapping from "./encode-state.js";
import { stateShown } from "../../state-hold.js";

const POLICIES = {
  raise: "raise: a special token's spelling in the text is an error, as in tiktoken's encode() by default. Only a text that contains a special token's spelling is refused; any other text encodes as usual.",
  allow: "allow: a special token's spelling becomes its one special id, as encode(allowed_special=\"all\") does. Counts drop: the spelling is one token.",
  text: "text: a special token's spelling is ordinary text and splits into ordinary tokens, as encode_ordinary() does. Counts rise: the spelling costs several tokens.",
};
const IDS_IN_STATE_MAX = 10_000;
// Invisible controls that reorder what the box shows around them (bidirectional embeddings,
// overrides, isolates and marks): the tokens are in text order, the textarea is not.
const DIRECTION_CONTROLS = {
  "\u061C": "ARABIC LETTER MARK", "\u200E": "LEFT-TO-RIGHT MARK", "\u200F": "RIGHT-TO-LEFT MARK",
  "\u202A": "LEFT-TO-RIGHT EMBEDDING", "\u202B": "RIGHT-TO-LEFT EMBEDDING", "\u202C": "POP DIRECTIONAL FORMATTING",
  "\u202D": "LEFT-TO-RIGHT OVERRIDE", "\u202E": "RIGHT-TO-LEFT OVERRIDE", "\u2066": "LEFT-TO-RIGHT ISOLATE",
  "\u2067": "RIGHT-TO-LEFT ISOLATE", "\u2068": "FIRST STRONG ISOLATE", "\u2069": "POP DIRECTIONAL ISOLATE",
};
const DIRECTION_SHOWN_MAX = 5;

/** "… U+202E RIGHT-TO-LEFT OVERRIDE after 5 characters; …" for the direction controls in `text` ("" if none). */
function directionNote(text) {
  const found = [];
  let total = 0;
  let before = 0;  // characters before it, counted as code points (as Python counts them)
  for (const ch of text) {
    if (DIRECTION_CONTROLS[ch]) {
      total += 1;
      if (found.length < DIRECTION_SHOWN_MAX) {
        const code = ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
        found.push(`U+${code} ${DIRECTION_CONTROLS[ch]} after ${count(before, "character")}`);
      }
    }
    before += 1;
  }
  if (!total) return "";
  const more = total > found.length ? ` and ${fmt(total - found.length)} more` : "";
  return `The text holds ${total === 1 ? "an invisible direction control" : `${fmt(total)} invisible direction controls`}, `
    + `so the box above may show it reordered (the tokens below are in text order): ${found.join("; ")}${more}.`;
}
// Tokens drawn at once; a longer text pages through windows. A widget draws fewer: 5,000 tokens
// took 300 ms of its main thread to lay out, and a widget must not block its host page's for 200 ms.
const WINDOW = 5000;
const EMBED_WINDOW = 1000;
let serial = 0;

class EncodeView extends HTMLElement {
  connectedCallback() {
    if (this._built) return;
    this._built = true;
    const n = ++serial;
    const id = (name) => `enc${n}-${name}`;
    this.s = { tok: "", policy: "raise", ws: true, start: 0, asked: 0, model: null, sample: "", training: null };
    this.ui = {
      tokenizer: el("select", { id: id("tok") }),
      tokInfo: el("p", { className: "hint", id: id("tok-info") }),
      text: el("textarea", { id: id("text"), rows: "5", spellcheck: "false", autocomplete: "off",
        placeholder: "Type or paste text here: it is tokenized as you type." }),
      direction: el("p", { className: "hint direction-note", id: id("direction"), hidden: true }),
      textNote: el("p", { id: id("text-note") }),
      policyHint: el("p", { className: "hint policy-hint", id: id("policy-hint"), "aria-live": "polite" }),
      ws: el("input", { type: "checkbox", id: id("ws"), checked: true }),
      error: el("div", { className: "alert error", role: "alert", hidden: true }),
      counts: el("dl", { className: "stats counts", "aria-label": "Counts" }),
      pager: el("div", { className: "row wrap pager", hidden: true }),
      busy: el("p", { className: "meta busy-line", role: "status", hidden: true, text: "Encoding…" }),
      display: document.createElement("token-display"),
      ids: document.createElement("token-ids"),
    };
    const ui = this.ui;
    ui.display.id = id("display");
    const radios = Object.keys(POLICIES).map((policy) => el("label", { className: "radio" },
      el("input", { type: "radio", name: id("policy"), value: policy, checked: policy === "raise" ? true : undefined }), ` ${policy}`));
    this.append(el("section", { className: "panel encode-panel", "aria-labelledby": id("h") },
      el("h2", { id: id("h"), text: "Encode" }),
      el("p", { className: "hint", text: "Type or paste text and see how a tokenizer splits it: each coloured box is one token; hover a token to find its id." }),
      el("div", { className: "encode-controls" },
        el("div", {},
          el("label", { for: id("tok"), className: "block-label", text: "Tokenizer" }), ui.tokenizer, ui.tokInfo),
        el("fieldset", { className: "policy", "aria-describedby": id("policy-hint") },
          el("legend", { text: "Special tokens in the text" }), el("div", { className: "row wrap" }, ...radios), ui.policyHint)),
      el("label", { for: id("text"), className: "block-label", text: "Text" }), ui.text, ui.textNote, ui.direction,
      el("div", { className: "row wrap" }, el("label", { className: "radio" }, ui.ws, " Show spaces, newlines and tabs as ␣ ⏎ ⇥")),
      (ui.output = el("div", { className: "encode-output", "aria-busy": "false" },
        ui.busy, ui.error, ui.counts, ui.pager,
        el("h3", { text: "Tokens" }), ui.display,
        el("h3", { text: "Ids" }), ui.ids)),
      el("p", { className: "hint legend", text: "⟨E1⟩ is a byte of a character that a token does not complete; a dashed box holds tokens that together make whole characters, shown first." })));
    ui.display.linkIds(ui.ids);
    // Click or Enter on a token: where it came from (its merge tree).
    ui.display.addEventListener("token-select", (event) => {
      if (this.s.handle) showProvenance(store, this.s.handle, event.detail.id);
    });
    ui.display.render({ start: 0, total: 0, tokens: [], ids: [], groups: [] });
    ui.tokenizer.addEventListener("change", () => { this.s.tok = ui.tokenizer.value; this.s.start = 0; this.update(); this.changed(); });
    this.text = new ExactText(ui.text, ui.textNote, { boxMax: BOX_MAX, onInput: () => { this.s.sample = ""; this.s.start = 0; this.busy(true); this.soon(); this.changed(); } });
    ui.ws.addEventListener("change", () => { this.s.ws = ui.ws.checked; if (this.s.model) this.draw(); this.changed(); });
    for (const radio of this.querySelectorAll(`input[name="${id("policy")}"]`)) {
      radio.addEventListener("change", () => { this.s.policy = radio.value; this.showPolicy(); this.update(); this.changed(); });
    }
    const refresh = () => { this.fillTokenizers(); };
    store.addEventListener("tokenizers", refresh);
    store.addEventListener("trained", ({ detail }) => {
      const recipe = store.recipeOf(detail.handle);
      const own = this.s.training && JSON.stringify(recipe) === JSON.stringify(this.s.training);
      // A notebook's encode view (data-shows="own") keeps its traits' recipe: another widget's run is not its.
      if (!own && this.s.training && this.dataset.shows === "own") { refresh(); return; }
      if (!own) this.s.training = recipe;
      refresh();
      if (this.s.tok === "trained") this.update();
    });
    store.addEventListener("ready", () => this.update());
    this.fillTokenizers();
    this.showPolicy();
  }

  /** The state on show (encode-state.js): a plain value, the same for links, embeds and lesson files. */
  get state() {
    const { tok, policy, ws, sample } = this.s;
    const training = tok === "trained" ? structuredClone(this.s.training ?? store.recipeOf(store.trained)) : null;
    return { tok, policy, ws, text: sample ? "" : this.text.value, sample, training };
  }

  get params() {
    return mapping.toParams(this.state, { samples: samplesNow() || [] }).params;
  }

  /** The whole text, for a share link that leaves it out. */
  get fullText() {
    return this.text.value;
  }

  async applyParams(params = {}) {
    const { state, problems } = mapping.fromParams(params, { samples: samplesNow() || [] });
    if (problems.length) { show(this.ui.error, problems.join(" "), "error"); this.problem(problems.join(" ")); }
    return this.setState(state);
  }

  /** Show a state: tokenizer, policy, whitespace marks and the exact text (or a sample's). */
  async setState(state) {
    const ui = this.ui;
    this.s.tok = state.tok;
    this.s.policy = state.policy;
    this.s.ws = state.ws;
    this.s.training = state.training ? structuredClone(state.training) : null;
    this.s.start = 0;
    ui.ws.checked = state.ws;
    for (const radio of this.querySelectorAll("input[type=radio]")) radio.checked = radio.value === state.policy;
    this.showPolicy();
    this.s.sample = state.sample;
    if (state.sample) this.text.value = await sampleText(state.sample).catch((e) => { this.problem(e.message); return ""; });
    else this.text.value = state.text;
    stateShown(this);
    this.fillTokenizers();
    this.changed();
    await this.update();
  }

  problem(message) {
    this.dispatchEvent(new CustomEvent("bpe-problem", { bubbles: true, detail: { message } }));
  }

  async command(action, args = {}) {
    if (action === "text") {
      if (typeof args.text !== "string") throw new Error(`text needs args.text, a string; got ${JSON.stringify(args.text)}`);
      const bad = loneSurrogateProblem(args.text);
      if (bad) throw new Error(bad);
      this.text.value = args.text;
      this.s.sample = "";
      this.changed();
      return this.update();
    }
    throw new Error(`the encode view does not support ${JSON.stringify(action)}; it supports "text"`);
  }

  changed() {
    this.dispatchEvent(new CustomEvent("bpe-params", { bubbles: true }));
  }

  get windowSize() {
    return this.classList.contains("embed-view") ? EMBED_WINDOW : WINDOW;
  }

  showDirection(text) {
    const note = directionNote(text);
    this.ui.direction.textContent = note;
    this.ui.direction.hidden = !note;
    if (note) this.ui.text.setAttribute("aria-describedby", this.ui.direction.id);
    else this.ui.text.removeAttribute("aria-describedby");
  }

  showPolicy() {
    this.ui.policyHint.textContent = POLICIES[this.s.policy];
  }

  fillTokenizers() {
    const { options, value } = tokenizerOptions(this.s.tok);
    this.ui.tokenizer.replaceChildren(...options);
    this.ui.tokenizer.value = value;
    if (!this.s.tok) this.s.tok = value;
    if (this.ui.tokenizer.value !== this.s.tok) this.update();
  }

  soon() {
    clearTimeout(this._timer);
    this._timer = setTimeout(() => this.update(), 120);
  }

  /** While a request runs, the output says so: what it shows is the previous text's until the answer comes. */
  busy(on) {
    this.ui.output.setAttribute("aria-busy", on ? "true" : "false");
    this.ui.busy.hidden = !on;
  }

  async update() {
    const ui = this.ui;
    const asked = ++this.s.asked;
    this.busy(true);
    const text = this.text.value;
    this.showDirection(text);
    let model;
    try {
      if (this.s.tok === "trained" && this.s.training) {
        ui.tokInfo.textContent = "Training the tokenizer this view shows…";
        await store.trainedFrom(this.s.training, { say: (line) => { ui.tokInfo.textContent = line; } });
      }
      const handle = await useTokenizer(this.s.tok, ui.tokInfo, this.s.training);
      this.s.handle = handle;
      model = await store.request("display", { handle, text, policy: this.s.policy, start: this.s.start, stop: this.s.start + this.windowSize });
    } catch (error) {
      if (asked !== this.s.asked) return;
      if (error.type === "Cancelled") { setTimeout(() => this.update(), 0); return; }
      if (this.text.value !== text) return;  // typed since: the pending update() asks again
      this.busy(false);
      if (error.type === "NoTokenizer" || this.s.tok === "trained") this.problem(error.message);
      show(ui.error, error.type === "DisplayError" ? `Not encoded: ${error.message}` : `Could not encode: ${error.message}`, "error");
      this.s.model = null;
      ui.counts.replaceChildren();
      ui.pager.hidden = true;  // a previous text's pages are not this one's
      ui.pager.replaceChildren();
      ui.display.render({ start: 0, tokens: [], ids: [], groups: [] });
      return;
    }
    if (asked !== this.s.asked) return;  // a newer keystroke's answer is on its way
    if (this.text.value !== text) return;  // typed since: the pending update() asks again, busy stays
    this.busy(false);
    hide(ui.error);
    this.s.model = model;
    this.draw();
    const choice = REFERENCES[this.s.tok]?.label || ui.tokenizer.selectedOptions[0]?.textContent || this.s.tok;
    const detail = { view: "encode", tokenizer: this.s.tok || choice, tokens: model.total };
    if (model.total <= IDS_IN_STATE_MAX && model.stop - model.start === model.total) detail.ids = model.ids;
    this.dispatchEvent(new CustomEvent("bpe-state", { bubbles: true, detail }));
  }

  draw() {
    const { model, ws } = this.s;
    const ui = this.ui;
    const c = model.counts;
    const ratio = (v) => (v == null ? "—" : v.toFixed(2));
    const stat = (label, value) => el("div", {}, el("dt", { text: label }), el("dd", { text: value }));
    ui.counts.replaceChildren(stat("Tokens", fmt(c.tokens)), stat("Characters", fmt(c.characters)), stat("Bytes", fmt(c.bytes)),
      stat("Bytes per token", ratio(c.bytes_per_token)), stat("Characters per token", ratio(c.chars_per_token)));
    ui.display.render(model, { whitespace: ws });
    ui.pager.hidden = model.total <= model.stop - model.start && model.start === 0;
    if (ui.pager.hidden) ui.pager.replaceChildren();
    else {
      const go = (start) => { this.s.start = Math.max(0, start); this.update(); };
      ui.pager.replaceChildren(
        el("button", { type: "button", className: "secondary", disabled: model.start === 0 ? true : undefined, onclick: () => go(model.start - this.windowSize) }, "‹ Earlier tokens"),
        el("span", { className: "meta", text: `Tokens ${fmt(model.start + 1)}–${fmt(model.stop)} of ${fmt(model.total)}` }),
        el("button", { type: "button", className: "secondary", disabled: model.stop >= model.total ? true : undefined, onclick: () => go(model.stop) }, "Later tokens ›"));
    }
  }
}

if (!customElements.get("bpe-encode-view")) customElements.define("bpe-encode-view", EncodeView);
