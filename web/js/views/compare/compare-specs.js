// What a compare pane can hold, spelled as in the `panes` URL param:
//   gpt2, cl100k, o200k     OpenAI's GPT-2 (r50k_base), cl100k_base, o200k_base
//   bytes                   plain UTF-8 bytes, no merges
//   trained                 the tokenizer trained in the Train view
//   trained@K               the same after its first K merges
//   imported                the latest imported tokenizer
//   alt_SIZE_PRE_TIE        a second configuration trained on the same training text:
//                           vocabulary SIZE, pre-tokenizer PRE, tie-break TIE (e.g. alt_400_whitespace_smaller-id)
// Pure: no store, no DOM (compare-state.js reads links with it); compare-resolve.js makes handles.

export const REFERENCES = { gpt2: "gpt2", cl100k: "cl100k_base", o200k: "o200k_base" };
export const REFERENCE_LABELS = { gpt2: "GPT-2 (r50k_base)", cl100k: "cl100k_base (GPT-4)", o200k: "o200k_base (GPT-4o)" };
export const ALT_PRETOKENIZERS = ["gpt2", "cl100k", "o200k", "whitespace", "bytes"];
export const ALT_TIES = ["greater", "smaller-id", "first-seen"];
export const DEFAULT_PANES = ["gpt2", "cl100k", "o200k"];
export const MAX_PANES = 6;

/** {kind, ...} of a pane spelling, or null when it is not one. */
export function parseSpec(spec) {
  if (spec in REFERENCES) return { kind: "reference", name: spec };
  if (spec === "bytes" || spec === "trained" || spec === "imported") return { kind: spec };
  // Any whole K parses: one past the merges is refused with a message when the pane resolves (never dropped).
  let m = /^trained@(\d{1,15})$/.exec(spec);
  if (m) return { kind: "trainedAt", k: Number(m[1]) };
  m = /^alt_(\d{3,6})_([a-z0-9]+)_([a-z-]+)$/.exec(spec);
  if (m && ALT_PRETOKENIZERS.includes(m[2]) && ALT_TIES.includes(m[3])) {
    return { kind: "alt", size: Number(m[1]), pre: m[2], tie: m[3] };
  }
  return null;
}

export function altSpec(size, pre, tie) {
  return `alt_${size}_${pre}_${tie}`;
}

/** The name a pane shows and copies: tiktoken's names for OpenAI's (as seed 003 prints them), else the spelling. */
export function paneName(spec) {
  return REFERENCES[spec] || spec;
}

/** A longer label for headings and menus. */
export function paneLabel(spec) {
  const p = parseSpec(spec);
  if (!p) return spec;
  if (p.kind === "reference") return REFERENCE_LABELS[spec];
  if (p.kind === "bytes") return "Plain bytes";
  if (p.kind === "trained") return "Trained";
  if (p.kind === "trainedAt") return `Trained, first ${p.k.toLocaleString("en-US")} merges`;
  if (p.kind === "imported") return "Imported";
  return `Second configuration: vocabulary ${p.size}, ${p.pre}, tie ${p.tie}`;
}

/** Whether a pane holds a tokenizer trained here (it has a merge list to compare). */
export function isTrainedSpec(spec) {
  const kind = parseSpec(spec)?.kind;
  return kind === "trained" || kind === "trainedAt" || kind === "alt";
}
