// Every failure a reader sees in the widget reaches the host page as an `error` too. The views show
// theirs in alerts and status lines marked as errors, which this watcher reads as they appear; a
// view's bpe-problem and the widget's own failures are told directly. A failure shown twice is told
// once while it is shown, and again when it comes back after going away.
import { shorten } from "./embed-messages.js";

// Error alerts (encode, train), a compare pane's error line, and a view's status line while it is in its error state.
// (A wrong guess in predict mode is an .alert.error too, but it is an answer, not a failure.)
const FAILURE_SELECTOR = ".alert.error:not(.predict-answer), .compare-pane .error";

export class FailureWatcher {
  /** host: the HostLink; currentView() -> the mounted view element, or null. */
  constructor(host, currentView) {
    this.host = host;
    this.currentView = currentView;
    this.posted = new Set();  // messages already posted
    this.recent = new Set();  // posted by tell() since the last scan (not always drawn)
    this.timer = 0;
  }

  /** A failure the widget itself showed and posted: not posted again while it is shown. */
  told(message) {
    this.posted.add(message);
  }

  /** A view's problem (bpe-problem): posted now, though the view may not draw it. */
  tell(message) {
    message = shorten(message);
    this.posted.add(message);
    this.recent.add(message);
    this.host.error(message);
  }

  /** Read the failures shown in `node` (a view) whenever it changes. */
  watch(node) {
    new MutationObserver(() => {
      if (!this.timer) this.timer = setTimeout(() => this.scan(), 50);
    }).observe(node, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["hidden", "class", "data-state"] });
  }

  shownNodes(view) {
    const nodes = [...view.querySelectorAll(FAILURE_SELECTOR)];
    if (view.dataset.state === "error") nodes.push(...view.querySelectorAll("#compare-status"));
    return nodes;
  }

  scan() {
    this.timer = 0;
    const view = this.currentView();
    if (!view) return;
    const shown = new Set();
    for (const node of this.shownNodes(view)) {
      if (node.closest("[hidden]") || node.closest(".hint")) continue;
      const text = shorten((node.textContent || "").replace(/\s+/g, " ").trim());
      if (!text) continue;
      shown.add(text);
      if (!this.posted.has(text)) { this.posted.add(text); this.host.error(text); }
    }
    // A failure no longer shown may be told again when it comes back.
    for (const text of [...this.posted]) if (!shown.has(text) && !this.recent.has(text)) this.posted.delete(text);
    this.recent.clear();
  }
}
