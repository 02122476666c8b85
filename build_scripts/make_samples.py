"""Make web/samples/: the textbooks' and the seeds' worked examples, real texts in several scripts, an index.

Usage: .venv/bin/python build_scripts/make_samples.py [--cache .cache/samples]

Real texts come from Debian packages, fetched with `apt-get download` and
unpacked with `dpkg-deb -x` (nothing is installed):
  bible-kjv-text + bible-kjv   the King James Bible (public domain), printed by the package's `bible` program
  debian-handbook              The Debian Administrator's Handbook, in Russian, Chinese, Arabic and
                               Japanese (GPL-2+ or CC-BY-SA-3.0), converted from HTML with html.parser
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
sys.path.insert(0, str(ROOT / "py"))
from bpelab.counts import check_counts, to_tsv  # noqa: E402
OUT = ROOT / "web" / "samples"
DEBIAN_PACKAGES = ("bible-kjv-text", "bible-kjv", "debian-handbook")
HANDBOOK = "usr/share/doc/debian-handbook/html"
HANDBOOK_LICENCE = "GPL-2.0+ or CC-BY-SA-3.0 (© 2003–2015 Raphaël Hertzog, Roland Mas, Freexian SARL and the translators)"
KJV_CHARS = 200_000  # characters of the English sample: big enough to learn from, small enough to load at once

GALLERY = "From the textbooks"

# Published worked examples. Only facts are taken from each source: its corpus
# (as text, or as words with counts), the settings that reproduce it, and what
# it prints; tests/textbooks.py holds those printed numbers and the tests that
# check them (in Python and on the site). A counts sample is written as a .tsv
# word-count table, the file `bpelab train --counts` reads.
TEXTBOOK_SAMPLES = [
    {
        "id": "cs336-bpe-example",
        "title": "low, lower, widest, newest: CS336's worked example (word counts)",
        "language": "English",
        "counts": {"low": 5, "lower": 2, "widest": 3, "newest": 6},
        "source": "Stanford CS336, Assignment 1 (basics) handout, version 1.0.2, Spring 2025",
        "section": "§2.4 BPE Tokenizer Training, Example (bpe_example)",
        "link": "github.com/stanford-cs336/assignment1-basics, cs336_spring2025_assignment1_basics.pdf",
        "licence": "MIT (the assignment's repository); the word counts, settings and merges only",
        "note": "Words split on whitespace, with their counts; ties go to the greater pair. "
                "Twelve merges, from s + t to lowe + r; after six, newest is ne + west.",
        "view": "explorer",
        "settings": {"size_mode": "merges", "size": 12, "pretokenizer": "whitespace", "tie_break": "greater",
                     "min_count": 1, "special_tokens": ["<|endoftext|>"], "separator": "none"},
    },
    {
        "id": "hf-course-toy",
        "title": "hug, pug, pun, bun, hugs: the Hugging Face course's toy counts",
        "language": "English",
        "counts": {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
        "source": "Hugging Face LLM Course, chapter 6 (the Tokenizers library)",
        "section": "§5 Byte-Pair Encoding tokenization, Training algorithm",
        "link": "github.com/huggingface/course, chapters/en/chapter6/5.mdx",
        "licence": "Apache-2.0 (the course's repository); the word counts and merges only",
        "note": "Three merges: u + g (20), u + n (16), h + ug (15). The course starts from the seven letters "
                "it uses, so it writes a letter outside them as [UNK]; here every byte is a token.",
        "view": "explorer",
        "settings": {"size_mode": "merges", "size": 3, "pretokenizer": "whitespace", "tie_break": "first-seen",
                     "min_count": 1, "special_tokens": [], "separator": "none"},
    },
    {
        "id": "hf-course-corpus",
        "title": "Four sentences with GPT-2 pre-tokenization: the Hugging Face course's BPE",
        "language": "English",
        "text": "\n".join([
            "This is the Hugging Face Course.",
            "This chapter is about tokenization.",
            "This section shows several tokenizer algorithms.",
            "Hopefully, you will be able to understand how they are trained and generate tokens.",
        ]),
        "source": "Hugging Face LLM Course, chapter 6 (the Tokenizers library)",
        "section": "§5 Byte-Pair Encoding tokenization, Implementing BPE",
        "link": "github.com/huggingface/course, chapters/en/chapter6/5.mdx",
        "licence": "Apache-2.0 (the course's repository); the corpus, settings and merges only",
        "note": "Four documents, one per line, pre-tokenized as GPT-2 does; a tie goes to the pair found first. "
                "The course's vocabulary of 50 is <|endoftext|>, the 30 characters of the corpus and 19 merges: "
                "here, 256 bytes, 19 merges and <|endoftext|>. Its tokenize example: This is not a token.",
        "view": "explorer",
        "settings": {"size_mode": "merges", "size": 19, "pretokenizer": "gpt2", "tie_break": "first-seen",
                     "min_count": 1, "special_tokens": ["<|endoftext|>"], "separator": "line"},
    },
    {
        "id": "minbpe-wikipedia",
        "title": "aaabdaaabac with 3 merges: minbpe's quick start",
        "language": "Latin letters",
        "text": "aaabdaaabac",
        "source": "Andrej Karpathy, minbpe",
        "section": "README.md, quick start (the Wikipedia example)",
        "link": "github.com/karpathy/minbpe",
        "licence": "MIT; the text, settings and ids only",
        "note": "Raw bytes, three merges: the text encodes to 258 d 258 a c, ids 258, 100, 258, 97, 99. Merge 2 is a "
                "tie: minbpe's code takes the pair found first, aa + a; the README's story (Y = ab) is "
                "smaller-id's choice. Both end in the same ids.",
        "view": "explorer",
        "settings": {"size_mode": "merges", "size": 3, "pretokenizer": "bytes", "tie_break": "first-seen",
                     "min_count": 1, "special_tokens": [], "separator": "none"},
    },
    {
        "id": "minbpe-cl100k",
        "title": "hello123!!!? (안녕하세요!) 😉 in GPT-4's cl100k_base: minbpe's comparison",
        "language": "mixed (Latin, Hangul, emoji)",
        "text": "hello123!!!? (안녕하세요!) 😉",
        "source": "Andrej Karpathy, minbpe",
        "section": "README.md, inference: GPT-4 comparison",
        "link": "github.com/karpathy/minbpe",
        "licence": "MIT; the text and ids only",
        "note": "Encoded with cl100k_base: the twelve ids minbpe's README prints, "
                "15339, 4513, 12340, 30, 320, 31495, 230, 75265, 243, 92245, 16715, 57037.",
        "view": "encode",
        "tokenizer": "cl100k",
        "settings": {"size_mode": "vocab", "size": 1000, "pretokenizer": "cl100k", "tie_break": "greater",
                     "min_count": 1, "special_tokens": ["<|endoftext|>"], "separator": "none"},
    },
    {
        "id": "d2l-bpe",
        "title": "fast_, faster_, tall_, taller_: Dive into Deep Learning's BPE (word counts)",
        "language": "English",
        "counts": {"fast_": 4, "faster_": 3, "tall_": 5, "taller_": 4},
        "source": "Dive into Deep Learning (Zhang, Lipton, Li and Smola)",
        "section": "§15.6 Subword Embedding, 15.6.2 Byte Pair Encoding",
        "link": "github.com/d2l-ai/d2l-en, chapter_natural-language-processing-pretraining/subword-embedding.md",
        "licence": "CC BY-SA 4.0 (text), MIT-0 (code); the word counts and merges only",
        "note": "_ marks the end of a word. Ten merges, from t + a to fast + _; a tie goes to the pair found first. "
                "Then tallest_ is tall e s t _ and fatter_ is fa t t er_, as the book's greedy longest-match "
                "segmentation gives.",
        "view": "explorer",
        "settings": {"size_mode": "merges", "size": 10, "pretokenizer": "whitespace", "tie_break": "first-seen",
                     "min_count": 1, "special_tokens": [], "separator": "none"},
    },
]

# The seeds' toy corpora, with the settings that reproduce each seed's numbers.
TOY_SAMPLES = [
    {
        "id": "seed003-low-lower",
        "title": "low, lower, widest, newest (seed 003)",
        "language": "English",
        "text": ("low low low low low\n"
                 "lower lower widest widest widest\n"
                 "newest newest newest newest newest newest\n"),
        "source": "Seed 003: the example corpus from Sennrich et al. (2016), as three lines of running text",
        "licence": "a short quotation used for teaching",
        "note": "With vocabulary 265 and <|endoftext|>, training learns the eight merges of the seed.",
        "settings": {"size_mode": "vocab", "size": 265, "pretokenizer": "gpt2", "tie_break": "greater",
                     "min_count": 1, "special_tokens": ["<|endoftext|>"], "separator": "none"},
    },
    {
        "id": "seed004-walk",
        "title": "walk, walking, walked, talks (seed 004)",
        "language": "English",
        "text": " walk" * 5 + " walking" * 4 + " walked" * 3 + " talks" * 2,
        "source": "Seed 004, lesson 2.2: fourteen words, each with a leading space",
        "licence": "a short quotation used for teaching",
        "note": "The first merge is a + l with count 14, then the stem alk, then walk and walking.",
        "settings": {"size_mode": "merges", "size": 7, "pretokenizer": "whitespace", "tie_break": "first-seen",
                     "min_count": 1, "special_tokens": [], "separator": "none"},
    },
    {
        "id": "seed000-abab",
        "title": "abab / abac: two documents (seed 000)",
        "language": "Latin letters",
        "text": "abab\nabac",
        "source": "Seed 000 §3: train(['abab', 'abac'], 4), one document per line",
        "licence": "a short quotation used for teaching",
        "note": "(a, b) occurs 3 times and becomes 256; no pair is counted across the two documents.",
        "settings": {"size_mode": "merges", "size": 4, "pretokenizer": "bytes", "tie_break": "smaller-id",
                     "min_count": 2, "special_tokens": [], "separator": "line"},
    },
    {
        "id": "seed000-qx",
        "title": "qx beats un: frequency, not morphology (seed 000)",
        "language": "mixed (Latin, Telugu, emoji)",
        "text": "\n".join(["qx " * 30, "unhappiness", "ababab café café", "తెలుగు 🙂 తెలుగు 🙂"]),
        "source": "Seed 000 §4: the qx control, four documents, one per line",
        "licence": "a short quotation used for teaching",
        "note": "The first merge is (q, x): a frequent pair wins over a morpheme boundary.",
        "settings": {"size_mode": "merges", "size": 30, "pretokenizer": "bytes", "tie_break": "smaller-id",
                     "min_count": 2, "special_tokens": [], "separator": "line"},
    },
    {
        "id": "seed000-aaa",
        "title": "aaaaaa: overlapping pairs (seed 000)",
        "language": "Latin letters",
        "text": "aaa aaaa aaaaa aaaaaa",
        "source": "Seed 000 §1: with aaa the adjacent count is 2 but only one merge happens",
        "licence": "a short quotation used for teaching",
        "settings": {"size_mode": "merges", "size": 4, "pretokenizer": "whitespace", "tie_break": "greater",
                     "min_count": 1, "special_tokens": [], "separator": "none"},
    },
]

REAL_SAMPLES = [
    # id, title, language, handbook language code, the script most letters must be in, characters
    ("handbook-ru", "The Debian Administrator's Handbook (Russian)", "Russian", "ru-RU", "CYRILLIC", 100_000),
    ("handbook-zh", "The Debian Administrator's Handbook (Simplified Chinese)", "Chinese (Simplified)", "zh-CN",
     "CJK", 70_000),
    ("handbook-ar", "The Debian Administrator's Handbook (Arabic)", "Arabic", "ar-MA", "ARABIC", 100_000),
    ("handbook-ja", "The Debian Administrator's Handbook (Japanese)", "Japanese", "ja-JP", "JAPANESE", 70_000),
]


def fetch_packages(cache):
    """Download and unpack the Debian packages into cache/root; returns that folder."""
    root = cache / "root"
    if (root / "usr/lib/bible.data").exists() and (root / HANDBOOK).is_dir():
        return root
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", *DEBIAN_PACKAGES], cwd=cache, check=True)
    for deb in sorted(cache.glob("*.deb")):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    return root


def kjv_verses(root):
    """Every verse of the King James Bible as (reference, text), via the package's own reader."""
    output = subprocess.run(
        [str(root / "usr/bin/bible"), "-f", "-p", str(root / "usr/lib"), "gen1:1-rev22:21"],
        check=True, capture_output=True, text=True, encoding="utf-8",
    ).stdout
    verses = []
    for line in output.splitlines():
        match = re.match(r"^(\S+?\d+:\d+) (.*)$", line)
        if match:
            verses.append((match.group(1), match.group(2).strip()))
        elif line.strip() and verses:
            # `bible -f` wraps long verses; a continuation belongs to the verse before it.
            ref, text = verses[-1]
            verses[-1] = (ref, f"{text} {line.strip()}")
    return verses


def kjv_text(root, limit=None):
    """Running text: one verse per line, a blank line between chapters, no references."""
    lines = []
    chapter = None
    total = 0
    for ref, text in kjv_verses(root):
        this_chapter = ref.split(":")[0]
        if chapter is not None and this_chapter != chapter:
            lines.append("")
        chapter = this_chapter
        lines.append(text)
        total += len(text) + 1
        if limit is not None and total >= limit:
            break
    return "\n".join(lines) + "\n"


class _Paragraphs(html.parser.HTMLParser):
    """Collects the text of paragraphs (<p>, publican's <div class="para">) and titles.

    Code listings, screens, tables of contents and navigation are skipped:
    they are commands and links, not prose in the translation's language.
    """

    SKIP_TAGS = {"pre", "script", "style", "table"}
    SKIP_CLASSES = {"toc", "docnav", "screen", "programlisting", "variablelist", "literallayout"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paragraphs = []
        self.stack = []  # (tag, skips, starts_paragraph)
        self.buffer = None
        self.skip_depth = 0

    def handle_starttag(self, tag, attrs):
        classes = set((dict(attrs).get("class") or "").split())
        skips = tag in self.SKIP_TAGS or bool(classes & self.SKIP_CLASSES)
        starts = self.buffer is None and (tag in ("p", "h1", "h2", "h3") or (tag == "div" and "para" in classes))
        self.stack.append((tag, skips, starts))
        self.skip_depth += skips
        if starts:
            self.buffer = []

    def handle_startendtag(self, tag, attrs):
        pass  # <img/>, <br/>, <a id=""/> hold no text

    def handle_endtag(self, tag):
        if not any(open_tag == tag for open_tag, _, _ in self.stack):
            return  # a stray end tag: ignore rather than unwind everything
        while self.stack:
            open_tag, skips, starts = self.stack.pop()
            self.skip_depth -= skips
            if starts:
                text = re.sub(r"\s+", " ", "".join(self.buffer)).strip()
                if text:
                    self.paragraphs.append(text)
                self.buffer = None
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.buffer is not None and self.skip_depth == 0:
            self.buffer.append(data)


def _script_share(text, script):
    """The share of letters in `text` whose Unicode name says they belong to `script`."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    if script == "JAPANESE":
        names = ("HIRAGANA", "KATAKANA", "CJK")
    else:
        names = (script,)
    hits = sum(1 for c in letters if unicodedata.name(c, "").startswith(names))
    return hits / len(letters)


def handbook_text(root, lang, script, limit):
    """Paragraphs of one translation, in book order, mostly in its own script, up to `limit` characters."""
    folder = root / HANDBOOK / lang
    order = []
    page = "index.html"
    seen = set()
    while page and page not in seen:
        seen.add(page)
        order.append(page)
        source = (folder / page).read_text("utf-8")
        match = re.search(r'<link rel="next" href="([^"#]+)"', source)
        page = match.group(1) if match else None
    paragraphs = []
    total = 0
    for page in order:
        parser = _Paragraphs()
        parser.feed((folder / page).read_text("utf-8"))
        for paragraph in parser.paragraphs:
            if len(paragraph.encode("utf-8")) < 60 or _script_share(paragraph, script) < 0.6:
                continue
            if "://" in paragraph or "www." in paragraph:
                continue  # the site must hold no absolute URLs, not even in sample text
            paragraphs.append(paragraph)
            total += len(paragraph) + 2
            if total >= limit:
                return "\n\n".join(paragraphs) + "\n"
    return "\n\n".join(paragraphs) + "\n"


def gallery_entries():
    """The gallery's index entries, with each file's bytes: [(entry, bytes)], the seeds' first, then the textbooks'."""
    out = []
    for sample in TOY_SAMPLES + TEXTBOOK_SAMPLES:
        entry = {k: v for k, v in sample.items() if k not in ("text", "counts")}
        entry["group"] = GALLERY
        if "counts" in sample:
            table = check_counts(sample["counts"], sample["id"], sample["settings"]["special_tokens"])
            text = to_tsv(table)
            entry.update(input="counts", file=f"{sample['id']}.tsv", chars=len(text), pieces=len(table),
                         occurrences=sum(table.values()))
            data = text.encode("utf-8")
        else:
            entry.update(input="text", file=f"{sample['id']}.txt", chars=len(sample["text"]))
            data = sample["text"].encode("utf-8")
        out.append((entry, data))
    return out


def write_samples(root):
    """Write every sample and index.json into web/samples/."""
    OUT.mkdir(parents=True, exist_ok=True)
    index = []
    for entry, data in gallery_entries():
        (OUT / entry["file"]).write_bytes(data)
        index.append(entry)

    text = kjv_text(root, limit=KJV_CHARS)
    index.append({
        "id": "kjv-genesis", "title": "The King James Bible: Genesis and Exodus (in part)", "language": "English",
        "group": "Real texts", "file": "kjv-genesis.txt", "chars": len(text),
        "source": "Debian package bible-kjv-text (the Authorized King James Version, 1611/1769), printed with `bible`",
        "licence": "public domain",
    })
    (OUT / "kjv-genesis.txt").write_text(text, "utf-8", newline="")

    for sample_id, title, language, lang, script, chars in REAL_SAMPLES:
        text = handbook_text(root, lang, script, chars)
        index.append({
            "id": sample_id, "title": title, "language": language, "group": "Real texts",
            "file": f"{sample_id}.txt", "chars": len(text),
            "source": f"Debian package debian-handbook 11, /usr/share/doc/debian-handbook/html/{lang}/ "
                      "(prose paragraphs; commands and listings removed)",
            "licence": HANDBOOK_LICENCE,
        })
        (OUT / f"{sample_id}.txt").write_text(text, "utf-8", newline="")

    (OUT / "index.json").write_text(json.dumps({"samples": index}, ensure_ascii=False, indent=1) + "\n", "utf-8")
    for entry in index:
        size = (OUT / entry["file"]).stat().st_size
        print(f"{entry['file']:28} {entry['chars']:>8,} chars {size:>9,} bytes  {entry['licence'][:40]}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "samples",
                        help="where the .deb files are downloaded and unpacked")
    args = parser.parse_args(argv)
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        raise SystemExit("make_samples.py needs apt-get and dpkg-deb (Debian or Ubuntu)")
    write_samples(fetch_packages(args.cache.resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
