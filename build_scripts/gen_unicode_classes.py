"""Generate py/bpelab/unicode_classes.py: Unicode classes for the stdlib `re`.

The pre-tokenizer patterns (GPT-2's, tiktoken's) are written for the `regex`
package and for tiktoken's Rust regex, which know `\\p{L}`, `\\p{N}`, ... and
define `\\s` as the Unicode White_Space property. The standard library's `re`
has no `\\p{..}`, its `\\s` also matches U+001C-U+001F, and its idea of a letter
comes from `unicodedata`, which is Unicode 14 in CPython 3.11 and Unicode 16 in
Pyodide. So this script asks `regex` which code points each class holds and
writes them out as explicit ranges; `py/bpelab/pretokenize.py` drops them inside
`[...]`, and the split is the same on every Python.

It also writes the case-insensitive equivalence groups (simple case folding),
used to expand `(?i:...)` into explicit classes.

Run from the repository root, with `regex` installed:

    .venv/bin/python build_scripts/gen_unicode_classes.py

Pass `--check` to fail (exit 1) if the committed module is out of date.
This script leaves out: Unicode scripts (`\\p{Han}`), binary properties and
full (multi-character) case folding; the translator rejects them.
"""

import argparse
import importlib.metadata
import pathlib
import sys
from collections import defaultdict

import regex

OUT = pathlib.Path(__file__).resolve().parent.parent / "py" / "bpelab" / "unicode_classes.py"
MAX_CODE_POINT = 0x10FFFF

# name in the generated CLASSES dict -> `regex` expression for one character.
# The general categories GPT-2, cl100k and o200k use, plus a few that custom
# patterns commonly reach for (P, S, Z, Nd).
CLASS_SOURCES = {
    "L": r"\p{L}",
    "Lu": r"\p{Lu}",
    "Ll": r"\p{Ll}",
    "Lt": r"\p{Lt}",
    "Lm": r"\p{Lm}",
    "Lo": r"\p{Lo}",
    "M": r"\p{M}",
    "N": r"\p{N}",
    "Nd": r"\p{Nd}",
    "P": r"\p{P}",
    "S": r"\p{S}",
    "Z": r"\p{Z}",
}
WHITESPACE_SOURCE = r"\s"  # regex's \s: White_Space, like tiktoken's Rust regex
WORD_SOURCE = r"\w"


def all_code_points():
    """Every code point as one string, lone surrogates included (Python str allows them)."""
    return "".join(map(chr, range(MAX_CODE_POINT + 1)))


def ranges_of(expression, text):
    """The (first, last) code point ranges matched by a one-character `expression`."""
    return [(ord(text[m.start()]), ord(text[m.end() - 1]))
            for m in regex.finditer("(?:%s)+" % expression, text)]


def escape_char(cp):
    """One code point spelled for the inside of an `re` character class."""
    if cp < 0x80 and chr(cp).isalnum():
        return chr(cp)
    if cp < 0x100:
        return "\\x%02x" % cp
    if cp < 0x10000:
        return "\\u%04x" % cp
    return "\\U%08x" % cp


def format_ranges(ranges):
    """Ranges as `re` class text, e.g. [(65, 90), (95, 95)] -> 'A-Z\\x5f'."""
    parts = []
    for first, last in ranges:
        if first == last:
            parts.append(escape_char(first))
        elif last == first + 1:  # 'ab' is shorter than 'a-b'
            parts.append(escape_char(first) + escape_char(last))
        else:
            parts.append(escape_char(first) + "-" + escape_char(last))
    return "".join(parts)


def case_groups(text):
    """Sets of code points that match each other under simple case folding.

    Grouped by `regex`'s simple case fold (Unicode CaseFolding.txt, status C and
    S), which is also what tiktoken's Rust regex uses for (?i). `regex` itself
    adds Turkic pairs on top (its (?i)i also matches U+0130); we follow the
    Rust side, because the patterns come from tiktoken.
    """
    fold_flags = regex.IGNORECASE | regex.UNICODE
    # regex has no public case-fold function; _regex.fold_case is what its
    # compiler uses, and the check below compares it with real matching.
    from regex import _regex
    by_fold = defaultdict(list)  # folded str -> [code points]
    for cp in range(MAX_CODE_POINT + 1):
        by_fold[_regex.fold_case(fold_flags, chr(cp))].append(cp)
    groups = [sorted(cps) for cps in by_fold.values() if len(cps) > 1]
    # fold_case leaves U+0049 'I' as is (regex special-cases the Turkic i),
    # so I, i, U+0130 and U+0131 land in no group. CaseFolding.txt's simple
    # folding has 0049 -> 0069 and nothing for U+0130 or U+0131 (only full and
    # Turkic entries), so the one group to add is I ~ i.
    grouped = {cp for group in groups for cp in group}
    ungrouped = {cp for cp in range(MAX_CODE_POINT + 1)
                 if len(_regex.get_all_cases(fold_flags, cp)) > 1 and cp not in grouped}
    if ungrouped != {0x49, 0x69, 0x130, 0x131}:
        raise SystemExit("unexpected code points without a case group: %s"
                         % ", ".join("U+%04X" % cp for cp in sorted(ungrouped)))
    groups = sorted(groups + [[0x49, 0x69]])
    for group in groups:
        for a in group:
            for b in group:
                if not regex.fullmatch("(?i)" + regex.escape(chr(a)), chr(b)):
                    raise SystemExit("case group %r: regex (?i) U+%04X does not match U+%04X"
                                     % (group, a, b))
    return groups


def wrapped(name, value, width=76):
    """`name = (r"..." r"...")` with lines under `width`, never splitting an escape."""
    pieces, line = [], ""
    i = 0
    while i < len(value):
        # A token is one escape (\xHH, \uHHHH, \UHHHHHHHH), or one char.
        if value[i] == "\\":
            size = {"x": 4, "u": 6, "U": 10}[value[i + 1]]
        else:
            size = 1
        token = value[i:i + size]
        if len(line) + size > width - 8:
            pieces.append(line)
            line = ""
        line += token
        i += size
    pieces.append(line)
    body = "\n".join('    r"%s"' % p for p in pieces)
    return "%s = (\n%s\n)\n" % (name, body)


def unicode_version():
    """The Unicode version `regex` states in its package description."""
    metadata = importlib.metadata.metadata("regex")
    # The body, or the Description field where the importlib_metadata backport (which dask imports) moves it.
    description = metadata.get_payload() or metadata.get("Description") or ""
    found = regex.search(r"supports Unicode (\d+\.\d+\.\d+)", description)
    if not found:
        raise SystemExit("could not find the Unicode version in regex's package description")
    return found.group(1)


def generate():
    text = all_code_points()
    out = []
    out.append('r"""Unicode character classes for the standard library `re`, taken from `regex`.\n\n'
               "GENERATED by build_scripts/gen_unicode_classes.py; do not edit by hand.\n\n"
               "Each value is the inside of an `re` character class: drop it between\n"
               "`[` and `]`. `CLASSES` holds general categories as `regex` %s (Unicode\n"
               "%s) defines them; `WHITESPACE` is `regex`'s (and tiktoken's) `\\s`, the\n"
               "White_Space property, which unlike `re`'s `\\s` leaves out U+001C-U+001F;\n"
               "`WORD` is `regex`'s `\\w`. `CASE_GROUPS` lists, space separated, the sets\n"
               "of characters equal under simple case folding, for expanding `(?i:...)`.\n\n"
               '>>> import re; bool(re.fullmatch("[" + CLASSES["L"] + "]+", "h\\u00e9llo"))\n'
               "True\n"
               '"""\n\n' % (regex.__version__, unicode_version()))
    out.append('REGEX_VERSION = "%s"\n' % regex.__version__)
    out.append('UNICODE_VERSION = "%s"\n\n' % unicode_version())
    for name, source in CLASS_SOURCES.items():
        out.append(wrapped("_" + name, format_ranges(ranges_of(source, text))))
    out.append(wrapped("WHITESPACE", format_ranges(ranges_of(WHITESPACE_SOURCE, text))))
    out.append(wrapped("WORD", format_ranges(ranges_of(WORD_SOURCE, text))))
    groups = case_groups(text)
    out.append(wrapped("CASE_GROUPS", " ".join("".join(escape_char(cp) for cp in g)
                                                  for g in groups)))
    out.append("\n# property name -> class text\nCLASSES = {\n")
    for name in CLASS_SOURCES:
        out.append('    "%s": _%s,\n' % (name, name))
    out.append("}\n")
    return "".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the committed module differs from a fresh one")
    args = parser.parse_args(argv)
    fresh = generate()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != fresh:
            print("%s is out of date; run build_scripts/gen_unicode_classes.py" % OUT)
            return 1
        print("%s is up to date" % OUT)
        return 0
    OUT.write_text(fresh, encoding="utf-8")
    print("wrote %s (%d bytes, regex %s)" % (OUT, len(fresh), regex.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
