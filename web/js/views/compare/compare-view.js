// <bpe-compare-view>: one text through several tokenizers side by side (issue 14).
//
// State (compare-state.js, the one mapping to params, links and lesson files): the text
// (kept exactly, apart from the box: components/exact-text.js) or a sample, the panes
// (compare-specs.js), policy, ws, lang, and the recipe of the trained tokenizer its trained
// panes show. Events: bpe-params; bpe-state {view: "compare", panes: [{tokenizer, tokens, ids}]}
// with ids left out above 10,000 tokens; bpe-problem {message}. Commands: "text" {text}.
//
// Every keystroke sends the text to the worker, which encodes it with every
// pane's tokenizer and sends back only the window of tokens each pane draws.
// One request is in flight at a time; the latest text wins.
import { store } from "../../store.js";
import { el, count, instanceIds } from "../../dom.js";
import { ComparePane } from "./compare-pane.js";
import { DEFAULT_PANES, MAX_PANES, parseSpec, paneLabel, paneName } from "./compare-specs.js";
import { PaneError, resolveSpec } from "./compare-resolve.js";
import { showProvenance } from "../../components/provenance.js";
import { BOX_MAX, ExactText, loneSurrogateProblem } from "../../components/exact-text.js";
import { samplesNow, sampleText } from "../../samples.js";
import * as mapping from "./compare-state.js";
import { buildPolicyControls, copyLines, drawMergeDiff, LanguagePanel } from "./compare-extra.js";
import { stateShown } from "../../state-hold.js";

const IDS_IN_STATE = 10_000;

function loadStyles() {
  if (document.querySelector("link[data-compare-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: new URL("../../../css/compare.css", import.meta.url).href, dataset: { compareCss: "" } }));
}

class CompareView extends HTMLElement {
  constructor() {
    super();
    this.panes = [];
    this.policy = "raise";
    this.ws = true;
    this.sample = "";
    this.training = null;   // the recipe the trained panes are made from (share/recipe.js), or null: the store's latest
    this.inFlight = null;   // the running refresh
    this.again = false;     // a change arrived while it ran
    this.renders = 0;
  }

  connectedCallback() {
    if (this.built) return;
    this.built = true;
    loadStyles();
    this.classList.add("compare-view");
    const id = instanceIds("compare", this);
    this.box = el("textarea", { className: "compare-text", id: id("compare-text"), rows: "4", spellcheck: "false", "aria-describedby": id("compare-text-counts") });
    this.textNote = el("p", { id: id("compare-text-note") });
    this.text = new ExactText(this.box, this.textNote, { boxMax: BOX_MAX, onInput: () => { this.sample = ""; this.changed(); } });
    this.text.value = mapping.DEFAULT_TEXT;
    this.textCounts = el("p", { id: id("compare-text-counts"), className: "meta compare-text-counts" });
    this.wsBox = el("input", { type: "checkbox", id: id("compare-ws"), checked: true,
      onchange: () => { this.ws = this.wsBox.checked; this.redraw(); this.paramsChanged(); } });
    this.addKind = el("select", { className: "compare-add-kind", id: id("compare-add-kind"), "aria-label": "Tokenizer for a new pane" },
      ["gpt2", "cl100k", "o200k", "bytes", "trained", "imported"].map((s) => el("option", { value: s, text: paneLabel(s) })));
    this.addButton = el("button", { type: "button", className: "secondary", id: id("compare-add"), text: "Add pane", onclick: () => this.addPane(this.addKind.value) });
    this.copyButton = el("button", { type: "button", className: "secondary", id: id("compare-copy"), text: "Copy as text", onclick: () => this.copy() });
    this.copyStatus = el("span", { className: "meta", role: "status", id: id("compare-copy-status") });
    this.copyOut = el("textarea", { className: "compare-copy-text", id: id("compare-copy-text"), rows: "4", readonly: true, hidden: true, "aria-label": "The panes as text (seed 003's lines)" });
    this.policyBox = buildPolicyControls((policy) => { this.policy = policy; this.changed(); }, id);
    this.paneBox = el("div", { className: "compare-panes", id: id("compare-panes") });
    this.message = el("p", { className: "meta", role: "status", id: id("compare-status") });
    this.diffBox = el("section", { className: "panel compare-diff", id: id("compare-diff"), hidden: true, "aria-labelledby": id("compare-diff-title") });
    this.languages = new LanguagePanel(() => this.paneHandles(), id);
    this.append(
      el("section", { className: "panel compare-input", "aria-labelledby": id("compare-title") },
        el("h2", { id: id("compare-title"), text: "Compare tokenizers" }),
        el("label", { className: "block-label", for: id("compare-text"), text: "Text to tokenize" }), this.box, this.textNote, this.textCounts,
        el("div", { className: "row wrap compare-controls" },
          el("label", { className: "radio", for: id("compare-ws") }, this.wsBox, "Show whitespace as ␣ ⏎ ⇥"),
          this.addKind, this.addButton, this.copyButton, this.copyStatus),
        this.copyOut, this.policyBox.node),
      this.message, this.paneBox, this.diffBox, this.languages.node);
    for (const spec of DEFAULT_PANES) this.addPane(spec, { quiet: true });
    // A new training run or import: the panes that show "the trained" or "the imported" tokenizer follow it.
    const follow = (kinds) => {
      for (const pane of this.panes) if (kinds.includes(parseSpec(pane.spec)?.kind)) pane.dropHandle();
      this.changed({ panesChanged: true });
    };
    store.addEventListener("trained", ({ detail }) => {
      const recipe = store.recipeOf(detail.handle);
      if (this.training && recipe && JSON.stringify(recipe) === JSON.stringify(this.training)) return;  // its own recipe, trained now
      if (this.training && this.dataset.shows === "own") return;  // a notebook's: its traits' recipe, not the page's newest
      this.training = recipe;
      follow(["trained", "trainedAt", "alt"]);
    });
    store.addEventListener("tokenizers", () => {
      const latest = [...store.tokenizers.values()].filter((t) => t.source === "imported").pop();
      if (this.panes.some((p) => p.spec === "imported" && latest && p.handle !== latest.handle)) follow(["imported"]);
    });
    // Not dropHandle(): a load cut short by the restart fails, and the pane says so.
    store.addEventListener("restart", () => { for (const pane of this.panes) pane.handle = null; });
    store.addEventListener("ready", () => this.changed({ panesChanged: true }));
    this.changed();
  }

  // ------------------------------------------------------------------ params

  /** The state on show (compare-state.js): a plain value, the same for links, embeds and lesson files. */
  get state() {
    const trained = mapping.needsTraining(this.panes.map((p) => p.spec));
    return {
      text: this.sample ? "" : this.text.value, sample: this.sample, panes: this.panes.map((p) => p.spec), policy: this.policy,
      ws: this.ws, lang: this.languages.mode,
      training: trained ? structuredClone(this.training ?? store.recipeOf(store.trained)) : null,
    };
  }

  /** The state as params (compare-state.js); `applyParams` reads them back. */
  get params() {
    return mapping.toParams(this.state, { samples: samplesNow() || [] }).params;
  }

  /** The whole text, for share links whose params leave it out. */
  get fullText() { return this.text ? this.text.value : ""; }

  async applyParams(params = {}) {
    const { state, problems } = mapping.fromParams(params, { samples: samplesNow() || [] });
    if (problems.length) this.problem(problems.join(" "));
    return this.setState(state);
  }

  /** Show a state: its text, panes and controls; trained panes use the tokenizer made from its recipe. */
  async setState(state) {
    if (!this.built) this.connectedCallback();
    const specs = state.panes.filter((s) => parseSpec(s)).slice(0, MAX_PANES);
    if (specs.length && specs.join(",") !== this.panes.map((p) => p.spec).join(",")) {
      for (const pane of this.panes) pane.node.remove();
      this.panes = [];
      for (const spec of specs) this.addPane(spec, { quiet: true });
    }
    this.policy = state.policy;
    this.policyBox.set(state.policy);
    this.ws = state.ws;
    this.wsBox.checked = state.ws;
    this.languages.setMode(state.lang);
    if (JSON.stringify(state.training) !== JSON.stringify(this.training)) {
      this.training = state.training ? structuredClone(state.training) : null;
      for (const pane of this.panes) if (mapping.needsTraining([pane.spec])) pane.dropHandle();
    }
    if (state.sample) { if (state.sample !== this.sample) await this.loadSample(state.sample); }
    else { this.text.value = state.text; this.sample = ""; }
    stateShown(this);
    await this.changed({ panesChanged: true });
  }

  problem(message) {
    this.message.textContent = message;
    this.dispatchEvent(new CustomEvent("bpe-problem", { bubbles: true, detail: { message } }));
  }

  async loadSample(id) {
    try {
      this.text.value = await sampleText(id);
      this.sample = id;
    } catch (error) {
      this.problem(`Could not load the sample: ${error.message}`);
    }
  }

  paramsChanged() {
    this.dispatchEvent(new CustomEvent("bpe-params", { bubbles: true }));
  }

  async command(action, args = {}) {
    if (action === "text") {
      if (typeof args.text !== "string") throw new Error(`text needs args.text, a string; got ${JSON.stringify(args.text)}`);
      const bad = loneSurrogateProblem(args.text);
      if (bad) throw new Error(bad);
      if (!this.built) this.connectedCallback();
      this.text.value = args.text;
      this.sample = "";
      await this.changed();
      return;
    }
    throw new Error(`the compare view does not support ${JSON.stringify(action)}; it supports "text"`);
  }

  // ------------------------------------------------------------------ panes

  addPane(spec, { quiet = false } = {}) {
    if (this.panes.length >= MAX_PANES) { this.message.textContent = `At most ${MAX_PANES} panes.`; return; }
    const pane = new ComparePane(spec, {
      onSpec: () => { pane.dropHandle(); this.changed({ panesChanged: true }); },
      onRemove: (p) => this.removePane(p),
      onWindow: () => this.changed(),
      onSelect: (p, index, id) => this.focusToken(p, index, id),
      onHover: (p, index) => this.linkAcross(p, index),
    });
    this.panes.push(pane);
    this.paneBox.append(pane.node);
    this.paneBox.dataset.count = String(this.panes.length);
    if (!quiet) { this.changed({ panesChanged: true }); pane.kind.focus(); }
  }

  removePane(pane) {
    if (this.panes.length <= 1) { this.message.textContent = "The last pane stays: choose another tokenizer for it instead."; return; }
    const index = this.panes.indexOf(pane);
    this.panes.splice(index, 1);
    pane.node.remove();
    this.paneBox.dataset.count = String(this.panes.length);
    (this.panes[Math.min(index, this.panes.length - 1)].kind).focus();
    this.changed({ panesChanged: true });
  }

  paneHandles() {
    return this.panes.filter((p) => p.handle).map((p) => ({ handle: p.handle, name: paneName(p.spec), spec: p.spec }));
  }

  /** Hovering a token outlines the tokens of the other panes that cover the same characters. */
  linkAcross(source, index) {
    for (const node of this.querySelectorAll(".compare-pane .tk.linked")) node.classList.remove("linked");
    const r = source.result;
    if (index === null || index === undefined || !r || r.error) return;
    const token = r.tokens[index - r.start];
    if (!token) return;
    const [a, b] = token.span;
    for (const pane of this.panes) {
      const other = pane.result;
      if (pane === source || !other || other.error) continue;
      other.tokens.forEach((t, i) => {
        if (t.span[0] < b && t.span[1] > a) pane.display.spanAt(other.start + i)?.classList.add("linked");
      });
    }
  }

  async focusToken(pane, index, id) {
    if (!pane.handle) return;
    // A token of the trained tokenizer (at any k: the ids are the same) can show its training history (E's dialog).
    const kind = parseSpec(pane.spec)?.kind;
    const trained = store.trained;
    const provenance = (kind === "trained" || kind === "trainedAt") && trained ? () => showProvenance(store, trained, id) : null;
    try {
      pane.showDetail(await store.request("token_detail", { handle: pane.handle, id }), { provenance });
    } catch (error) {
      pane.detail.textContent = error.message;
    }
  }

  // ------------------------------------------------------------------ refresh

  /** Something changed: refresh now, or right after the refresh already running. */
  changed({ panesChanged = false } = {}) {
    if (panesChanged) this.paramsChanged();
    this.dataset.state = "busy";
    if (this.inFlight) { this.again = true; return this.inFlight; }
    this.inFlight = (async () => {
      try {
        do {
          this.again = false;
          await this.refresh();
        } while (this.again);
      } finally {
        this.inFlight = null;
      }
    })();
    return this.inFlight;
  }

  async refresh() {
    const text = this.text.value;
    this.textCounts.textContent = `${count(text.length, "character")}, ${count(new TextEncoder().encode(text).length, "byte")}`;
    this.paramsChanged();
    await store.ready;
    let trained = store.trained;
    let trainingFailed = null;  // why the trained panes have no tokenizer: they say so, not "No trained tokenizer yet"
    if (this.training && this.panes.some((p) => mapping.needsTraining([p.spec]))) {
      try {
        trained = await store.trainedFrom(this.training, { say: (text) => { this.message.textContent = text; } });
      } catch (error) {
        trained = null;
        trainingFailed = `The trained tokenizer could not be made: ${error.message}`;
        this.problem(trainingFailed);
      }
      if (this.again) return;
    }
    // Resolve every pane's handle (loading a reference or deriving trained@k the first time).
    const live = [];
    for (const pane of this.panes) {
      const base = trained && store.tokenizers.get(trained);
      pane.setMergeLimit(base ? base.n_merges : 0);
      // A pane changed while its tokenizer loads or trains (another spelling, a new training run) gets
      // nothing from that load: the change asked for another refresh, which resolves it again.
      const resets = pane.resets;
      const current = () => pane.resets === resets;
      try {
        if (!pane.handle || !store.tokenizers.has(pane.handle)) {
          if (!pane.result) pane.busy(`Loading ${paneName(pane.spec)}…`);
          const handle = await resolveSpec(pane.spec, { trained, onProgress: (progress) => { if (current()) pane.trainingProgress(progress); } })
            .finally(() => { if (current()) pane.trainingDone(); });
          if (!current()) continue;
          pane.handle = handle;
        }
        live.push(pane);
      } catch (error) {
        if (!current()) continue;
        if (!(error instanceof PaneError)) console.warn(error);
        pane.handle = null;
        pane.showError(trainingFailed && mapping.needsTraining([pane.spec]) ? trainingFailed : error.message);
      }
    }
    if (this.again) return;  // a newer change is waiting: do not draw a stale text
    let result = null;
    const asked = performance.now();
    if (live.length) {
      try {
        result = await store.request("compare", {
          handles: live.map((p) => p.handle), text, policy: this.policy, windows: live.map((p) => p.window),
        });
      } catch (error) {
        this.message.textContent = error.message;
        this.dataset.state = "error";
        return;
      }
    }
    if (this.again) return;
    this.message.textContent = "";
    const answered = performance.now();
    live.forEach((pane, i) => pane.render(result.panes[i], { ws: this.ws, policy: this.policy }));
    // Where a refresh's time goes, for bench_compare.py: the worker's answer, then drawing.
    this.dataset.requestMs = String(Math.round(answered - asked));
    this.dataset.drawMs = String(Math.round(performance.now() - answered));
    this.policyBox.showCounts(this.panes);
    this.renders += 1;
    this.dataset.renders = String(this.renders);
    this.dataset.state = "done";
    this.emitState();
    drawMergeDiff(this.diffBox, this.panes, text);
    this.languages.panesChanged();
  }

  redraw() {
    for (const pane of this.panes) if (pane.result && !pane.result.error) pane.render(pane.result, { ws: this.ws, policy: this.policy });
  }

  emitState() {
    const panes = this.panes.map((pane) => {
      const r = pane.result;
      const entry = { tokenizer: pane.spec, tokens: r && !r.error ? r.total : null };
      if (r && !r.error && r.total <= IDS_IN_STATE && r.ids_all) entry.ids = r.ids_all;
      return entry;
    });
    this.dispatchEvent(new CustomEvent("bpe-state", { bubbles: true, detail: { view: "compare", panes } }));
  }

  async copy() {
    const live = this.panes.filter((p) => p.handle && p.result && !p.result.error);
    if (!live.length) { this.copyStatus.textContent = "Nothing to copy yet."; return; }
    const { text } = await store.request("compare_copy", {
      handles: live.map((p) => p.handle), names: live.map((p) => paneName(p.spec)), text: this.text.value, policy: this.policy,
    });
    this.copyStatus.textContent = await copyLines(text, this.copyOut);
  }
}

if (!customElements.get("bpe-compare-view")) customElements.define("bpe-compare-view", CompareView);
