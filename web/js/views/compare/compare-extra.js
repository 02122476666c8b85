// The compare view's other parts: the special-token policy selector with its
// effect explained, "copy as text", the two-trained-configurations diff and the
// language table (bundled aligned passages or two pasted texts).
import { store } from "../../store.js";
import { el, fmt, count } from "../../dom.js";
import "../../components/language-table.js";
import { isTrainedSpec, paneName } from "./compare-specs.js";

const POLICY_TEXT = {
  raise: ["raise", "tiktoken's default: a special token's spelling in the text (such as <|endoftext|>) is an error, so pasted text cannot slip a control token into a prompt."],
  allow: ["allow", "the spelling becomes the special token: one id."],
  text: ["text", "the spelling is ordinary text, cut into ordinary tokens like any other characters (<|endoftext|> is several tokens)."],
};

/** The policy radios, each with what it does and, under it, each pane's count. */
/** `id` makes the view's ids (dom.js instanceIds). */
export function buildPolicyControls(onChange, id = (name) => name) {
  const counts = {};
  const radios = {};
  const node = el("fieldset", { className: "compare-policy", id: id("compare-policy") },
    el("legend", { text: "Special tokens in the text" }),
    Object.entries(POLICY_TEXT).map(([value, [label, help]]) => {
      radios[value] = el("input", { type: "radio", name: id("compare-policy"), value, id: id(`compare-policy-${value}`), checked: value === "raise",
        "aria-describedby": `${id(`compare-policy-${value}-help`)} ${id(`compare-policy-${value}-counts`)}`, onchange: () => onChange(value) });
      counts[value] = el("span", { className: "policy-counts", id: id(`compare-policy-${value}-counts`), dataset: { policy: value } });
      return el("div", { className: "policy-option" },
        el("label", { className: "radio", for: id(`compare-policy-${value}`) }, radios[value], el("strong", { text: label })),
        el("span", { className: "hint", id: id(`compare-policy-${value}-help`), text: help }), el("br"), counts[value]);
    }),
    el("p", { className: "hint", text: "The counts differ only when the text holds a special token's spelling; try typing <|endoftext|>." }));
  return {
    node,
    set(value) { radios[value].checked = true; },
    showCounts(panes) {
      for (const policy of Object.keys(POLICY_TEXT)) {
        const parts = panes.filter((p) => p.result?.policies).map((p) => {
          const n = p.result.policies[policy].tokens;
          return `${paneName(p.spec)} ${n === null ? "error" : fmt(n)}`;
        });
        counts[policy].textContent = parts.length ? `Tokens: ${parts.join(" · ")}` : "";
      }
    },
  };
}

/** Put seed 003's lines on the clipboard (and in a visible box, for when the clipboard is not allowed). */
export async function copyLines(text, box) {
  box.value = text;
  box.hidden = false;
  box.rows = Math.min(12, text.split("\n").length + 1);
  try {
    await navigator.clipboard.writeText(text);
    return "Copied: seed 003's lines, also shown below.";
  } catch {
    box.focus();
    box.select();
    return "The browser did not allow copying: the lines are selected below; press Ctrl+C (⌘C).";
  }
}

let lastDiff = "";

/** Two trained configurations in the panes: where their merge lists part, what each lacks, counts on the text. */
export async function drawMergeDiff(box, panes, text) {
  const trained = panes.filter((p) => isTrainedSpec(p.spec) && p.handle && p.result && !p.result.error);
  if (trained.length < 2) { box.hidden = true; lastDiff = ""; return; }
  const [a, b] = trained;
  const key = `${a.handle}|${b.handle}|${text}`;
  if (key === lastDiff) return;
  lastDiff = key;
  let diff;
  try {
    diff = await store.request("merge_diff", { a: a.handle, b: b.handle, text, limit: 30 });
  } catch (error) {
    box.hidden = false;
    box.replaceChildren(el("p", { className: "alert error", text: error.message }));
    return;
  }
  if (key !== lastDiff) return;
  const [na, nb] = [paneName(a.spec), paneName(b.spec)];
  const merge = (m) => (m ? [el("code", { text: m.left }), " + ", el("code", { text: m.right }), " → ", el("code", { text: m.label })] : "nothing (its list has ended)");
  const first = diff.first_difference === null
    ? el("p", { text: `The merge lists are the same (${count(diff.merges.a, "merge")}).` })
    : el("p", {}, `The merge lists first differ at merge ${fmt(diff.first_difference + 1)}: `,
      el("strong", { text: na }), " merges ", merge(diff.at_first.a), "; ", el("strong", { text: nb }), " merges ", merge(diff.at_first.b), ".");
  const list = (rows, total, name, other) => el("div", {},
    el("h4", { text: `${fmt(total)} merge${total === 1 ? "" : "s"} of ${name} that ${other} never learns` }),
    rows.length ? el("ol", { className: "merge-list" }, rows.map((r) => el("li", { value: String(r.rank + 1) }, el("code", { text: r.left }), " + ", el("code", { text: r.right }), " → ", el("code", { text: r.label }))))
      : el("p", { className: "meta", text: "none" }),
    total > rows.length ? el("p", { className: "meta", text: `the first ${rows.length} shown` }) : null);
  box.hidden = false;
  box.replaceChildren(el("h2", { id: box.getAttribute("aria-labelledby"), text: `Two trained configurations: ${na} and ${nb}` }), first,
    el("p", {}, `On this text: ${na} gives ${count(diff.tokens.a, "token")}, ${nb} gives ${count(diff.tokens.b, "token")}. `,
      `They share ${fmt(diff.shared)} of their merges (${fmt(diff.merges.a)} and ${fmt(diff.merges.b)}).`),
    el("div", { className: "two-col" }, list(diff.only_a, diff.n_only_a, na, nb), list(diff.only_b, diff.n_only_b, nb, na)));
}

let alignedPromise = null;

/** The bundled aligned passages: {index, texts: [{code, name, text}]}, fetched once. */
function loadAligned() {
  if (!alignedPromise) {
    alignedPromise = (async () => {
      const base = new URL("../../../samples/aligned/", import.meta.url);
      const response = await fetch(new URL("index.json", base));
      if (!response.ok) throw new Error(`samples/aligned/index.json: HTTP ${response.status}`);
      const index = await response.json();
      const texts = await Promise.all(index.languages.map(async (lang) => {
        const r = await fetch(new URL(lang.file, base));
        if (!r.ok) throw new Error(`samples/aligned/${lang.file}: HTTP ${r.status}`);
        return { code: lang.code, name: lang.name, text: await r.text() };
      }));
      return { index, texts };
    })();
    alignedPromise.catch(() => { alignedPromise = null; });
  }
  return alignedPromise;
}

/** "What a tokenizer costs each language": the table for the panes' tokenizers. */
export class LanguagePanel {
  constructor(getHandles, id = (name) => name) {
    this.getHandles = getHandles;
    this.mode = "bundled";
    this.lastKey = "";
    this.timer = 0;
    this.radios = {};
    const radio = (value, label) => el("label", { className: "radio", for: id(`compare-lang-${value}`) },
      this.radios[value] = el("input", { type: "radio", name: id("compare-lang"), id: id(`compare-lang-${value}`), value, checked: value === "bundled",
        onchange: () => this.setMode(value, { user: true }) }), label);
    this.pasteA = el("textarea", { id: id("compare-lang-a"), rows: "3", "aria-label": "Text A (the base)", oninput: () => this.soon() });
    this.pasteB = el("textarea", { id: id("compare-lang-b"), rows: "3", "aria-label": "Text B", oninput: () => this.soon() });
    this.pasted = el("div", { className: "two-col", hidden: true },
      el("div", {}, el("label", { className: "block-label", for: id("compare-lang-a"), text: "Text A (the ratios are to it)" }), this.pasteA),
      el("div", {}, el("label", { className: "block-label", for: id("compare-lang-b"), text: "Text B (the same passage in another language)" }), this.pasteB));
    this.status = el("p", { className: "meta", role: "status" });
    this.source = el("p", { className: "hint" });
    this.table = el("language-table", { id: id("compare-lang-table") });
    this.node = el("section", { className: "panel compare-languages", id: id("compare-languages"), "aria-labelledby": id("compare-lang-title") },
      el("h2", { id: id("compare-lang-title"), text: "What a tokenizer costs each language" }),
      el("p", { className: "hint", text: "The same passage in several languages, counted with each pane's tokenizer. A ratio of 2.00× means that language needs twice the tokens English does for the same content, so twice the context window and twice the bill." }),
      el("fieldset", { className: "row wrap" }, el("legend", { text: "Texts" }),
        radio("bundled", "Bundled: the same Debian handbook sections in several languages"), radio("pasted", "Two texts I paste")),
      this.pasted, this.status, this.table, this.source);
  }

  setMode(mode, { user = false } = {}) {
    this.mode = mode;
    this.radios[mode].checked = true;
    this.pasted.hidden = mode !== "pasted";
    this.lastKey = "";
    this.soon(0);
    if (user) this.node.dispatchEvent(new CustomEvent("bpe-params", { bubbles: true }));
  }

  panesChanged() { this.soon(); }

  soon(delay = 250) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.update(), delay);
  }

  async update() {
    const seen = new Set();
    const panes = this.getHandles().filter((p) => !seen.has(p.handle) && seen.add(p.handle));
    if (!panes.length) { this.table.clear?.("No pane has a tokenizer yet."); return; }
    let texts;
    if (this.mode === "bundled") {
      try {
        const aligned = await loadAligned();
        texts = aligned.texts;
        this.source.textContent = `Source: ${aligned.index.source}. Sections: ${aligned.index.sections.map((s) => s.id).join(", ")}. Licence: ${aligned.index.licence}.`;
      } catch (error) {
        this.status.textContent = `The bundled passages did not load: ${error.message}`;
        return;
      }
    } else {
      this.source.textContent = "";
      if (!this.pasteA.value.trim() || !this.pasteB.value.trim()) { this.table.clear("Paste a text into both boxes."); this.status.textContent = ""; return; }
      texts = [{ code: "A", name: "Text A", text: this.pasteA.value }, { code: "B", name: "Text B", text: this.pasteB.value }];
    }
    const key = JSON.stringify([this.mode, panes.map((p) => p.handle), this.mode === "pasted" ? [this.pasteA.value, this.pasteB.value] : null]);
    if (key === this.lastKey) return;
    this.lastKey = key;
    this.status.textContent = "Counting…";
    try {
      const table = await store.request("language_table", {
        handles: panes.map((p) => p.handle), names: panes.map((p) => p.handle), texts, base: texts[0].code,
      });
      if (key !== this.lastKey) return;
      this.table.render(table, { names: Object.fromEntries(panes.map((p) => [p.handle, p.name])) });
      this.status.textContent = `${count(texts.length, "text")}, ${count(panes.length, "tokenizer")}.`;
      this.node.dataset.languages = String(texts.length);
    } catch (error) {
      this.status.textContent = error.message;
      this.lastKey = "";
    }
  }
}
