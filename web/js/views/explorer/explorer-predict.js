// The explorer's predict mode: the reader guesses the next merge from the pair table; Python judges
// the guess (request explore_judge) and the verdict shows under the table, with a button to go on.
// A verdict belongs to the step it judged. Events: bpe-answer {step, correct}.
import { store } from "../../store.js";

export class PredictMode {
  /** view: the <bpe-explorer-view> (handle, k, view (the step on show), ui, render, changed()). */
  constructor(view) {
    this.view = view;
    this.on = false;
    this.answered = false;  // the step on show has been guessed
  }

  set(on, { quiet = false } = {}) {
    const view = this.view;
    this.on = on;
    view.ui.predict.checked = on;
    this.clear();
    if (view.view) view.render.update(view.view, { predict: on, answered: false });
    if (!quiet) view.changed();
  }

  /** Another step or tokenizer: the verdict goes. */
  clear() {
    this.answered = false;
    this.view.ui.answer.hidden = true;
  }

  async guess(row) {
    const view = this.view;
    if (!view.view || !view.view.next) return;
    const step = view.k;
    const verdict = await store.request("explore_judge", { handle: view.handle, step, pair: row.pair });
    if (step !== view.k) return;  // the reader moved on while Python judged
    // The step stays: the table reveals the winner in place, the verdict sits under it, and
    // "Next step" (or →) goes on when the reader has read it.
    this.answered = true;
    view.render.update(view.view, { predict: this.on, answered: true });
    const ui = view.ui;
    ui.answer.hidden = false;
    ui.answer.className = `predict-answer alert ${verdict.correct ? "ok" : "error"}`;
    ui.answer.dataset.correct = String(verdict.correct);
    ui.answerText.textContent = verdict.text;
    ui.answerNext.textContent = view.view.step < view.view.steps ? `Next step (${(step + 1).toLocaleString("en-US")})` : "Next step";
    ui.answerNext.focus({ preventScroll: true });  // the clicked button went with the guesses
    ui.answer.scrollIntoView({ block: "nearest" });
    view.dispatchEvent(new CustomEvent("bpe-answer", { bubbles: true, detail: { step: verdict.step, correct: verdict.correct } }));
  }
}
