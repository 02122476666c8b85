// <bpe-share-link>: "Copy link" and "Copy embed code" for a view, made from the view's
// state through its one mapping (share/share.js). A state too long for a link is offered
// as a lesson file (*.bpelab.json) instead, never as a shorter link that shows something
// else; the status line says what a link cannot carry.
//
//   import "./components/share-link.js";
//   const share = document.createElement("bpe-share-link");
//   share.connect(viewElement, "explore");   // again whenever the route changes
//
// It reads view.state (share/states.js) at each click, so nothing goes stale.
import { el, fmt } from "../dom.js";
import { loadSamples } from "../samples.js";
import { shareOf, embedCode } from "../share/share.js";
import { MAX_LINK } from "../share/link.js";
import { lessonBytes } from "../share/lesson.js";

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false; // no permission (a frame without clipboard-write, an old browser): the field below is selected instead
  }
}

/** Offer bytes as a download named `name`. */
export function download(name, bytes, type = "application/json") {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = el("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

class ShareLink extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.classList.add("share-link");
    this.copyButton = el("button", { type: "button", className: "secondary", onclick: () => this.copyLink() }, "Copy link");
    this.embedButton = el("button", { type: "button", className: "secondary", onclick: () => this.copyEmbed() }, "Copy embed code");
    this.status = el("span", { className: "meta share-status", role: "status" });
    this.field = el("textarea", { rows: "2", readonly: true, className: "share-field", "aria-label": "Link to copy", hidden: true });
    this.download = el("button", { type: "button", className: "secondary share-download", hidden: true, onclick: () => this.downloadLesson() },
      "Download the lesson file");
    this.append(el("span", { className: "share-actions row wrap" }, this.copyButton, this.embedButton, this.download, this.status), this.field);
    this.updateButtons();
  }

  /** Follow this view. */
  connect(view, route) {
    this.view = view;
    this.route = route;
    this.share = null;
    if (this.built) {
      this.status.textContent = "";
      this.field.hidden = true;
      this.download.hidden = true;
      this.updateButtons();
    }
  }

  updateButtons() {
    this.embedButton.hidden = this.route === "vocab";
  }

  async current() {
    await this.view.settled?.();  // a view whose state waits on Python (the Train view's word counts)
    this.share = await shareOf(this.route, this.view.state, { pageUrl: location.href, samples: await loadSamples().catch(() => []) });
    return this.share;
  }

  /** What a link or embed leaves out, as one sentence (empty when it holds everything). */
  leftOut(share) {
    return share.notes.length ? ` It leaves out ${share.notes.join(", and ")}.` : "";
  }

  async copyLink() {
    const share = await this.current();
    if (share.href === null) {
      const why = share.documents ? "It holds several documents (the opened files), and a link holds one text"
        : `Its link would be ${fmt(share.length)} characters long, and a link holds at most ${fmt(MAX_LINK)}`;
      this.offerLesson(`${why}: download it as a lesson file and send that. `
        + "BPE Lab opens it with “Open a lesson file…” or when it is dropped on the page.", share);
      return;
    }
    this.download.hidden = true;
    await this.publish(share.href, "Link copied.", this.leftOut(share), "The link");
  }

  async copyEmbed() {
    const share = await this.current();
    const embed = embedCode(share, location.href);
    if (!embed) return;
    this.download.hidden = !embed.needsLesson;
    const done = embed.needsLesson
      ? `Embed code copied: it reads the lesson file ${share.lessonName}, too long for a link. Download it and put it next to your course page.`
      : "Embed code copied: paste it into a course page's HTML.";
    await this.publish(embed.code, done, this.leftOut(share), "The embed code");
  }

  offerLesson(message, share) {
    this.field.hidden = true;
    this.download.hidden = false;
    this.status.textContent = `${message}${this.leftOut(share)}`;
    this.dataset.href = "";
    this.download.focus();
  }

  async publish(value, done, notes, what) {
    this.field.value = value;
    this.dataset.href = value; // for tests and scripts
    if (await copy(value)) {
      this.field.hidden = true;
      this.status.textContent = notes ? `${done}${notes}` : `${done} It reopens exactly this view.`;
    } else {
      this.field.hidden = false;
      this.field.focus();
      this.field.select();
      this.status.textContent = `${what} could not be copied here: it is selected below; press Ctrl+C (⌘C).${notes}`;
    }
  }

  downloadLesson() {
    if (!this.share) return;
    download(this.share.lessonName, lessonBytes(this.share.lesson));
  }
}

if (!customElements.get("bpe-share-link")) customElements.define("bpe-share-link", ShareLink);
