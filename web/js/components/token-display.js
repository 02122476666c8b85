// <token-display> and <token-ids>: how every view draws tokens. The model comes
// from Python (py/bpelab/display.py, worker request "display"); this file only draws it.
//
//   const display = document.createElement("token-display");
//   display.render(model, { whitespace: true });   // model: the display request's result
//   display.linkIds(idsElement);                     // a <token-ids>: hover/focus linked both ways
//   display.addEventListener("token-hover", (e) => e.detail);   // {index, id}; index null when left
//   display.addEventListener("token-select", (e) => e.detail);  // {index, id}: click or Enter
//
// Each token is a span coloured by its id (a colour-blind-safe palette) with a
// border, so boundaries show without colour too. Spans isolate bidirectional
// text (unicode-bidi: isolate), so a token holding U+202E cannot reorder its
// neighbours. A token that splits a UTF-8 character sits in a group that shows
// the whole character once, then each token's bytes as chips ⟨E1⟩. Long tokens
// wrap inside the display (overflow-wrap: anywhere) and never widen the page.
// Keyboard: the display is one tab stop; arrow keys move between tokens, Home/End, Enter selects.
import { el } from "../dom.js";

const PALETTE_SIZE = 8;
const VISIBLE = { " ": "␣", "\n": "⏎\n", "\t": "⇥\t", "\r": "␍" };

/** Text with ␣ ⏎ ⇥ ␍ marks, as spans of class ws, when whitespace is shown; as it is otherwise. */
function textNodes(text, whitespace) {
  if (!whitespace) return [text];
  const out = [];
  let run = "";
  for (const ch of text) {
    if (VISIBLE[ch]) {
      if (run) { out.push(run); run = ""; }
      out.push(el("span", { className: "ws", text: VISIBLE[ch] }));
    } else {
      run += ch;
    }
  }
  if (run) out.push(run);
  return out;
}

/** The text of a token for a label or a tooltip: chips as ⟨E1⟩, whitespace marked. */
export function tokenText(token) {
  return token.parts.map(([kind, value]) => (kind === "b" ? `⟨${value}⟩` : value.replace(/[ \n\t\r]/g, (c) => VISIBLE[c][0]))).join("");
}

/** A standalone token (tables, lists): <bdi class="tok"> with its parts, whitespace marked, chips for bytes. */
export function partsNode(parts, { special = false } = {}) {
  const node = el("bdi", { className: `tok${special ? " special" : ""}` });
  if (!parts.length) node.append("∅");
  for (const [kind, value] of parts) {
    if (kind === "b") node.append(el("span", { className: "chip", text: value }));
    else node.append(...textNodes(value, true));
  }
  return node;
}

function tokenSpan(token, index, whitespace) {
  const span = el("span", {
    className: `tk c${token.id % PALETTE_SIZE}${token.special ? " special" : ""}`,
    dataset: { index: String(index), id: String(token.id) },
    tabindex: "-1",
  });
  if (!token.parts.length) span.append("∅");
  for (const [kind, value] of token.parts) {
    if (kind === "b") span.append(el("span", { className: "chip", text: value }));
    else span.append(...textNodes(value, whitespace));
  }
  return span;
}

class TokenDisplay extends HTMLElement {
  constructor() {
    super();
    this.model = null;
    this.idsList = null;
    this.active = null;  // the span that holds the roving tab stop
    this.options = { whitespace: true };
  }

  connectedCallback() {
    if (this._wired) return;
    this._wired = true;
    if (!this.hasAttribute("role")) this.setAttribute("role", "group");
    if (!this.hasAttribute("aria-label")) this.setAttribute("aria-label", "Tokens");
    this.addEventListener("mouseover", (event) => this._hover(event.target.closest(".tk")));
    this.addEventListener("mouseleave", () => this._hover(null));
    this.addEventListener("focusin", (event) => this._hover(event.target.closest(".tk")));
    this.addEventListener("focusout", (event) => { if (!this.contains(event.relatedTarget)) this._hover(null); });
    this.addEventListener("click", (event) => this._select(event.target.closest(".tk")));
    this.addEventListener("keydown", (event) => this._key(event));
  }

  /** Draw a display model (see py/bpelab/display.py for its fields). */
  render(model, options = {}) {
    this.model = model;
    this.options = { ...this.options, ...options };
    const ws = Boolean(this.options.whitespace);
    const groups = new Map((model.groups || []).map((g) => [g.start, g]));
    const nodes = [];
    const tokens = model.tokens || [];
    for (let i = 0; i < tokens.length; i++) {
      const index = model.start + i;
      const group = groups.get(index);
      if (group) {
        // Tokens that only together make whole characters: the characters once, then each token's bytes.
        const box = el("span", { className: "grp", title: `${group.stop - group.start} tokens together make ${JSON.stringify(group.text)}` },
          el("bdi", { className: "grp-text", "aria-hidden": "true" }, ...textNodes(group.text, ws)));
        for (let k = group.start; k < group.stop && k - model.start < tokens.length; k++) {
          box.append(tokenSpan(tokens[k - model.start], k, ws));
        }
        nodes.push(box);
        i = group.stop - model.start - 1;
      } else {
        nodes.push(tokenSpan(tokens[i], index, ws));
      }
    }
    if (!nodes.length) nodes.push(el("span", { className: "empty", text: "No tokens." }));
    this.replaceChildren(...nodes);
    this.classList.toggle("show-ws", ws);
    this.active = this.querySelector(".tk");
    if (this.active) this.active.tabIndex = 0;
    if (this.idsList) this.idsList.render(model);
  }

  /** Link a <token-ids> list: hovering or focusing either side highlights the other. */
  linkIds(list) {
    this.idsList = list;
    list.display = this;
    if (this.model) list.render(this.model);
  }

  spanAt(index) {
    return this.querySelector(`.tk[data-index="${index}"]`);
  }

  /** Highlight token `index` here and in the linked ids (null: none). */
  highlight(index) {
    for (const node of this.querySelectorAll(".tk.hl")) node.classList.remove("hl");
    this.idsList?.highlight(index);
    if (index === null || index === undefined) return;
    const span = this.spanAt(index);
    if (!span) return;
    span.classList.add("hl");
    if (!span.title) span.title = `token ${index + 1} · id ${span.dataset.id}`;
  }

  _detail(span) {
    return span ? { index: Number(span.dataset.index), id: Number(span.dataset.id) } : { index: null, id: null };
  }

  _hover(span) {
    const detail = this._detail(span);
    this.highlight(detail.index);
    this.dispatchEvent(new CustomEvent("token-hover", { bubbles: true, detail }));
  }

  _select(span) {
    if (!span) return;
    this._focus(span);
    this.dispatchEvent(new CustomEvent("token-select", { bubbles: true, detail: this._detail(span) }));
  }

  _focus(span) {
    if (this.active) this.active.tabIndex = -1;
    this.active = span;
    span.tabIndex = 0;
    span.focus();
  }

  _key(event) {
    const span = event.target.closest?.(".tk");
    if (!span) return;
    const all = this.querySelectorAll(".tk");
    const i = Number(span.dataset.index) - this.model.start;
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = all[Math.min(all.length - 1, i + 1)];
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = all[Math.max(0, i - 1)];
    else if (event.key === "Home") next = all[0];
    else if (event.key === "End") next = all[all.length - 1];
    else if (event.key === "Enter" || event.key === " ") { event.preventDefault(); this._select(span); return; }
    if (next) { event.preventDefault(); this._focus(next); }
  }
}

class TokenIds extends HTMLElement {
  constructor() {
    super();
    this.display = null;
  }

  connectedCallback() {
    if (this._wired) return;
    this._wired = true;
    if (!this.hasAttribute("role")) this.setAttribute("role", "group");
    if (!this.hasAttribute("aria-label")) this.setAttribute("aria-label", "Token ids");
    this.addEventListener("mouseover", (event) => this._hover(event.target.closest(".tid")));
    this.addEventListener("mouseleave", () => this._hover(null));
  }

  render(model) {
    const nodes = [];
    (model.ids || []).forEach((id, i) => {
      nodes.push(el("span", { className: `tid c${id % PALETTE_SIZE}`, dataset: { index: String(model.start + i) }, text: String(id) }));
      nodes.push(" ");
    });
    this.replaceChildren(...nodes);
  }

  highlight(index) {
    for (const node of this.querySelectorAll(".tid.hl")) node.classList.remove("hl");
    if (index === null || index === undefined) return;
    this.querySelector(`.tid[data-index="${index}"]`)?.classList.add("hl");
  }

  _hover(span) {
    const index = span ? Number(span.dataset.index) : null;
    if (this.display) {
      this.display.highlight(index);
      this.display.dispatchEvent(new CustomEvent("token-hover", { bubbles: true, detail: this.display._detail(this.display.spanAt(index)) }));
    } else {
      this.highlight(index);
    }
  }
}

if (!customElements.get("token-display")) customElements.define("token-display", TokenDisplay);
if (!customElements.get("token-ids")) customElements.define("token-ids", TokenIds);
