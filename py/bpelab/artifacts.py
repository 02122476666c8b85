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
from .pretokenize import PATTERNS, get_pretokenizer
from .ranks import RankFileError, dump_tiktoken, recover_merges
from .ranks import parse_tiktoken as _parse_rank_file
from .tokenizer import Tokenizer
from .train import CHAR_LIMIT

VERSION_HEADER = "#version: 0.2"
MAX_FILE_BYTES = 64 * 1024 * 1024  # larger files are refused, not read
ID_LAYOUTS = ("seed", "gpt2")
MANIFEST_FORMAT = "bpelab-manifest"
MANIFEST_VERSION = 1
TIKTOKEN_FILENAME = "tokenizer.tiktoken"


class ArtifactError(ValueError):
    """A malformed tokenizer file: the message names the file and line."""

    def __init__(self, filename, message, line=None):
        self.filename = filename
        self.line = line
        where = f"{filename} line {line}" if line is not None else filename
        super().__init__(f"{where}: {message}")


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

    try:
        return json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as error:
        raise ArtifactError(filename, f"not valid JSON: {error.msg} (column {error.colno})", error.lineno) from None


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

    merges_text = _text("vocab.bpe", vocab_bpe)
    lines = merges_text.split("\n")
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
    try:
        return {entry["token"]: entry["id"] for entry in specials}
    except (TypeError, KeyError):
        raise ArtifactError("manifest.json", "special_tokens must be a list of {\"token\", \"id\"} objects") from None


def _pretokenizer_from(manifest, fallback):
    data = _manifest_data(manifest)
    if data is not None:
        spec = data.get("pretokenizer") or {}
        if not isinstance(spec, dict):
            raise ArtifactError(
                "manifest.json", f'pretokenizer must be an object like {{"name": "gpt2"}}, got {spec!r}'
            )
        try:
            return get_pretokenizer(spec.get("name", "gpt2"), spec.get("pattern") if spec.get("name") == "custom" else None)
        except ValueError as error:
            raise ArtifactError("manifest.json", f"pretokenizer: {error}") from None
    return fallback if fallback is not None else "gpt2"


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
    try:
        ranks = _parse_rank_file(data)
    except RankFileError as error:
        match = re.match(r"\.tiktoken line (\d+): (.*)", str(error), re.S)
        if match:
            raise ArtifactError(filename, match.group(2), int(match.group(1))) from None
        raise ArtifactError(filename, str(error)) from None
    if not ranks:
        raise ArtifactError(filename, "no tokens")
    return ranks


def from_tiktoken(data, *, special_tokens=None, pretokenizer="gpt2", manifest=None, filename=TIKTOKEN_FILENAME):
    """A Tokenizer from a .tiktoken rank file (tiktoken's merge rule).

    >>> tok = from_tiktoken(to_tiktoken(Tokenizer.bytes_only()), pretokenizer="bytes")
    >>> tok.encode("ab")
    [97, 98]
    """
    ranks = parse_tiktoken(data, filename)
    singles = {token[0] for token in ranks if len(token) == 1}
    if len(singles) != 256:
        missing = next(b for b in range(256) if b not in singles)
        raise ArtifactError(filename, f"has no token for byte 0x{missing:02X}; a byte-level BPE needs all 256")
    specials = dict(special_tokens or {}) or _manifest_specials(manifest)
    return Tokenizer.from_ranks(
        ranks, special_tokens=specials, pretokenizer=_pretokenizer_from(manifest, pretokenizer), name=filename
    )


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
    model = data.get("model") if isinstance(data, dict) else None
    if not isinstance(model, dict) or model.get("type") != "BPE":
        raise ArtifactError(name, "expected a BPE model (\"model\": {\"type\": \"BPE\", ...})")
    if model.get("ignore_merges"):  # a whole word in the vocab wins over merging it, unlike BPE
        raise ArtifactError(name, "model.ignore_merges=true is not supported: BPE Lab applies every merge in order")
    for option in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(option):
            raise ArtifactError(name, f"model.{option} is not supported by byte-level BPE")
    if data.get("normalizer"):
        raise ArtifactError(name, "normalizers are not supported: BPE Lab tokenizers see the text unchanged")
    vocab_json = model.get("vocab")
    if not isinstance(vocab_json, dict):
        raise ArtifactError(name, "model.vocab must be an object of token -> id")
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
    for entry in data.get("added_tokens") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str) or not isinstance(entry.get("id"), int):
            raise ArtifactError(name, f"added_tokens entries need content and id, got {entry!r}")
        content, i = entry["content"], entry["id"]
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


def _pretokenizer_from_hf(spec, name):
    if not isinstance(spec, dict):
        raise ArtifactError(name, "pre_tokenizer must be a ByteLevel pre-tokenizer (alone or after a Split)")
    steps = spec.get("pretokenizers") if spec.get("type") == "Sequence" else [spec]
    pattern = None
    byte_level = False
    for step in steps or []:
        kind = step.get("type") if isinstance(step, dict) else None
        if kind == "Split" and not byte_level and pattern is None:
            regex = (step.get("pattern") or {}).get("Regex")
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
        "char_limit": char_limit,
        "truncation": truncation,
        "corpus": {
            "documents": result.corpus.documents,
            "characters": result.corpus.characters,
            "bytes": result.corpus.bytes,
            "sha256": result.corpus.sha256,
        },
        "vocab_size": len(tok.vocab) + len(tok.special_tokens),
        "merges": len(result.merges),
        "merges_sha256": _sha256(files["vocab.bpe"]),
        "vocab_sha256": _sha256(files["encoder.json"]),
        "files": {name: {"bytes": len(data), "sha256": _sha256(data)} for name, data in sorted(files.items())},
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


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


def load_files(files):
    """A Tokenizer from a set of files {filename: bytes}, whichever format they are.

    Accepts encoder.json + vocab.bpe (+ manifest.json), a tokenizer.json, or a
    .tiktoken file (+ manifest.json for its pattern and special tokens); any of
    them may come inside a .zip.
    """
    names = {}
    for name, data in files.items():
        if name.lower().endswith(".zip"):
            names.update(_zip_members(name, data))  # BPE Lab's own "download all" .zip, for one
        else:
            names[name.rsplit("/", 1)[-1]] = data
    manifest = names.get("manifest.json")
    _check_manifest_digests(manifest, names)
    encoder = _one_of(names, lambda n: n.endswith("encoder.json") or n == "vocab.json", "encoder.json files")
    merges = _one_of(names, lambda n: n.endswith(".bpe") or n.endswith("merges.txt"), "vocab.bpe files")
    if encoder and merges:
        return from_gpt2_files(names[encoder], names[merges], manifest=manifest)
    if encoder or merges:
        have, need = (encoder, "vocab.bpe") if encoder else (merges, "encoder.json")
        raise ArtifactError(have, f"needs its partner file {need}: GPT-2 format is two files")
    hf = "tokenizer.json" if "tokenizer.json" in names else _one_of(
        names, lambda n: n.endswith(".json") and n != "manifest.json", "JSON files that could be a tokenizer.json"
    )
    if hf:
        return from_hf_tokenizer_json(names[hf], filename=hf)
    ranks = _one_of(names, lambda n: n.endswith(".tiktoken"), ".tiktoken files")
    if ranks:
        return from_tiktoken(names[ranks], manifest=manifest, filename=ranks)
    raise ArtifactError(
        ", ".join(sorted(names)) or "(no files)",
        "no tokenizer found: give encoder.json + vocab.bpe, a tokenizer.json, or a .tiktoken file (or a .zip holding them)",
    )


def _check_manifest_digests(manifest, names):
    """A manifest describes the files it was exported with: settings read from it must not meet other files."""
    if manifest is None:
        return
    recorded = _manifest_data(manifest).get("files")
    if not isinstance(recorded, dict):
        return
    for name, data in names.items():
        entry = recorded.get(name)
        if isinstance(entry, dict) and entry.get("sha256") and entry["sha256"] != _sha256(data):
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
    members = {}
    with archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            where = f"{name}: {info.filename}"
            member = info.filename.rsplit("/", 1)[-1]
            if member in members:
                raise ArtifactError(name, f"holds two files named {member!r}; keep one")
            if info.file_size > MAX_FILE_BYTES:  # checked before inflating anything
                raise ArtifactError(where, f"file too large ({info.file_size:,} bytes; the limit is {MAX_FILE_BYTES:,})")
            try:
                members[member] = archive.read(info)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, zlib.error) as error:
                raise ArtifactError(where, f"cannot be unpacked ({error})") from None
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
