// <bpe-share-link>: "Copy link" for the view on screen. The link is this page's
// address + #/<route>?<the view's params>, with the text when it is small; the
// control says what the link leaves out and, when the text is too long for a
// link, offers it as a file. "Copy embed code" gives the iframe for a course page.
//
//   import "./components/share-link.js";
//   const share = document.createElement("bpe-share-link");
//   share.connect(viewElement, "explore");   // again whenever the route changes
//
// It reads view.params (and, when params leave the text out, view.fullText or
// view.text if the view has it as a string, and view.shareNotes: extra sentences
// on what a link cannot hold).
import { el, fmt } from "../dom.js";
import { makeHash } from "../views.js";

// Longer links are cut by mail clients, chat apps and some servers.
export const MAX_LINK = 6000;
// The embed's name for each route that has one (vocab has no widget).
const EMBED_VIEWS = { explore: "explorer", compare: "compare", train: "train", encode: "encode" };

/**
 * The share link for a route and params: {href, omitted: string|null (the text left out), notes: string[]}.
 * @param {string} pageUrl  the app's address (any hash is replaced)
 */
export function shareLink(pageUrl, route, params, fullText = null) {
  const url = new URL(pageUrl);
  const kept = { ...params };
  let omitted = null;
  if (typeof kept.text !== "string" && typeof fullText === "string" && fullText !== "") kept.text = fullText;
  url.hash = makeHash(route, kept);
  if (typeof kept.text === "string" && url.href.length > MAX_LINK) {
    omitted = kept.text;
    delete kept.text;
    url.hash = makeHash(route, kept);
  }
  return { href: url.href, omitted, params: kept };
}

/** The iframe snippet that shows this route and params in a course page, or null for a route with no widget. */
export function embedSnippet(appUrl, route, params) {
  const view = EMBED_VIEWS[route];
  if (!view) return null;
  const url = new URL("embed.html", appUrl);
  const query = new URLSearchParams({ view, ...params });
  const text = query.get("text");
  query.delete("text");
  url.search = query.toString().replace(/\+/g, "%20");
  // The text goes after "#" so that it never reaches the widget's server.
  if (text !== null) url.hash = new URLSearchParams({ text }).toString().replace(/\+/g, "%20");
  const height = { explorer: 560, compare: 420, train: 560, encode: 420 }[view];
  const attr = (value) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  return `<iframe src="${attr(url.href)}" title="BPE Lab: ${view}" width="100%" height="${height}" `
    + `loading="lazy" allow="clipboard-write" style="border:0"></iframe>`;
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false; // no permission (a frame without clipboard-write, an old browser): the field below is selected instead
  }
}

class ShareLink extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.classList.add("share-link");
    this.copyButton = el("button", { type: "button", className: "secondary", onclick: () => this.copyLink() }, "Copy link");
    this.embedButton = el("button", { type: "button", className: "secondary", onclick: () => this.copyEmbed() }, "Copy embed code");
    this.status = el("span", { className: "meta share-status", role: "status" });
    this.field = el("input", { type: "text", readonly: true, className: "share-field", "aria-label": "Link to copy", hidden: true });
    this.download = el("button", { type: "button", className: "link share-download", hidden: true, onclick: () => this.downloadText() },
      "Download the text as a file");
    this.append(el("span", { className: "share-actions row wrap" }, this.copyButton, this.embedButton, this.status), this.field, this.download);
    this.updateButtons();
  }

  /** Follow this view (its params are read at each click, so nothing goes stale). */
  connect(view, route) {
    this.view = view;
    this.route = route;
    this.omitted = null;
    if (this.built) {
      this.status.textContent = "";
      this.field.hidden = true;
      this.download.hidden = true;
      this.updateButtons();
    }
  }

  updateButtons() {
    this.embedButton.hidden = !EMBED_VIEWS[this.route];
  }

  current() {
    const params = this.view?.params || {};
    const text = [this.view?.fullText, this.view?.text].find((t) => typeof t === "string") ?? null;
    return shareLink(location.href, this.route, params, text);
  }

  /** What a link leaves out, as one sentence (empty when it holds everything). */
  leftOut(link) {
    const notes = [];
    if (link.omitted !== null) {
      notes.push(`It leaves out the text (${fmt([...link.omitted].length)} characters, too long for a link): `
        + "download it, then open the file in the view.");
    }
    for (const note of this.view?.shareNotes || []) notes.push(note);
    return notes.join(" ");
  }

  async copyLink() {
    const link = this.current();
    this.omitted = link.omitted;
    this.download.hidden = link.omitted === null;
    await this.publish(link.href, "Link copied.", this.leftOut(link), "The link");
  }

  async copyEmbed() {
    const link = this.current();
    const snippet = embedSnippet(location.href, this.route, link.params);
    if (!snippet) return;
    this.omitted = link.omitted;
    this.download.hidden = link.omitted === null;
    await this.publish(snippet, "Embed code copied: paste it into a course page's HTML.", this.leftOut(link), "The embed code");
  }

  async publish(value, done, notes, what) {
    this.field.value = value;
    this.dataset.href = value; // for tests and scripts
    if (await copy(value)) {
      this.field.hidden = true;
      this.status.textContent = notes ? `${done} ${notes}` : `${done} It reopens exactly this view.`;
    } else {
      this.field.hidden = false;
      this.field.focus();
      this.field.select();
      this.status.textContent = `${what} could not be copied here: it is selected below; press Ctrl+C (⌘C). ${notes}`.trim();
    }
  }

  downloadText() {
    if (this.omitted === null) return;
    const url = URL.createObjectURL(new Blob([this.omitted], { type: "text/plain;charset=utf-8" }));
    const a = el("a", { href: url, download: `bpe-lab-${this.route}-text.txt`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

if (!customElements.get("bpe-share-link")) customElements.define("bpe-share-link", ShareLink);
