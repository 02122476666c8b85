"""Make web/samples/aligned/: the same handbook sections in several languages (what a tokenizer costs each).

Usage: .venv/bin/python build_scripts/make_aligned.py [--cache .cache/aligned]

The Debian Administrator's Handbook (Debian package `debian-handbook`,
GPL-2+ or CC-BY-SA-3.0) ships its translations as HTML with shared file names
and section ids, so one section can be taken in every language. This script
downloads the package with `apt-get download`, unpacks it with `dpkg-deb -x`,
converts each page to text with html.parser (code listings and screens
dropped) and keeps, in book order, the sections that every chosen language
has translated, until the English text reaches TARGET_CHARS. It writes one
`<code>.txt` per language (the SAME sections, in the same order) and
`index.json` with the source, the section ids and the licence.

The output is committed, so building the site needs none of this; running the
script again gives the same files.
"""

import argparse
import html.parser
import json
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "web" / "samples" / "aligned"
PACKAGE = "debian-handbook"
HANDBOOK = "usr/share/doc/debian-handbook/html"
LICENCE = "GPL-2.0+ or CC-BY-SA-3.0 (© 2003–2015 Raphaël Hertzog, Roland Mas, Freexian SARL and the translators)"
TARGET_CHARS = 3_000  # English characters: a few KB per language, quick to encode with four tokenizers
SECTION_CHARS = (200, 1_600)  # English size of a section worth taking: not a stub, not a chapter

# code, handbook folder, name, script of most letters (None: Latin, checked by "differs from English")
LANGUAGES = [
    ("en", "en-US", "English", None),
    ("vi", "vi-VN", "Vietnamese", None),
    ("ar", "ar-MA", "Arabic", "ARABIC"),
    ("zh", "zh-CN", "Chinese (Simplified)", "CJK"),
    ("ru", "ru-RU", "Russian", "CYRILLIC"),
    ("ja", "ja-JP", "Japanese", "JAPANESE"),
    ("fa", "fa-IR", "Persian", "ARABIC"),
    ("de", "de-DE", "German", None),
    ("fr", "fr-FR", "French", None),
    ("es", "es-ES", "Spanish", None),
    ("tr", "tr-TR", "Turkish", None),
    ("id", "id-ID", "Indonesian", None),
]


class _Sections(html.parser.HTMLParser):
    """Paragraphs and titles of one page, grouped by the section id they fall under.

    A section starts at a title holding `<a id="...">`; its text is its title
    and its paragraphs (<p>, publican's <div class="para">) up to the next
    titled section, nested or not. Code listings, screens, tables, notes'
    boxes and navigation are skipped: they are commands, not the language.
    """

    SKIP_TAGS = {"pre", "script", "style", "table"}
    SKIP_CLASSES = {"toc", "docnav", "screen", "programlisting", "variablelist", "literallayout",
                    "itemizedlist", "orderedlist", "note", "tip", "important", "warning", "sidebar", "figure",
                    "indexterm", "footnotes", "footnote"}
    TITLES = {"h1", "h2", "h3", "h4", "h5"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = {}  # id -> [title, paragraph, ...]
        self.order = []
        self.current = None
        self.stack = []  # (tag, skips, starts_block)
        self.buffer = None
        self.skip_depth = 0
        self.in_title = False
        self.pending_id = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and self.in_title and self.buffer is not None:
            self.pending_id = self.pending_id or attrs.get("id")  # <a id="sect.x"> names the section
        classes = set((attrs.get("class") or "").split())
        skips = tag in self.SKIP_TAGS or bool(classes & self.SKIP_CLASSES)
        starts = self.buffer is None and self.skip_depth == 0 and not skips and (
            tag in self.TITLES or tag == "p" or (tag == "div" and "para" in classes))
        self.stack.append((tag, skips, starts))
        self.skip_depth += skips
        if starts:
            self.buffer = []
            self.in_title = tag in self.TITLES
            self.pending_id = None

    def handle_startendtag(self, tag, attrs):
        if tag == "a" and self.in_title and self.buffer is not None:
            self.pending_id = self.pending_id or dict(attrs).get("id")

    def handle_endtag(self, tag):
        if not any(open_tag == tag for open_tag, _, _ in self.stack):
            return  # a stray end tag: ignore rather than unwind everything
        while self.stack:
            open_tag, skips, starts = self.stack.pop()
            self.skip_depth -= skips
            if starts:
                self._finish_block()
            if open_tag == tag:
                break

    def _finish_block(self):
        text = re.sub(r"\s+", " ", "".join(self.buffer)).strip()
        if self.in_title:
            text = re.sub(r"^[A-Z0-9]+(\.[0-9]+)*\.\s*", "", text)  # "B.3.1. Title" -> "Title"
            if self.pending_id and self.pending_id not in self.sections:
                self.current = self.pending_id
                self.sections[self.current] = []
                self.order.append(self.current)
            else:
                self.current = None  # a title without an id (an example, a note): not a section
        if text and self.current is not None:
            self.sections[self.current].append(text)
        self.buffer = None
        self.in_title = False

    def handle_data(self, data):
        if self.buffer is not None and self.skip_depth == 0:
            self.buffer.append(data)


def page_sections(path):
    """{section id: [title, paragraphs...]} and the ids in page order."""
    parser = _Sections()
    parser.feed(path.read_text("utf-8"))
    return parser.sections, parser.order


def book_pages(folder):
    """The pages of one translation in reading order (following rel="next" from index.html)."""
    order, page, seen = [], "index.html", set()
    while page and page not in seen:
        seen.add(page)
        order.append(page)
        match = re.search(r'<link rel="next" href="([^"#]+)"', (folder / page).read_text("utf-8"))
        page = match.group(1) if match else None
    return order


def script_share(text, script):
    """The share of letters in `text` whose Unicode name says they belong to `script`."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    names = ("HIRAGANA", "KATAKANA", "CJK") if script == "JAPANESE" else (script,)
    return sum(1 for c in letters if unicodedata.name(c, "").startswith(names)) / len(letters)


def translated(paragraphs, english, script):
    """Whether a section's paragraphs are a translation, not English left in place."""
    if len(paragraphs) != len(english):
        return False  # a different structure: the paragraphs would not align
    if any(a == b for a, b in zip(paragraphs, english)):
        return False
    return script is None or script_share(" ".join(paragraphs), script) >= 0.6


def choose_sections(root, languages=LANGUAGES, target=TARGET_CHARS):
    """[(page, section id)] in book order that every language has translated, about `target` English chars."""
    base = root / HANDBOOK
    english_folder = next(folder for _code, folder, _name, _script in languages if folder == "en-US")
    chosen, total = [], 0
    for page in book_pages(base / english_folder):
        english, order = page_sections(base / english_folder / page)
        others = [(page_sections(base / folder / page)[0], script)
                  for _code, folder, _name, script in languages if folder != english_folder]
        for section in order:
            paragraphs = english[section]
            size = sum(len(p) for p in paragraphs)
            if len(paragraphs) < 2 or not SECTION_CHARS[0] <= size <= SECTION_CHARS[1]:
                continue
            texts = [paragraphs] + [sections.get(section, []) for sections, _script in others]
            if any("://" in p or "www." in p for text in texts for p in text):
                continue  # the site must hold no absolute URLs, not even in sample text
            if all(translated(sections.get(section, []), paragraphs, script) for sections, script in others):
                chosen.append((page, section))
                total += size
                if total >= target:
                    return chosen
    return chosen


def fetch_package(cache):
    """Download and unpack debian-handbook into cache/root; returns (root, .deb file name)."""
    root = cache / "root"
    cache.mkdir(parents=True, exist_ok=True)
    debs = sorted(cache.glob(f"{PACKAGE}_*.deb"))
    if not debs:
        subprocess.run(["apt-get", "download", PACKAGE], cwd=cache, check=True)
        debs = sorted(cache.glob(f"{PACKAGE}_*.deb"))
    if not (root / HANDBOOK).is_dir():
        subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(root)], check=True)
    return root, debs[-1].name


def write_aligned(root, deb_name, out=OUT):
    """Write <code>.txt for every language and index.json; returns the index."""
    chosen = choose_sections(root)
    if not chosen:
        raise SystemExit("no section is translated in every language; drop a language from LANGUAGES")
    out.mkdir(parents=True, exist_ok=True)
    version = deb_name.split("_")[1] if "_" in deb_name else "unknown"
    index = {
        "title": "The same sections of The Debian Administrator's Handbook in several languages",
        "source": f"Debian package {PACKAGE} {version}, /{HANDBOOK}/<language>/ "
                  "(titles and prose paragraphs; commands, listings, lists and notes removed)",
        "licence": LICENCE,
        "sections": [{"page": page, "id": section} for page, section in chosen],
        "languages": [],
    }
    cache = {}
    for code, folder, name, _script in LANGUAGES:
        paragraphs = []
        for page, section in chosen:
            if (folder, page) not in cache:
                cache[folder, page] = page_sections(root / HANDBOOK / folder / page)[0]
            paragraphs += cache[folder, page][section]
        text = "\n\n".join(paragraphs) + "\n"
        (out / f"{code}.txt").write_text(text, "utf-8", newline="")
        index["languages"].append({
            "code": code, "name": name, "handbook": folder, "file": f"{code}.txt",
            "characters": len(text), "bytes": len(text.encode("utf-8")), "words": len(text.split()),
        })
    (out / "index.json").write_text(json.dumps(index, ensure_ascii=False, indent=1) + "\n", "utf-8")
    return index


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "aligned",
                        help="where the .deb file is downloaded and unpacked")
    args = parser.parse_args(argv)
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        raise SystemExit("make_aligned.py needs apt-get and dpkg-deb (Debian or Ubuntu)")
    index = write_aligned(*fetch_package(args.cache.resolve()))
    print(f"{len(index['sections'])} sections: {', '.join(s['id'] for s in index['sections'])}")
    for lang in index["languages"]:
        print(f"{lang['file']:8} {lang['name']:22} {lang['characters']:>7,} chars {lang['bytes']:>7,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
