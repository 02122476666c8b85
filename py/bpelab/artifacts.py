"""Reading and writing tokenizer files. Strings and bytes in and out, never paths.

Formats:
- GPT-2's `encoder.json` + `vocab.bpe` (seed 000 §5, seed 003): visible
  strings through `bytes_to_unicode`, a `#version: 0.2` header, one merge per
  line in rank order, a trailing newline, special tokens last in the encoder.
- `manifest.json`: every setting, the corpus digest and the files' digests.
- Hugging Face `tokenizer.json` (a byte-level BPE model).
- tiktoken's `.tiktoken` ranks: `base64(token) rank` per line.

Every reader rejects malformed input with an `ArtifactError` naming the file
and, where there is one, the line. The same code runs in the browser, so the
CLI and the site write identical bytes.
"""

import hashlib
import io
import json
import re
import zipfile
import zlib

from . import __version__
from .byte_unicode import CHAR_TO_BYTE, bytes_to_visible, gpt2_byte_ids
from .openai_vocab import tokenizer_for_rank_file
from .pretokenize import PATTERNS, PRETOKENIZER_NAMES, Pretokenizer, get_pretokenizer
from .ranks import RankFileError, dump_tiktoken, recover_merges
from .ranks import parse_tiktoken as _parse_rank_file
from .quoting import quote
from .tokenizer import Tokenizer, check_token_ids, show_id
from .train import CHAR_LIMIT

VERSION_HEADER = "#version: 0.2"
MAX_FILE_BYTES = 64 * 1024 * 1024  # larger files are refused, not read
MAX_JSON_DEPTH = 64  # a tokenizer.json nests 5 deep; the parsers recurse once per level
MAX_JSON_DIGITS = 20  # JSON integers longer than this are refused (ids are below 2**31)
# A .zip is read member by member, only the members that can be tokenizer
# files, and refused before anything is unpacked when the sizes it declares
# (zipfile also stops at them) break these limits.
MAX_UNPACKED_BYTES = 2 * MAX_FILE_BYTES  # all the members read, together
MAX_COMPRESSION_RATIO = 100  # for members over 1 MB; JSON and .tiktoken compress 3 to 6 times
MAX_ZIP_MEMBERS = 10_000
ID_LAYOUTS = ("seed", "gpt2")
MANIFEST_FORMAT = "bpelab-manifest"
MANIFEST_VERSION = 1
TIKTOKEN_FILENAME = "tokenizer.tiktoken"


class ArtifactError(ValueError):
    """A malformed tokenizer file: the message names the file and line."""

    def __init__(self, filename, message, line=None):
        self.filename = filename
        self.line = line
        shown = show_name(filename)
        where = f"{shown} line {line}" if line is not None else shown
        super().__init__(f"{where}: {message}")


class PretokenizerNeeded(ArtifactError):
    """A rank file (.tiktoken) that does not say how to pre-tokenize: the caller must choose."""

    choices = PRETOKENIZER_NAMES + ("custom",)


def show_name(name):
    """A file name for a message: as is, unless it holds control or bidi characters (then its repr)."""
    name = str(name)
    return name if name.isprintable() and len(name) <= 200 else repr(name[:200])


def tokenizer_file_name(name):
    """True for a file name that load_files may read (the rest of a folder or .zip is never read).

    >>> [tokenizer_file_name(n) for n in ("vocab.bpe", "merges.txt", "corpus.txt", "a.tiktoken", "x.zip")]
    [True, True, False, True, False]
    """
    lower = name.lower()
    return lower.endswith((".json", ".bpe", ".tiktoken", "merges.txt"))


# ------------------------------------------------------------------ layouts


def relayout(tokenizer, id_layout):
    """The same tokenizer with its byte ids in the given layout.

    "seed" gives byte b the id b (the seeds' convention); "gpt2" gives the
    printable bytes the first ids, as GPT-2's own files do. Merged tokens and
    special tokens keep their ids.

    >>> relayout(Tokenizer.bytes_only(), "gpt2").encode_ordinary("!")
    [0]
    """
    if id_layout not in ID_LAYOUTS:
        raise ValueError(f"id_layout must be 'seed' or 'gpt2', got {id_layout!r}")
    if tokenizer.merges is None:
        raise ValueError("relayout needs a tokenizer with explicit merges (GPT-2 or trained), not ranks")
    target = gpt2_byte_ids() if id_layout == "gpt2" else {b: b for b in range(256)}
    current = {token[0]: i for i, token in tokenizer.vocab.items() if len(token) == 1}
    renumber = {current[b]: target[b] for b in range(256)}
    if all(old == new for old, new in renumber.items()):
        return tokenizer
    vocab = {renumber.get(i, i): token for i, token in tokenizer.vocab.items()}
    merges = [(renumber.get(a, a), renumber.get(b, b)) for a, b in tokenizer.merges]
    return Tokenizer(
        vocab, merges, special_tokens=tokenizer.special_tokens, pretokenizer=tokenizer.pretokenizer, name=tokenizer.name
    )


def id_layout_of(tokenizer):
    """"seed", "gpt2" or "other": how the tokenizer numbers the 256 bytes."""
    byte_ids = {token[0]: i for i, token in tokenizer.vocab.items() if len(token) == 1}
    if all(byte_ids.get(b) == b for b in range(256)):
        return "seed"
    gpt2 = gpt2_byte_ids()
    if all(byte_ids.get(b) == gpt2[b] for b in range(256)):
        return "gpt2"
    return "other"


# -------------------------------------------------------------- GPT-2 files


def _ordered_vocab(tokenizer):
    """[(id, bytes)] of ordinary tokens then special tokens, by id."""
    items = sorted(tokenizer.vocab.items())
    items += sorted((i, s.encode("utf-8")) for s, i in tokenizer.special_tokens.items())
    return items


def to_gpt2_files(tokenizer):
    """(encoder_json, vocab_bpe) text in GPT-2's exact conventions.

    >>> enc, bpe = to_gpt2_files(Tokenizer.bytes_only())
    >>> bpe
    '#version: 0.2\\n'
    """
    merges = _require_merges(tokenizer)
    encoder = {}
    for i, token in _ordered_vocab(tokenizer):
        key = bytes_to_visible(token)
        if key in encoder:
            raise ValueError(f"ids {encoder[key]} and {i} share the spelling {key!r}; encoder.json cannot hold both")
        encoder[key] = i
    vocab = tokenizer.vocab
    lines = [VERSION_HEADER]
    lines += [bytes_to_visible(vocab[a]) + " " + bytes_to_visible(vocab[b]) for a, b in merges]
    return json.dumps(encoder), "\n".join(lines) + "\n"


def _require_merges(tokenizer):
    if tokenizer.merges is None:
        ranks = {token: i for i, token in tokenizer.vocab.items()}
        return [(ranks[a], ranks[b]) for a, b in recover_merges(ranks)]
    return tokenizer.merges


def _text(filename, data):
    """File content as str: bytes must be UTF-8 (a BOM is dropped)."""
    if isinstance(data, str):
        if len(data) > MAX_FILE_BYTES:
            raise ArtifactError(filename, f"file too large ({len(data):,} characters; the limit is {MAX_FILE_BYTES:,})")
        return data
    if len(data) > MAX_FILE_BYTES:
        raise ArtifactError(filename, f"file too large ({len(data):,} bytes; the limit is {MAX_FILE_BYTES:,})")
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ArtifactError(filename, f"not valid UTF-8 (byte {error.start})", line) from None
    return text[1:] if text.startswith("\ufeff") else text


def _json(filename, data):
    text = _text(filename, data)

    def no_duplicates(pairs):
        seen = {}
        for key, value in pairs:
            if key in seen:
                raise ArtifactError(filename, f"key {key!r} appears twice")
            seen[key] = value
        return seen

    depth = json_depth(text, MAX_JSON_DEPTH)
    if depth > MAX_JSON_DEPTH:
        raise ArtifactError(
            filename, f"JSON nests more than {MAX_JSON_DEPTH} levels deep; a tokenizer file needs about 5, "
            "so this is not one (refused before parsing)"
        )

    def bounded_int(digits):
        if len(digits) > MAX_JSON_DIGITS:
            raise ArtifactError(filename, f"holds a number of {len(digits):,} digits; ids and counts are below 2**31")
        return int(digits)

    try:
        return json.loads(text, object_pairs_hook=no_duplicates, parse_int=bounded_int)
    except json.JSONDecodeError as error:
        raise ArtifactError(filename, f"not valid JSON: {error.msg} (column {error.colno})", error.lineno) from None
    except RecursionError:  # json_depth stops this first; kept as the last line of defence
        raise ArtifactError(filename, "JSON nests too deeply to parse") from None


_JSON_STRING = re.compile(r'"[^"]*"')  # once escaped quotes are gone
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST_PAIRS = re.compile(r"\[\]|\{\}")


def json_depth(text, limit):
    """How deeply the JSON text nests, counted up to limit + 1 (a cheap check before json.loads); when the text
    holds at most `limit` brackets, their count, a bound on the depth.

    Escapes and strings are dropped, then every character but brackets, then
    each pass removes the innermost bracket pairs: the number of passes is the
    depth. All of it runs in C (str.replace and `re`), about 20 ns a
    character: a 64 MB file takes about a second, less than json.loads.

    >>> json_depth('{"a": [1, [2], "]\\\\\\"]"]}', 64), json_depth("[" * 100 + "]" * 100, 64)
    (3, 65)
    """
    opening = text.count("[") + text.count("{")
    if opening <= limit:  # the usual request payload: no scan needed (the count bounds the depth)
        return opening
    text = text.replace("\\\\", "").replace('\\"', "")
    brackets = _NOT_A_BRACKET.sub("", _JSON_STRING.sub("", text))
    depth = 0
    while brackets and depth <= limit:
        reduced = _INNERMOST_PAIRS.sub("", brackets)
        if len(reduced) == len(brackets):  # unbalanced: json.loads names the error
            break
        brackets = reduced
        depth += 1
    return depth


def _visible_bytes(filename, token, line=None):
    try:
        return bytes([CHAR_TO_BYTE[c] for c in token])
    except KeyError:
        bad = next(c for c in token if c not in CHAR_TO_BYTE)
        raise ArtifactError(
            filename, f"token {token!r} has {bad!r} (U+{ord(bad):04X}), which is outside GPT-2's byte map", line
        ) from None


def _check_ids(filename, ids_by_key):
    seen = {}
    for key, i in ids_by_key.items():
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise ArtifactError(filename, f"the id of {key!r} must be a non-negative integer, got {i!r}")
        if i in seen:
            raise ArtifactError(filename, f"id {i} is used twice, by {seen[i]!r} and {key!r}")
        seen[i] = key
    missing = next((i for i in range(len(seen)) if i not in seen), None)
    if missing is not None:
        raise ArtifactError(
            filename, f"ids must be contiguous from 0; {missing} is missing (largest is {max(seen)})"
        )


_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAK = re.compile("\r\n|\r|\n")


def from_gpt2_files(encoder_json, vocab_bpe, *, manifest=None, pretokenizer=None, special_tokens=None):
    """A Tokenizer from GPT-2-format files, ours or third-party, header or not.

    Entries of encoder.json that are neither a byte nor made by a merge are
    special tokens (GPT-2's `<|endoftext|>`). Their keys are spelled in the
    byte map like every other (a space is Ġ), and read back through it; a key
    the map cannot read is taken as written. `special_tokens` ({text: id})
    adds special tokens that encoder.json does not hold (a tokenizer.json's
    added tokens). The pre-tokenizer comes from the manifest when given, else
    `pretokenizer`, else GPT-2's.

    >>> tok = from_gpt2_files(*to_gpt2_files(Tokenizer.bytes_only()))
    >>> tok.encode("hi")
    [104, 105]
    """
    encoder = _json("encoder.json", encoder_json)
    if not isinstance(encoder, dict):
        raise ArtifactError("encoder.json", f"expected a JSON object of token -> id, got {type(encoder).__name__}")
    extra = dict(special_tokens or {})
    _check_ids("encoder.json", encoder | {f"special token {name!r}": i for name, i in extra.items()})
    for key in encoder:
        if not isinstance(key, str) or not key:
            raise ArtifactError("encoder.json", f"empty token string for id {encoder[key]}")
        if not key.isascii() and (bad := _SURROGATE.search(key)):
            raise ArtifactError("encoder.json", f"key {quote(key)} (id {encoder[key]}) holds a lone surrogate "
                                f"U+{ord(bad.group()):04X} (a \\u{ord(bad.group()):04x} escape without its pair), "
                                "which is not text; fix or remove that key")

    merges_text = _text("vocab.bpe", vocab_bpe)
    lines = _LINE_BREAK.split(merges_text)  # \n, \r\n, or \r alone (old Mac endings)
    if lines and lines[-1] == "":
        lines.pop()  # the trailing newline
    start = 1 if lines and lines[0].startswith("#version") else 0
    made = {}  # visible str -> line that made it
    pairs = []
    seen_pairs = {}
    for number in range(start, len(lines)):
        line_no = number + 1
        line = lines[number].rstrip("\r")
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise ArtifactError("vocab.bpe", f"expected two tokens separated by one space, got {line!r}", line_no)
        left, right = parts
        for part in parts:
            if part not in encoder:
                raise ArtifactError("vocab.bpe", f"token {part!r} of merge {line!r} is not in encoder.json", line_no)
            if len(part) > 1 and part not in made:
                raise ArtifactError(
                    "vocab.bpe", f"token {part!r} of merge {line!r} is not a byte and no earlier merge makes it", line_no
                )
        result = left + right
        if result not in encoder:
            raise ArtifactError("vocab.bpe", f"merge {line!r} makes {result!r}, which is not in encoder.json", line_no)
        if (left, right) in seen_pairs:
            raise ArtifactError("vocab.bpe", f"merge {line!r} repeats line {seen_pairs[(left, right)]}", line_no)
        seen_pairs[(left, right)] = line_no
        made.setdefault(result, line_no)
        pairs.append((left, right))

    specials = dict(extra)
    vocab = {}
    stray = None  # the first entry that is neither a byte, nor made, nor a special token
    declared = _manifest_specials(manifest)
    # A declared special token is spelled in the byte map (as we and GPT-2 write it) or, failing that, as its text.
    declared_keys = {}
    for name in declared:
        visible = bytes_to_visible(name.encode("utf-8"))
        key = visible if visible in encoder else name
        if key not in encoder:
            raise ArtifactError("manifest.json", f"special token {name!r} is not in encoder.json (as {visible!r})")
        declared_keys[key] = name
    for key, i in encoder.items():
        name = declared_keys.get(key)
        if name is None and len(key) > 1 and key not in made:
            name = _special_text(key)
            if not _spelled_special(name):  # a word no merge makes: the merges were cut short, most likely
                stray = stray or (key, i)
                continue
        if name is not None:
            if name in specials:
                raise ArtifactError("encoder.json", f"special token {name!r} appears twice (ids {specials[name]} and {i})")
            specials[name] = i
            continue
        vocab[i] = _visible_bytes("encoder.json", key)
    for name, i in declared.items():
        if specials[name] != i:
            raise ArtifactError("manifest.json", f"special token {name!r} has id {i}, but {specials[name]} in encoder.json")
    single = {token[0] for token in vocab.values() if len(token) == 1}
    if len(single) != 256:
        missing = next(b for b in range(256) if b not in single)
        raise ArtifactError("encoder.json", f"has no entry for byte 0x{missing:02X} ({bytes_to_visible(bytes([missing]))!r})")
    if stray:
        raise ArtifactError(
            "encoder.json",
            f"{stray[0]!r} (id {stray[1]}) is not a byte, no merge makes it, and it is not spelled like a special "
            f"token (<...> or [...]); are the merges cut short? There are {len(pairs):,} for {len(encoder):,} "
            "entries. If it is a special token, give the manifest.json that lists it",
        )
    merges = [(encoder[a], encoder[b]) for a, b in pairs]
    return Tokenizer(
        vocab, merges, special_tokens=specials, pretokenizer=_pretokenizer_from(manifest, pretokenizer), name="gpt2-files"
    )


def _spelled_special(text):
    """True for the usual spellings of special tokens: <|endoftext|>, <s>, </s>, [CLS]."""
    return len(text) >= 3 and (text[0], text[-1]) in (("<", ">"), ("[", "]"))


def _special_text(key):
    """A special token's text from its encoder.json key: through the byte map if the key reads as UTF-8 there."""
    try:
        return bytes(CHAR_TO_BYTE[c] for c in key).decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return key


def _manifest_data(manifest):
    if manifest is None:
        return None
    data = manifest if isinstance(manifest, dict) else _json("manifest.json", manifest)
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        raise ArtifactError("manifest.json", f"not a BPE Lab manifest (expected \"format\": {MANIFEST_FORMAT!r})")
    return data


def _manifest_specials(manifest):
    data = _manifest_data(manifest)
    if data is None:
        return {}
    specials = data.get("special_tokens", [])
    shape = 'special_tokens must be a list of {"token": "<|name|>", "id": 50256} objects'
    if not isinstance(specials, list):
        raise ArtifactError("manifest.json", f"{shape}, got {show_id(specials)}")
    out = {}
    ids = {}
    for k, entry in enumerate(specials):
        if not isinstance(entry, dict) or set(entry) != {"token", "id"}:
            raise ArtifactError("manifest.json", f"special_tokens[{k}]: {shape}, got {show_id(entry)}")
        token, i = entry["token"], entry["id"]
        if not isinstance(token, str) or not token:
            raise ArtifactError("manifest.json", f"special_tokens[{k}].token must be a non-empty string, got {show_id(token)}")
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise ArtifactError(
                "manifest.json", f"special_tokens[{k}].id of {token!r} must be a non-negative integer, got {show_id(i)}"
            )
        if token in out:
            raise ArtifactError("manifest.json", f"special token {token!r} is listed twice")
        if i in ids:
            raise ArtifactError("manifest.json", f"special tokens {ids[i]!r} and {token!r} share the id {i}")
        out[token] = i
        ids[i] = token
    return out


def _pretokenizer_from(manifest, fallback):
    data = _manifest_data(manifest)
    if data is not None and data.get("pretokenizer") is not None:
        return _manifest_pretokenizer(data)
    if data is not None and fallback is None:
        return get_pretokenizer("gpt2")  # a GPT-2 format manifest without one: GPT-2's, as the format implies
    return fallback if fallback is not None else "gpt2"


def _manifest_pretokenizer(data):
    spec = data["pretokenizer"]
    if not isinstance(spec, dict):
        raise ArtifactError("manifest.json", f'pretokenizer must be an object like {{"name": "gpt2"}}, got {show_id(spec)}')
    return explicit_pretokenizer({key: spec[key] for key in ("name", "pattern") if key in spec}, "manifest.json")


def explicit_pretokenizer(spec, filename="pretokenizer", field="pretokenizer"):
    """A Pretokenizer from a caller's choice: a name, {"name": ...} or {"name": "custom", "pattern": ...}.

    >>> explicit_pretokenizer({"name": "custom", "pattern": " ?[a-z]+|[^a-z]"}).name
    'custom'
    """
    if isinstance(spec, Pretokenizer):
        return spec
    if isinstance(spec, str):
        spec = {"name": spec}
    example = 'a name such as "cl100k", or {"name": "custom", "pattern": "..."}'
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not set(spec) <= {"name", "pattern"}:
        raise ArtifactError(filename, f"{field} must be {example}; got {show_id(spec)}")
    pattern = spec.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        raise ArtifactError(filename, f"{field}.pattern must be a string, got {show_id(pattern)}")
    try:
        return get_pretokenizer(spec["name"], pattern if spec["name"] == "custom" else None)
    except ValueError as error:
        raise ArtifactError(filename, f"{field}: {error}") from None


# ------------------------------------------------------------------ tiktoken


def to_tiktoken(tokenizer):
    """tiktoken's rank file: `base64(token) rank` per line, by rank; no specials.

    >>> to_tiktoken(Tokenizer.bytes_only()).splitlines()[65]
    b'QQ== 65'
    """
    return dump_tiktoken({token: i for i, token in tokenizer.vocab.items()})


def parse_tiktoken(data, filename=TIKTOKEN_FILENAME):
    """{bytes: rank} from a .tiktoken file, with errors naming the file and line.

    >>> parse_tiktoken(b"YQ== 0\\n")
    {b'a': 0}
    """
    if len(data) > MAX_FILE_BYTES:
        raise ArtifactError(filename, f"file too large ({len(data):,} bytes; the limit is {MAX_FILE_BYTES:,})")
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if bytes(data[:3]) == b"\xef\xbb\xbf":
        data = data[3:]  # a byte order mark, as the other formats accept
    try:
        ranks = _parse_rank_file(data)
    except RankFileError as error:
        match = re.match(r"\.tiktoken line (\d+): (.*)", str(error), re.S)
        if match:
            raise ArtifactError(filename, match.group(2), int(match.group(1))) from None
        raise ArtifactError(filename, str(error)) from None
    if not ranks:
        raise ArtifactError(filename, "no tokens")
    try:
        check_token_ids(ranks.values(), "ranks")
    except ValueError as error:
        raise ArtifactError(filename, str(error)) from None
    return ranks


def from_tiktoken(data, *, special_tokens=None, pretokenizer=None, manifest=None, filename=TIKTOKEN_FILENAME):
    """A Tokenizer from a .tiktoken rank file (tiktoken's merge rule).

    A rank file holds neither a pattern nor special tokens. OpenAI's own files
    are known by their sha256 and get tiktoken's; any other file takes them
    from `manifest` (a BPE Lab manifest.json) or from the caller
    (`pretokenizer`: a name, {"name": "custom", "pattern": ...} or a
    Pretokenizer). Without either, PretokenizerNeeded asks for the choice:
    a wrong pattern would give wrong ids without a word.

    >>> tok = from_tiktoken(to_tiktoken(Tokenizer.bytes_only()), pretokenizer="bytes")
    >>> tok.encode("ab")
    [97, 98]
    """
    data = bytes(data) if not isinstance(data, str) else data.encode("utf-8", "replace")
    if len(data) > MAX_FILE_BYTES:
        raise ArtifactError(filename, f"file too large ({len(data):,} bytes; the limit is {MAX_FILE_BYTES:,})")
    declared = _manifest_data(manifest) or {}
    chosen = None if pretokenizer is None else explicit_pretokenizer(pretokenizer, filename)
    if declared.get("pretokenizer") is not None:
        stated = _manifest_pretokenizer(declared)
        if chosen is not None and chosen is not stated:
            raise ArtifactError(
                filename, f"manifest.json gives the pre-tokenizer {stated.name!r}, but {chosen.name!r} was chosen; "
                "drop the choice or the manifest"
            )
        chosen = stated
    if chosen is None and not special_tokens and not declared:
        known = tokenizer_for_rank_file(data)  # OpenAI's own: tiktoken's pattern and special tokens
        if known is not None:
            return known
    ranks = parse_tiktoken(data, filename)  # a broken file is reported before any question about it
    singles = {token[0] for token in ranks if len(token) == 1}
    if len(singles) != 256:
        missing = next(b for b in range(256) if b not in singles)
        raise ArtifactError(filename, f"has no token for byte 0x{missing:02X}; a byte-level BPE needs all 256")
    if chosen is None:
        raise PretokenizerNeeded(
            filename,
            "a .tiktoken file holds ranks only, not the pre-tokenizer pattern they were trained with, and this "
            "is not one of OpenAI's published files; choose its pre-tokenizer (" + ", ".join(PretokenizerNeeded.choices)
            + " with a pattern), e.g. --pretokenizer cl100k in the CLI, or give the manifest.json exported with it",
        )
    specials = dict(special_tokens or {}) or _manifest_specials(manifest)
    try:
        return Tokenizer.from_ranks(ranks, special_tokens=specials, pretokenizer=chosen, name=filename)
    except ValueError as error:  # special token ids that collide with ranks or leave huge gaps
        raise ArtifactError("manifest.json" if declared else filename, str(error)) from None


# -------------------------------------------------------- Hugging Face json


def _hf_pre_tokenizer(pretokenizer):
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    if pretokenizer.pattern is None:  # "bytes": the whole chunk is one piece
        return byte_level
    split = {
        "type": "Split",
        "pattern": {"Regex": onig_pattern(pretokenizer.pattern)},
        "behavior": "Isolated",
        "invert": False,
    }
    return {"type": "Sequence", "pretokenizers": [split, byte_level]}


# One lexical unit of `regex` syntax, enough to find what a quantifier applies to.
_REGEX_UNIT = re.compile(
    r"""\\[pPx]\{[^}]*\}|\\N\{[^}]*\}|\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\.
    |(?P<open>\((?:\?(?:[:>=!]|<[=!]|P?<\w+>|'\w+'|[a-zA-Z-]*:))?)|(?P<close>\))
    |(?P<interval>\{\d+(?:,\d*)?\}\+)|\[|.""",
    re.S | re.X,
)


def onig_pattern(pattern):
    r"""The pattern as Hugging Face's Oniguruma must be given it to split the same.

    There `X{1,3}+` means X{1,3} repeated, where `regex` and tiktoken read a
    possessive repeat; the atomic group `(?>X{1,3})` means the same in both.
    (`?+`, `*+` and `++` are possessive in both.)

    >>> onig_pattern(r"\p{N}{1,3}+|[ab]{2}+|(?:cd){1,2}+")
    '(?>\\p{N}{1,3})|(?>[ab]{2})|(?>(?:cd){1,2})'
    """
    out = []  # units of the result; an atom is one unit, a group is folded into one at its ')'
    opened = []  # indices in `out` of the open groups
    i = 0
    while i < len(pattern):
        if pattern[i] == "[":  # a class, nested sets and escapes included: one unit
            j, depth = i + 1, 1
            if pattern[j:j + 1] == "^":
                j += 1
            if pattern[j:j + 1] == "]":
                j += 1
            while j < len(pattern) and depth:
                if pattern[j] == "\\":
                    j += 1
                elif pattern[j] == "[":
                    depth += 1
                elif pattern[j] == "]":
                    depth -= 1
                j += 1
            out.append(pattern[i:j])
            i = j
            continue
        unit = _REGEX_UNIT.match(pattern, i)
        text = unit.group()
        i = unit.end()
        if unit.group("open"):
            opened.append(len(out))
            out.append(text)
        elif unit.group("close") and opened:
            start = opened.pop()
            out[start:] = ["".join(out[start:]) + text]
        elif unit.group("interval") and out:
            out[-1] = f"(?>{out[-1]}{text[:-1]})"
        else:
            out.append(text)
    return "".join(out)


def to_hf_tokenizer_json(tokenizer):
    """A Hugging Face `tokenizer.json` for a byte-level BPE model.

    >>> json.loads(to_hf_tokenizer_json(Tokenizer.bytes_only()))["model"]["type"]
    'BPE'
    """
    merges = _require_merges(tokenizer)
    vocab = tokenizer.vocab
    data = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": i,
                "content": special,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for special, i in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])
        ],
        "normalizer": None,
        "pre_tokenizer": _hf_pre_tokenizer(tokenizer.pretokenizer),
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": {bytes_to_visible(token): i for i, token in sorted(vocab.items())},
            "merges": [bytes_to_visible(vocab[a]) + " " + bytes_to_visible(vocab[b]) for a, b in merges],
        },
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def from_hf_tokenizer_json(text, filename="tokenizer.json"):
    """A Tokenizer from a Hugging Face `tokenizer.json` holding a byte-level BPE.

    Errors name `filename`, the file as the user called it.

    >>> from_hf_tokenizer_json(to_hf_tokenizer_json(Tokenizer.bytes_only())).encode("a")
    [97]
    """
    name = filename
    data = _json(name, text)
    if not isinstance(data, dict):
        raise ArtifactError(name, f"expected a JSON object (a Hugging Face tokenizer.json), got {type(data).__name__}")
    model = data.get("model")
    if not isinstance(model, dict) or model.get("type") != "BPE":
        raise ArtifactError(name, "expected a BPE model (\"model\": {\"type\": \"BPE\", ...})")
    _refuse_unsupported_hf(data, model, name)
    vocab_json = model.get("vocab")
    if not isinstance(vocab_json, dict):
        raise ArtifactError(name, "model.vocab must be an object of token -> id")
    for key, i in vocab_json.items():
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise ArtifactError(name, f"model.vocab[{key!r}] must be a non-negative integer id, got {show_id(i)}")
    merges_json = model.get("merges")
    if not isinstance(merges_json, list):
        raise ArtifactError(name, "model.merges must be a list")
    lines = []
    for k, merge in enumerate(merges_json):
        if isinstance(merge, list) and len(merge) == 2 and all(isinstance(p, str) for p in merge):
            lines.append(merge[0] + " " + merge[1])
        elif isinstance(merge, str):
            lines.append(merge)
        else:
            raise ArtifactError(name, f"model.merges[{k}] must be 'a b' or ['a', 'b'], got {merge!r}")
    encoder = dict(vocab_json)
    key_of_id = {i: key for key, i in encoder.items()}
    specials = {}
    added = data.get("added_tokens")
    if added is not None and not isinstance(added, list):
        raise ArtifactError(name, f"added_tokens must be a list of {{\"id\", \"content\", ...}} objects, got {show_id(added)}")
    for k, entry in enumerate(added or []):
        if (not isinstance(entry, dict) or not isinstance(entry.get("content"), str) or not entry["content"]
                or not isinstance(entry.get("id"), int) or isinstance(entry["id"], bool) or entry["id"] < 0):
            raise ArtifactError(
                name, f"added_tokens[{k}] needs a non-empty string content and a non-negative integer id, "
                f"got {show_id(entry)}"
            )
        for flag in ("lstrip", "rstrip", "single_word"):
            if entry.get(flag):  # they change where the token matches; we match its exact spelling only
                raise ArtifactError(
                    name, f"added_tokens[{k}] ({entry['content']!r}) has {flag}=true, which BPE Lab does not "
                    "implement: it matches a special token's exact spelling"
                )
        content, i = entry["content"], entry["id"]
        if content in specials:
            raise ArtifactError(name, f"added_tokens[{k}]: {content!r} is added twice")
        # The vocab may hold the added token too (GPT-2's <|endoftext|>), under the same id.
        key = key_of_id.get(i)
        if key is not None:
            if key not in (content, bytes_to_visible(content.encode("utf-8"))):
                raise ArtifactError(name, f"id {i} is both added token {content!r} and model.vocab entry {key!r}")
            del encoder[key]
        specials[content] = i
    pretokenizer = _pretokenizer_from_hf(data.get("pre_tokenizer"), name)
    try:
        tok = from_gpt2_files(
            json.dumps(encoder), "".join(line + "\n" for line in lines), pretokenizer=pretokenizer,
            special_tokens=specials,
        )
    except ArtifactError as error:  # report against the file the user gave
        detail = str(error).split(": ", 1)[1]
        where = "model.merges" if error.filename == "vocab.bpe" else "model.vocab"
        line = f" (merge {error.line - 1})" if error.filename == "vocab.bpe" and error.line else ""
        raise ArtifactError(name, f"{where}{line}: {detail}") from None
    tok.name = name
    return tok


def _refuse_unsupported_hf(data, model, name):
    """Parts of a tokenizer.json that change the ids or the text, which BPE Lab does not implement: refused by name."""
    if model.get("ignore_merges"):  # a whole word in the vocab wins over merging it, unlike BPE
        raise ArtifactError(name, "model.ignore_merges=true is not supported: BPE Lab applies every merge in order")
    for option in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(option):
            raise ArtifactError(name, f"model.{option} is not supported by byte-level BPE")
    if model.get("dropout"):
        raise ArtifactError(name, "model.dropout is not supported: BPE Lab encodes deterministically (use null)")
    if data.get("normalizer"):
        raise ArtifactError(name, "normalizers are not supported: BPE Lab tokenizers see the text unchanged")
    if data.get("post_processor") is not None:
        kind = data["post_processor"].get("type") if isinstance(data["post_processor"], dict) else None
        raise ArtifactError(
            name, f"post_processor {kind or data['post_processor']!r} is not supported: it adds tokens (such as "
            "<s> or [CLS]) that BPE Lab would not emit, so the ids would differ; set it to null"
        )
    decoder = data.get("decoder")
    if decoder is not None and not (isinstance(decoder, dict) and decoder.get("type") == "ByteLevel"):
        kind = decoder.get("type") if isinstance(decoder, dict) else decoder
        raise ArtifactError(
            name, f"decoder {kind!r} is not supported: BPE Lab decodes byte-level tokens to their bytes, as the "
            "ByteLevel decoder does; set it to {\"type\": \"ByteLevel\"} or null"
        )
    for option in ("truncation", "padding"):
        if data.get(option) is not None:
            raise ArtifactError(name, f"{option} is not supported: BPE Lab encodes whole texts; set it to null")


def _pretokenizer_from_hf(spec, name):
    if not isinstance(spec, dict):
        raise ArtifactError(name, "pre_tokenizer must be a ByteLevel pre-tokenizer (alone or after a Split)")
    steps = spec.get("pretokenizers") if spec.get("type") == "Sequence" else [spec]
    if not isinstance(steps, list):
        raise ArtifactError(name, f"pre_tokenizer.pretokenizers must be a list of steps, got {show_id(steps)}")
    pattern = None
    byte_level = False
    for step in steps:
        kind = step.get("type") if isinstance(step, dict) else None
        if kind == "Split" and not byte_level and pattern is None:
            given = step.get("pattern")
            if not isinstance(given, dict) or set(given) != {"Regex"} or not isinstance(given["Regex"], str):
                raise ArtifactError(
                    name, f'a Split pattern must be {{"Regex": "..."}}, got {show_id(given)}'
                    + ("; a plain string is not a pattern in tokenizer.json" if isinstance(given, str) else "")
                )
            regex = given["Regex"]
            if not regex or step.get("behavior") != "Isolated" or step.get("invert"):
                raise ArtifactError(name, "only a Split with a Regex, behavior Isolated and invert false is supported")
            pattern = regex
        elif kind == "ByteLevel" and not byte_level:
            if step.get("add_prefix_space"):
                raise ArtifactError(name, "ByteLevel add_prefix_space=true is not supported (it changes the text)")
            if step.get("use_regex", True):
                if pattern is not None:
                    raise ArtifactError(name, "a Split followed by ByteLevel with use_regex=true is not supported")
                pattern = PATTERNS["gpt2"]
            byte_level = True
        else:
            raise ArtifactError(name, f"unsupported pre_tokenizer step {kind!r}")
    if not byte_level:
        raise ArtifactError(name, "pre_tokenizer must include ByteLevel: this is not a byte-level BPE")
    if pattern is None:
        return get_pretokenizer("bytes")
    for builtin, source in PATTERNS.items():
        if pattern in (source, source and onig_pattern(source)):
            return get_pretokenizer(builtin)
    try:
        return get_pretokenizer("custom", pattern)
    except ValueError as error:
        raise ArtifactError(name, f"pre_tokenizer pattern: {error}") from None


# ------------------------------------------------------------ the manifest


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def to_manifest(result, files, *, id_layout="seed", char_limit=CHAR_LIMIT, truncation=None):
    """manifest.json for a training result and the files exported with it."""
    settings = result.settings
    tok = result.tokenizer
    pretokenizer = tok.pretokenizer
    data = {
        "format": MANIFEST_FORMAT,
        "format_version": MANIFEST_VERSION,
        "tool": "bpelab",
        "tool_version": __version__,
        "algorithm": "byte-level BPE",
        "byte_map": "GPT-2 bytes_to_unicode",
        "id_layout": id_layout,
        "pretokenizer": {"name": pretokenizer.name, "pattern": pretokenizer.pattern},
        "tie_break": settings.tie_break,
        "stopping": {
            "vocab_size": settings.vocab_size,
            "num_merges": settings.num_merges,
            "min_count": settings.min_count,
            "stopped_because": result.stop_reason,
        },
        "document_separator": settings.document_separator,
        "special_tokens": [{"token": s, "id": i} for s, i in sorted(tok.special_tokens.items(), key=lambda x: x[1])],
        # The input fields: what was trained on, "text" or "counts" (a word-count table).
        "input": result.input,
        "char_limit": char_limit,
        "truncation": truncation,
        "corpus": _corpus_fields(result),
        "vocab_size": len(tok.vocab) + len(tok.special_tokens),
        "merges": len(result.merges),
        "merges_sha256": _sha256(files["vocab.bpe"]),
        "vocab_sha256": _sha256(files["encoder.json"]),
        "files": {name: {"bytes": len(data), "sha256": _sha256(data)} for name, data in sorted(files.items())},
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _corpus_fields(result):
    corpus = result.corpus
    if result.input == "counts":
        return corpus.to_dict()  # pieces, occurrences, characters, bytes and the table's sha256
    return {"documents": corpus.documents, "characters": corpus.characters, "bytes": corpus.bytes,
            "sha256": corpus.sha256}


def export_files(result, *, id_layout="seed", char_limit=CHAR_LIMIT, truncation=None):
    """Every file of a training result, as {filename: bytes}: what CLI and site write.

    `truncation` is None, or {"original_characters": n, "kept_characters": k}
    when the user chose to train on the first k characters.
    """
    if truncation is not None and set(truncation) != {"original_characters", "kept_characters"}:
        raise ValueError(f"truncation must have original_characters and kept_characters, got {truncation!r}")
    tok = relayout(result.tokenizer, id_layout)
    encoder_json, vocab_bpe = to_gpt2_files(tok)
    files = {
        "encoder.json": encoder_json.encode("utf-8"),
        "vocab.bpe": vocab_bpe.encode("utf-8"),
        "tokenizer.json": to_hf_tokenizer_json(tok).encode("utf-8"),
        TIKTOKEN_FILENAME: to_tiktoken(tok),
    }
    manifest = to_manifest(result, files, id_layout=id_layout, char_limit=char_limit, truncation=truncation)
    files["manifest.json"] = manifest.encode("utf-8")
    return files


def load_files(files, *, pretokenizer=None):
    """A Tokenizer from a set of files {filename: bytes}, whichever format they are.

    Accepts encoder.json + vocab.bpe (+ manifest.json), a tokenizer.json, or a
    .tiktoken file (+ manifest.json for its pattern and special tokens); any of
    them may come inside a .zip. `pretokenizer` is the caller's choice for
    files that do not say (a .tiktoken, GPT-2 files without a manifest): a
    name or {"name": "custom", "pattern": ...}. A tokenizer.json states its own.
    """
    names = {}
    for name, data in files.items():
        if not isinstance(data, (bytes, bytearray, memoryview, str)):
            raise ArtifactError(name, f"file content must be bytes, got {type(data).__name__}")
        if len(data) > MAX_FILE_BYTES:
            raise ArtifactError(name, f"file too large ({len(data):,} bytes; the limit is {MAX_FILE_BYTES:,})")
        if name.lower().endswith(".zip"):
            members = _zip_members(name, data)  # BPE Lab's own "download all" .zip, for one
        else:
            members = {name.replace("\\", "/").rsplit("/", 1)[-1]: data}
        for member, content in members.items():
            if member in names:
                raise ArtifactError(name, f"a second file named {member!r}; give the files of one tokenizer at a time")
            names[member] = content
    manifest = next((names[n] for n in sorted(names) if n.lower() == "manifest.json"), None)
    _check_manifest_digests(manifest, names)
    encoder = _one_of(names, lambda n: n.lower().endswith("encoder.json") or n.lower() == "vocab.json",
                      "encoder.json files")
    merges = _one_of(names, lambda n: n.lower().endswith(".bpe") or n.lower().endswith("merges.txt"), "vocab.bpe files")
    if bool(encoder) != bool(merges):
        have, need = (encoder, "vocab.bpe") if encoder else (merges, "encoder.json")
        raise ArtifactError(have, f"needs its partner file {need}: GPT-2 format is two files")
    exact = [n for n in names if n.lower() == "tokenizer.json"]
    hf = exact[0] if len(exact) == 1 else _one_of(
        names, lambda n: n.lower().endswith(".json") and n.lower() != "manifest.json" and n != encoder,
        "JSON files that could be a tokenizer.json")
    ranks = _one_of(names, lambda n: n.lower().endswith(".tiktoken"), ".tiktoken files")
    loaders = {}
    if encoder:
        def gpt2(choice=pretokenizer):
            chosen = None if choice is None else explicit_pretokenizer(choice, encoder)
            if chosen is not None and manifest is not None:
                raise ArtifactError("manifest.json", "states the pre-tokenizer already; drop the explicit choice")
            return from_gpt2_files(names[encoder], names[merges], manifest=manifest, pretokenizer=chosen)
        loaders[f"{encoder} + {merges}"] = gpt2
    if hf:
        def hf_json(choice=pretokenizer):
            if choice is not None:
                raise ArtifactError(hf, "a tokenizer.json states its own pre-tokenizer; drop the explicit choice")
            return from_hf_tokenizer_json(names[hf], filename=hf)
        loaders[hf] = hf_json
    if ranks:
        loaders[ranks] = lambda choice=pretokenizer: from_tiktoken(names[ranks], manifest=manifest, filename=ranks,
                                                                   pretokenizer=choice)
    if not loaders:
        raise ArtifactError(
            ", ".join(sorted(names)) or "(no files)",
            "no tokenizer found: give encoder.json + vocab.bpe, a tokenizer.json, or a .tiktoken file (or a .zip "
            "holding them); names are matched in any case",
        )
    labels = list(loaders)
    tokenizer = loaders[labels[0]]()
    if len(labels) > 1 and not _same_export(manifest, names, [encoder, merges, hf, ranks]):
        # Several formats: one export of one tokenizer, or a mix of two; never pick one of two silently.
        for label in labels[1:]:
            loader = loaders[label]
            other = loader(None if label == hf else pretokenizer or ("bytes" if label == ranks else None))
            # A .tiktoken holds no special tokens (a manifest adds them): compare its ordinary tokens only.
            specials_differ = ranks not in (label, labels[0]) and other.special_tokens != tokenizer.special_tokens
            if other.vocab != tokenizer.vocab or specials_differ:
                raise ArtifactError(
                    f"{labels[0]}, {label}",
                    f"these hold two different tokenizers ({len(tokenizer.vocab) + len(tokenizer.special_tokens):,} "
                    f"and {len(other.vocab) + len(other.special_tokens):,} tokens, or the same number with other "
                    "tokens or ids): give the files of one tokenizer at a time",
                )
    return tokenizer


def _same_export(manifest, names, present):
    """True when manifest.json records a sha256 for each of these files (_check_manifest_digests checked them)."""
    if manifest is None:
        return False
    recorded = _manifest_data(manifest).get("files")
    return isinstance(recorded, dict) and all(
        isinstance(recorded.get(name), dict) and isinstance(recorded[name].get("sha256"), str)
        for name in present if name)


def _check_manifest_digests(manifest, names):
    """A manifest describes the files it was exported with: settings read from it must not meet other files."""
    if manifest is None:
        return
    recorded = _manifest_data(manifest).get("files")
    if not isinstance(recorded, dict):
        return
    for name, data in names.items():
        entry = recorded.get(name)
        if isinstance(data, str):
            data = data.encode("utf-8")
        if isinstance(entry, dict) and isinstance(entry.get("sha256"), str) and entry["sha256"] != _sha256(data):
            raise ArtifactError(
                name,
                f"does not match manifest.json, which records sha256 {entry['sha256'][:12]}… for it (this file's is "
                f"{_sha256(data)[:12]}…): they come from different exports, or the file was edited. Load the "
                "files without manifest.json to use them as they are",
            )


def _one_of(names, wanted, kind):
    """The one file name that `wanted` accepts, or None; two or more are an error, not a silent pick."""
    found = sorted(n for n in names if wanted(n))
    if len(found) > 1:
        raise ArtifactError(", ".join(found), f"{len(found)} {kind}; give the files of one tokenizer at a time")
    return found[0] if found else None


def _zip_members(name, data):
    """{file name: bytes} of the files in a .zip archive, folders dropped from the names."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as error:
        raise ArtifactError(name, f"not a readable .zip archive ({error})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ZIP_MEMBERS:
            raise ArtifactError(name, f"holds {len(infos):,} entries; a tokenizer's .zip holds a few (the limit is {MAX_ZIP_MEMBERS:,})")
        # Only the members that can be tokenizer files; every size is checked before anything is inflated.
        wanted = [info for info in infos if not info.is_dir() and tokenizer_file_name(info.filename.rsplit("/", 1)[-1])]
        total = 0
        seen = set()
        for info in wanted:
            where = f"{name}: {info.filename}"
            member = info.filename.rsplit("/", 1)[-1]
            if member in seen:
                raise ArtifactError(name, f"holds two files named {member!r}; keep one")
            seen.add(member)
            if info.file_size > MAX_FILE_BYTES:
                raise ArtifactError(where, f"file too large ({info.file_size:,} bytes; the limit is {MAX_FILE_BYTES:,})")
            if info.file_size > 1 << 20 and info.file_size > MAX_COMPRESSION_RATIO * max(info.compress_size, 1):
                raise ArtifactError(
                    where, f"unpacks {info.compress_size:,} bytes to {info.file_size:,}, over {MAX_COMPRESSION_RATIO} "
                    "times: refused as a likely zip bomb (tokenizer files compress 3 to 6 times)"
                )
            total += info.file_size
        if total > MAX_UNPACKED_BYTES:
            raise ArtifactError(
                name, f"its tokenizer files unpack to {total:,} bytes together; the limit is {MAX_UNPACKED_BYTES:,}"
            )
        members = {}
        for info in wanted:
            where = f"{name}: {info.filename}"
            try:
                # zipfile stops at the declared size and checks the CRC, so no member grows past what was checked.
                members[info.filename.rsplit("/", 1)[-1]] = archive.read(info)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, zlib.error, ValueError) as error:
                raise ArtifactError(where, f"cannot be unpacked ({error})") from None
    if not members:
        raise ArtifactError(name, "holds no tokenizer files (.json, .bpe, merges.txt or .tiktoken)")
    return members


def self_check(files, tokenizer, sample):
    """Load exported files back and compare their ids on a sample with the original's.

    Returns {"ok": bool, "checked": [filename...], "tokens": n, "message": str}.
    """
    expected = tokenizer.encode(sample, allowed_special="all")
    checks = {
        "encoder.json + vocab.bpe": lambda: from_gpt2_files(
            files["encoder.json"], files["vocab.bpe"], manifest=files.get("manifest.json")
        ),
        "tokenizer.json": lambda: from_hf_tokenizer_json(files["tokenizer.json"]),
        TIKTOKEN_FILENAME: lambda: from_tiktoken(files[TIKTOKEN_FILENAME], manifest=files.get("manifest.json")),
    }
    layout = files.get("manifest.json") and json.loads(files["manifest.json"]).get("id_layout")
    reference = relayout(tokenizer, layout or "seed").encode(sample, allowed_special="all") if layout else expected
    failed = []
    for label, load in checks.items():
        if load().encode(sample, allowed_special="all") != reference:
            failed.append(label)
    ok = not failed
    message = (
        f"Self-check passed: the exported files load back and encode the sample ({len(reference)} tokens) identically."
        if ok
        else f"Self-check FAILED for {', '.join(failed)}: the reloaded files encode the sample differently."
    )
    return {"ok": ok, "checked": list(checks), "tokens": len(reference), "message": message}
