// What of the reader's own input the host page hears (report=, protocol version 2). Once the reader
// types into the view, what it shows is the reader's own: its `state` messages carry no ids unless
// report=ids, and the typed text itself only with report=text. The host's text, view and load
// commands make it the host's again. With report= the widget says on screen what it reports.

export class ReaderReport {
  constructor() {
    this.report = [];    // the report= list: "ids", "text"
    this.typed = false;  // the reader has typed into the view since the host last set its text
  }

  /** Take report= and say on screen (the preview's hint and the report line) what it reports. */
  show(report, { preview, note: line }) {
    this.report = report;
    const hint = preview.querySelector(".embed-actions .hint");
    if (!report.length) return;
    const what = report.includes("text") && report.includes("ids") ? "the text you type and its token ids"
      : report.includes("text") ? "the text you type" : "the token ids of what you type";
    const note = `This widget reports ${what} to the page around it.`;
    if (hint) hint.textContent = `Runs Python in your browser (about 20 MB, downloaded once). ${note}`;
    line.textContent = note;
    line.hidden = false;
  }

  /** The reader's typing (not the host's text command) makes what `view` shows the reader's own. */
  watchTyping(view) {
    view.addEventListener("input", (event) => { if (event.target.matches("textarea, input[type=text], input:not([type])")) this.typed = true; }, true);
  }

  /** The host set what the view shows (a text, view or load command). */
  hostSet() {
    this.typed = false;
  }

  /** A state message with what the host may hear: the reader's typed text's ids only when report= asks. */
  filter(message, view) {
    if (!this.typed) return message;
    const out = { ...message };
    if (!this.report.includes("ids")) {
      delete out.ids;
      if (Array.isArray(out.panes)) out.panes = out.panes.map(({ ids, ...pane }) => pane);
    }
    if (this.report.includes("text") && typeof view.fullText === "string") out.text = view.fullText;
    return out;
  }
}
