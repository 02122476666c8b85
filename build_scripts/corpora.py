"""Build plain-text corpora from Debian packages, for tests and benchmarks.

Usage: .venv/bin/python build_scripts/corpora.py [--cache DIR] [--force]
From Python: build() -> {name: Path}; the tests' `corpora` fixture calls it.

The machine reaches Debian's archive but not the web, and these packages hold
freely licensed text in many languages. Each is fetched with `apt-get
download` (running `apt-get update` first if apt knows no packages yet), kept
under .cache/corpora/debs/, and read straight out of `dpkg-deb --fsys-tarfile`
without being installed or unpacked to disk.

Outputs in the cache folder (UTF-8, "\\n" line ends):
  kjv.txt           King James Bible, one verse a line, reference dropped   public domain
  pydocs.txt        Python 3.11's reST documentation sources, concatenated   PSF-2.0
  lang/<code>.txt   one paragraph a line, for ar en hi ja ko ru vi zh         see manifest
  multilingual.txt  the first 256 KiB (UTF-8) of each lang/<code>.txt,
                    languages in that order, a blank line between them
  manifest.json     package versions, licences, and each output's size and sha256

HTML becomes text with html.parser: code blocks (pre, screen, programlisting),
scripts and page chrome are dropped, and a paragraph is kept only when at
least half its letters are in the language's script (translations leave
some paragraphs in English). Duplicate paragraphs are kept once.

A second run reads manifest.json, checks the outputs' hashes and returns at
once. Bump FORMAT when the extraction changes, so caches rebuild.
"""

import argparse
import contextlib
import hashlib
import html.parser
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = ROOT / ".cache" / "corpora"
FORMAT = 1

MULTILINGUAL_BUDGET = 256 * 1024  # UTF-8 bytes per language in multilingual.txt
LANGUAGES = ("ar", "en", "hi", "ja", "ko", "ru", "vi", "zh")

HANDBOOK = "debian-handbook"
HANDBOOK_DIRS = {"ar": "ar-MA", "en": "en-US", "ja": "ja-JP", "ko": "ko-KR", "ru": "ru-RU",
                 "vi": "vi-VN", "zh": "zh-CN"}
LIBREOFFICE = {"hi": ("libreoffice-help-hi", "hi"), "ja": ("libreoffice-help-ja", "ja"),
               "ko": ("libreoffice-help-ko", "ko"), "ru": ("libreoffice-help-ru", "ru"),
               "vi": ("libreoffice-help-vi", "vi"), "zh": ("libreoffice-help-zh-cn", "zh-CN")}
PACKAGES = ("bible-kjv", "bible-kjv-text", "python3.11-doc", HANDBOOK,
            *(package for package, _ in LIBREOFFICE.values()))
LICENCES = {
    "bible-kjv-text": "public domain (King James Version)",
    "bible-kjv": "GPL-2+ (the `bible` reader program, used only to print the text)",
    "python3.11-doc": "PSF-2.0",
    HANDBOOK: "GPL-2+ or CC-BY-SA-3.0 (The Debian Administrator's Handbook)",
    **{package: "MPL-2.0 (LibreOffice help)" for package, _ in LIBREOFFICE.values()},
}

# Letters of each language's script; a kept paragraph has at least half its letters here.
_SCRIPT = {
    "ar": "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff",
    "hi": "\u0900-\u097f\ua8e0-\ua8ff",
    "ja": "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f",
    "ko": "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af",
    "ru": "\u0400-\u052f",
    "zh": "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
    # Vietnamese is Latin: its tell is the many letters with diacritics. A
    # quarter of them would be unusual in English, ordinary in Vietnamese.
    "vi": "\u00c0-\u024f\u1ea0-\u1ef9",
    "en": "A-Za-z",
}
_SHARE = {"vi": 0.12, "en": 0.98}  # the rest: 0.5
_SCRIPT_RE = {code: re.compile(f"[{chars}]") for code, chars in _SCRIPT.items()}
_LETTER_RE = re.compile(r"[^\W\d_]")
MIN_PARAGRAPH = 8  # characters; shorter strings are UI labels, not prose

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_BLOCK = {"p", "div", "li", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "tr", "br",
          "blockquote", "caption", "table", "ul", "ol", "dl", "section", "article", "figcaption", "hr"}
_SKIP = {"pre", "script", "style", "head", "header", "footer", "nav", "aside", "noscript", "button",
         "textarea", "select", "svg", "math"}
_SKIP_CLASSES = {"screen", "programlisting", "bascode", "code", "debug", "literallayout", "synopsis"}


class _TextExtractor(html.parser.HTMLParser):
    """Paragraphs of visible prose, one string each, in document order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paragraphs = []
        self._buffer = []
        self._stack = []  # [(tag, skips)] for open non-void elements
        self._skipping = 0

    def _flush(self):
        text = " ".join("".join(self._buffer).split())
        self._buffer = []
        if text:
            self.paragraphs.append(text)

    def handle_starttag(self, tag, attrs):
        if tag in _BLOCK:
            self._flush()
        if tag in _VOID:
            return
        classes = set()
        for name, value in attrs:
            if name == "class" and value:
                classes.update(value.split())
        skips = tag in _SKIP or bool(classes & _SKIP_CLASSES)
        self._stack.append((tag, skips))
        self._skipping += skips

    def handle_startendtag(self, tag, attrs):
        if tag in _BLOCK:
            self._flush()

    def handle_endtag(self, tag):
        if tag in _BLOCK:
            self._flush()
        # Unclosed elements (HTML allows them) are closed by their parent's end tag.
        if any(open_tag == tag for open_tag, _ in self._stack):
            while self._stack:
                open_tag, skips = self._stack.pop()
                self._skipping -= skips
                if open_tag == tag:
                    break

    def handle_data(self, data):
        if not self._skipping:
            self._buffer.append(data)

    def close(self):
        super().close()
        self._flush()


def html_paragraphs(markup):
    """The prose paragraphs of an HTML page, whitespace collapsed.

    >>> html_paragraphs("<p>Hi <b>there</b></p><pre>code</pre><div>next</div>")
    ['Hi there', 'next']
    """
    extractor = _TextExtractor()
    extractor.feed(markup)
    extractor.close()
    return extractor.paragraphs


def in_language(paragraph, code):
    """Whether a paragraph is prose mostly in the language's script.

    >>> in_language("Привет, мир! Hello", "ru"), in_language("Hello, world", "ru")
    (True, False)
    """
    if len(paragraph) < MIN_PARAGRAPH:
        return False
    letters = len(_LETTER_RE.findall(paragraph))
    if not letters:
        return False
    return len(_SCRIPT_RE[code].findall(paragraph)) >= _SHARE.get(code, 0.5) * letters


# ------------------------------------------------------------------ packages

def _run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, **kwargs)


def download(packages, debs, log):
    """Each package's .deb in debs/, fetched with apt-get download when missing."""
    debs.mkdir(parents=True, exist_ok=True)
    found = {package: _find_deb(debs, package) for package in packages}
    missing = [package for package, path in found.items() if path is None]
    if missing:
        log(f"[corpora] apt-get download {' '.join(missing)}")
        try:
            _apt_download(missing, debs)
        except subprocess.CalledProcessError as first:
            # A fresh container has no package lists yet.
            if os.geteuid() != 0:
                raise SystemExit(
                    f"[corpora] apt-get download failed: {first.stderr.decode(errors='replace').strip()}\n"
                    "Run `sudo apt-get update` and try again."
                ) from None
            log("[corpora] apt-get update")
            _run(["apt-get", "update", "-qq"])
            _apt_download(missing, debs)
        found = {package: _find_deb(debs, package) for package in packages}
        still = [package for package, path in found.items() if path is None]
        if still:
            raise SystemExit(f"[corpora] apt-get download did not produce {still} in {debs}")
    return found


def _apt_download(packages, debs):
    # As root apt drops to the `_apt` user, which cannot write here; the
    # sandbox option keeps it from warning about that.
    options = ["-o", "APT::Sandbox::User=root"] if os.geteuid() == 0 else []
    _run(["apt-get", "download", "-q", *options, *packages], cwd=debs)


def _find_deb(debs, package):
    matches = sorted(debs.glob(f"{package}_*.deb"))
    return matches[-1] if matches else None


def deb_version(deb):
    return _run(["dpkg-deb", "-f", str(deb), "Version"]).stdout.decode().strip()


def deb_files(deb, wanted):
    """Yield (path, bytes) for regular files in a .deb whose path wanted(path) accepts.

    Paths look like 'usr/share/doc/...' (no leading './').
    """
    process = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    try:
        with tarfile.open(fileobj=process.stdout, mode="r|") as archive:
            for member in archive:
                path = member.name.removeprefix("./")
                if member.isfile() and wanted(path):
                    yield path, archive.extractfile(member).read()
    finally:
        process.stdout.close()
        if process.wait() != 0:
            raise SystemExit(f"[corpora] dpkg-deb --fsys-tarfile {deb} failed")


# ------------------------------------------------------------------ texts

def kjv_text(debs, scratch):
    """Every verse, one a line, printed by the package's own `bible` reader."""
    for package in ("bible-kjv", "bible-kjv-text"):
        for path, data in deb_files(debs[package], lambda p: p in ("usr/bin/bible",) or p.startswith("usr/lib/bible.data")):
            target = scratch / Path(path).name
            target.write_bytes(data)
            target.chmod(0o755)
    result = _run([str(scratch / "bible"), "-f", "-p", str(scratch), "gen1:1-rev22:21"])
    verses = []
    for line in result.stdout.decode("utf-8").splitlines():
        # "Ge1:1 In the beginning ..." -> the verse alone
        reference, _, verse = line.partition(" ")
        if verse.strip():
            verses.append(verse.strip())
    if len(verses) != 31102:
        raise SystemExit(f"[corpora] the bible reader printed {len(verses)} verses, expected 31102")
    return "\n".join(verses) + "\n"


def pydocs_text(debs):
    prefix = "usr/share/doc/python3.11/html/_sources/"
    files = dict(deb_files(debs["python3.11-doc"], lambda p: p.startswith(prefix) and p.endswith(".txt")))
    parts = []
    for path in sorted(files):
        text = files[path].decode("utf-8").replace("\r\n", "\n")
        parts.append(text if text.endswith("\n") else text + "\n")
    return "\n".join(parts)


def html_sources(deb, prefix):
    """[(path, paragraphs)] for the HTML files under prefix, sorted by path."""
    pages = dict(deb_files(deb, lambda p: p.startswith(prefix) and p.endswith(".html")))
    return [(path, html_paragraphs(pages[path].decode("utf-8", "replace"))) for path in sorted(pages)]


def language_text(code, debs):
    """One language's paragraphs, a line each: handbook and help pages, alternating."""
    sources = []  # [[paragraph]] per source package
    if code in HANDBOOK_DIRS:
        prefix = f"usr/share/doc/debian-handbook/html/{HANDBOOK_DIRS[code]}/"
        sources.append([p for _, pars in html_sources(debs[HANDBOOK], prefix) for p in pars])
    if code in LIBREOFFICE:
        package, folder = LIBREOFFICE[code]
        prefix = f"usr/share/libreoffice/help/{folder}/text/"
        sources.append([p for _, pars in html_sources(debs[package], prefix) for p in pars])
    kept = [[p for p in source if in_language(p, code)] for source in sources]
    # Alternate between sources so any prefix of the file mixes both styles.
    seen = set()
    lines = []
    longest = max(len(source) for source in kept)
    for i in range(longest):
        for source in kept:
            if i < len(source) and source[i] not in seen:
                seen.add(source[i])
                lines.append(source[i])
    return "\n".join(lines) + "\n"


def head_bytes(text, budget):
    """The whole lines of text that fit in budget UTF-8 bytes."""
    out = []
    used = 0
    for line in text.splitlines(keepends=True):
        size = len(line.encode("utf-8"))
        if used + size > budget:
            break
        out.append(line)
        used += size
    return "".join(out)


# ------------------------------------------------------------------ build

def _outputs(cache):
    paths = {"kjv": cache / "kjv.txt", "pydocs": cache / "pydocs.txt",
             "multilingual": cache / "multilingual.txt"}
    paths.update({code: cache / "lang" / f"{code}.txt" for code in LANGUAGES})
    return paths


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _up_to_date(cache):
    manifest_path = cache / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text("utf-8"))
    except (OSError, ValueError):
        return False
    if manifest.get("format") != FORMAT:
        return False
    for name, path in _outputs(cache).items():
        record = manifest.get("outputs", {}).get(name)
        if not record or not path.exists() or path.stat().st_size != record["bytes"] \
                or _sha256(path) != record["sha256"]:
            return False
    return True


@contextlib.contextmanager
def _lock(cache):
    # Two test sessions (or a test and a benchmark) may build at once.
    import fcntl

    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(text.encode("utf-8"))
    os.replace(partial, path)


def build(cache=None, force=False, log=None):
    """Build (or find) the corpora; returns {name: Path} for kjv, pydocs, multilingual and each language.

    >>> paths = build()  # doctest: +SKIP
    >>> paths["multilingual"].name  # doctest: +SKIP
    'multilingual.txt'
    """
    cache = Path(cache or os.environ.get("BPELAB_CORPORA_DIR") or DEFAULT_CACHE)
    log = log or (lambda message: print(message, file=sys.stderr, flush=True))
    with _lock(cache):
        if not force and _up_to_date(cache):
            return _outputs(cache)
        start = time.perf_counter()
        debs = download(PACKAGES, cache / "debs", log)
        texts = {}
        with tempfile.TemporaryDirectory(prefix="bpelab-kjv-") as scratch:
            texts["kjv"] = kjv_text(debs, Path(scratch))
        log("[corpora] kjv done")
        texts["pydocs"] = pydocs_text(debs)
        log("[corpora] pydocs done")
        for code in LANGUAGES:
            texts[code] = language_text(code, debs)
            log(f"[corpora] {code}: {len(texts[code].encode('utf-8')):,} bytes")
        texts["multilingual"] = "\n".join(head_bytes(texts[code], MULTILINGUAL_BUDGET) for code in LANGUAGES)
        paths = _outputs(cache)
        outputs = {}
        for name, path in paths.items():
            _write(path, texts[name])
            outputs[name] = {"path": str(path.relative_to(cache)), "bytes": path.stat().st_size,
                             "chars": len(texts[name]), "sha256": _sha256(path)}
        manifest = {
            "format": FORMAT,
            "packages": {package: {"file": deb.name, "version": deb_version(deb), "licence": LICENCES[package]}
                         for package, deb in sorted(debs.items())},
            "outputs": outputs,
        }
        _write(cache / "manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
        log(f"[corpora] built {len(outputs)} files in {cache} in {time.perf_counter() - start:.1f} s")
        return paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None, help=f"output folder (default {DEFAULT_CACHE})")
    parser.add_argument("--force", action="store_true", help="rebuild even when the cache is up to date")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    paths = build(args.cache, force=args.force)
    for name, path in paths.items():
        print(f"{name:13} {path.stat().st_size:>12,} bytes  {path}")
    print(f"({time.perf_counter() - start:.2f} s)")


if __name__ == "__main__":
    main()
