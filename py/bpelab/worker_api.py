"""The browser's door into bpelab: JSON in, JSON out, exceptions as {type, message}.

The web worker (web/js/worker.js) calls `handle(kind, payload_json, progress)`
for every request and posts back what it returns. Nothing here touches the DOM
or needs Pyodide: bytes travel as base64 and JS callbacks are plain callables,
so the same functions run under CPython in the tests.

Tokenizers live in a registry keyed by a short handle ("t1", "t2", ...), so
later views (the merge explorer, compare, embed) can ask about any trained or
imported tokenizer without sending it back and forth.
"""

import base64
import hashlib
import json
import sys
import time
import traceback
import unicodedata

from . import artifacts, counts, pretokenize, report
from .train import CHAR_LIMIT, TrainSettings, check_char_limit, train as train_corpus, truncate_documents
from .pretokenize import get_pretokenizer, split_special
from .ranks import recover_merges

PROGRESS_INTERVAL = 0.05  # seconds between progress messages; the UI needs no more
SELF_CHECK_CHARS = 20_000  # characters of the training text re-encoded after export
TRACE_PIECES = 64  # pieces a trace covers; it says when the text had more

_REGISTRY = {}  # handle -> _Entry
_COUNTER = [0]
_CONFIG = {}


class RequestError(ValueError):
    """A request the worker cannot answer: unknown kind, missing handle or field."""


class _Entry:
    def __init__(self, tokenizer, *, result=None, source="trained", text="", heldout="", name="",
                 files=None, truncation=None):
        self.tokenizer = tokenizer
        self.result = result  # TrainResult, or None for an imported tokenizer
        self.source = source
        self.text = text  # a sample of the training text, for the self-check after export
        self.heldout = heldout
        self.name = name
        self.files = files  # dict[filename, bytes] of an imported tokenizer
        self.truncation = truncation
        self.char_limit = CHAR_LIMIT


def _register(entry):
    _COUNTER[0] += 1
    handle = f"t{_COUNTER[0]}"
    _REGISTRY[handle] = entry
    return handle


def lookup(handle):
    """(Tokenizer, TrainResult or None) under a handle, or None: for the notebook widgets,
    whose kernel is this same Python.

    >>> lookup("t0") is None
    True
    """
    entry = _REGISTRY.get(handle)
    return None if entry is None else (entry.tokenizer, entry.result)


def _entry(payload):
    handle = payload.get("handle")
    if not isinstance(handle, str) or handle not in _REGISTRY:
        raise RequestError(f"no tokenizer with handle {handle!r}: train or import one first")
    return _REGISTRY[handle]


def _whole(payload, name, default, minimum=0):
    """payload[name] as a whole number of at least `minimum` (JSON true, 1.7 or "3" are errors, not guesses)."""
    value = payload.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise RequestError(f"{name} must be a whole number of at least {minimum}, got {value!r}")
    return value


def _text(payload, name, *, optional=False):
    """payload[name] as a string (None allowed when optional)."""
    value = payload.get(name)
    if not (isinstance(value, str) or (optional and value is None)):
        raise RequestError(f"{name} must be a string{' or null' if optional else ''}, got {value!r}")
    return value


def _b64(data):
    return base64.b64encode(data).decode("ascii")


class _Throttle:
    """Calls `send(json)` at most every PROGRESS_INTERVAL seconds, and always for the last step."""

    def __init__(self, send, kind):
        self.send = send
        self.kind = kind
        self.last = 0.0
        self.started = time.perf_counter()

    def __call__(self, done, total, **extra):
        if self.send is None:
            return True
        now = time.perf_counter()
        if done < total and now - self.last < PROGRESS_INTERVAL:
            return True
        self.last = now
        message = {"stage": self.kind, "done": done, "total": total,
                   "elapsed": round(now - self.started, 3), **extra}
        self.send(json.dumps(message))
        return True


# ---------------------------------------------------------------- requests


def versions():
    """Versions of the pieces the page shows in its footer, as JSON.

    >>> sorted(json.loads(versions()))
    ['bpelab', 'python', 'unicodedata']
    """
    try:
        from . import __version__ as bpelab_version
    except ImportError:  # the package has no __init__ version yet
        bpelab_version = _CONFIG.get("bpelab", "unknown")
    return json.dumps({
        "bpelab": bpelab_version,
        "python": sys.version.split()[0],
        "unicodedata": unicodedata.unidata_version,
    })


def configure(config_json):
    """Remember facts about the site (its URL, the rank files it ships).

    >>> configure('{"ranks": []}')
    """
    _CONFIG.update(json.loads(config_json))


def _settings_from(payload):
    """TrainSettings from the page's settings object; unknown names are an error, not ignored."""
    settings = dict(payload.get("settings") or {})
    fields = set(TrainSettings.__dataclass_fields__)
    unknown = sorted(set(settings) - fields)
    if unknown:
        raise RequestError(f"unknown training settings {unknown!r}; known: {sorted(fields)!r}")
    return TrainSettings(**settings)


def _describe(handle, entry, *, include_vocab=True, include_merges=True):
    """What the page shows about a tokenizer: sizes, merges with counts, every token's bytes."""
    tok = entry.tokenizer
    vocab = tok.vocab
    note = None
    pairs = tok.merges
    if not include_merges:
        pairs = []
    elif pairs is None:
        # A rank table (.tiktoken) has no merge list; recover it the way tiktoken's loader checks it.
        by_bytes = {token: i for i, token in vocab.items()}
        try:
            pairs = [(by_bytes[a], by_bytes[b]) for a, b in recover_merges(by_bytes)]
        except ValueError as error:
            pairs, note = [], f"the merge list cannot be shown: {error}"
    by_bytes = {token: i for i, token in vocab.items()}
    # [left id, right id, id of the merged token]: in GPT-2's layout that id is not 256 + rank.
    merges = [[a, b, by_bytes[vocab[a] + vocab[b]]] for a, b in pairs]
    counts = list(entry.result.merge_counts) if entry.result is not None else None
    n_base = sum(1 for token in vocab.values() if len(token) == 1)
    info = {
        "handle": handle,
        "source": entry.source,
        "name": entry.name or tok.name or handle,
        "n_vocab": tok.n_vocab,
        "n_merges": len(merges) if include_merges else len(vocab) - n_base,
        "n_base": n_base,
        "merges": merges,
        "merge_counts": counts,
        "special_tokens": dict(tok.special_tokens),
        "pretokenizer": {"name": tok.pretokenizer.name, "pattern": tok.pretokenizer.pattern},
    }
    if note:
        info["merges_note"] = note
    if include_vocab:
        # Hex keeps partial UTF-8 exact; the page draws byte chips from it. A token that a listed merge
        # makes is null: the page joins its two parts. Training one long document (the `bytes`
        # pre-tokenizer) makes tokens thousands of bytes long, and spelling each out made a 15 MB reply.
        made = {merged for _, _, merged in merges}
        info["vocab"] = [vocab[i].hex() if i in vocab and i not in made else None for i in range(max(vocab) + 1)]
    if entry.result is not None:
        result = entry.result
        info["stop_reason"] = result.stop_reason
        corpus = result.corpus
        info["input"] = result.input  # "text", or "counts" (a word-count table)
        if result.input == "counts":
            info["corpus"] = corpus.to_dict()  # pieces, occurrences, characters, bytes, sha256
        else:
            info["corpus"] = {"documents": corpus.documents, "characters": corpus.characters, "bytes": corpus.bytes,
                              "sha256": corpus.sha256}
        info["settings"] = _jsonable(_settings_dict(result.settings))
    if entry.truncation:
        info["truncation"] = entry.truncation
    return info


def reply_vocab(info):
    """Every token's bytes, {id: bytes}, from a tokenizer reply (train, at_merges, a reference's info).

    The reply spells out only the tokens no listed merge makes; a merged token is its two parts
    joined, in merge order, as the page does (train-results.js).
    """
    vocab = {i: bytes.fromhex(spelled) for i, spelled in enumerate(info["vocab"]) if spelled is not None}
    for left, right, merged in info["merges"]:
        vocab.setdefault(merged, vocab[left] + vocab[right])
    return vocab


def _settings_dict(settings):
    if hasattr(settings, "to_dict"):
        return settings.to_dict()
    from dataclasses import asdict

    return asdict(settings)


def _jsonable(value):
    return json.loads(json.dumps(value, default=lambda o: list(o) if isinstance(o, (set, tuple)) else str(o)))


def _counts_table(payload, specials):
    """The word-count table of payload.counts: the box's lines (counts_format "lines") or a JSON object ("json")."""
    text = payload.get("counts")
    if not isinstance(text, str):
        raise RequestError("payload.counts must be a string: piece-count lines, or a JSON object's text")
    kind = payload.get("counts_format", "lines")
    if kind not in ("lines", "json"):
        raise RequestError(f"counts_format must be 'lines' or 'json', got {_short(kind)}")
    source = _text(payload, "counts_source", optional=True) or ("Word counts" if kind == "lines" else "counts")
    table = (counts.parse_lines if kind == "lines" else counts.parse_json)(text, source, specials)
    if not table:
        raise counts.CountsError(source, "holds no counts; write one piece and its count per line, like 'low 5'"
                                 if kind == "lines" else 'holds no counts; give an object like {"low": 5}')
    return table


def _counts_check(payload, progress):
    """A word-count table read and checked, in both forms: payload {counts, counts_format?, special_tokens?}."""
    specials = payload.get("special_tokens") or []
    if not isinstance(specials, list) or not all(isinstance(t, str) for t in specials):
        raise RequestError("counts_check: special_tokens must be a list of strings")
    table = _counts_table(payload, specials)
    info = counts.CountsInfo.of(table).to_dict()
    info["json"] = json.dumps(table, ensure_ascii=False, separators=(",", ":"))  # the `counts` parameter
    info["lines"] = counts.to_lines(table)  # the box's text
    return info


def _train(payload, progress):
    settings = _settings_from(payload)
    table = _counts_table(payload, settings.special_tokens) if payload.get("counts") is not None else None
    documents = payload.get("documents") if table is None else None
    if table is None and (not isinstance(documents, list) or not all(isinstance(d, str) for d in documents)):
        raise RequestError("train needs payload.documents, a list of strings, or payload.counts")
    _text(payload, "heldout", optional=True)
    _text(payload, "name", optional=True)
    char_limit = payload.get("char_limit", CHAR_LIMIT)
    truncation = None
    if table is not None:
        char_limit = None  # a table trains whole: no character limit applies, as in the CLI
    elif payload.get("truncate"):
        # The same two functions as the CLI, so a cut text gives the same files there and here.
        documents, truncation = truncate_documents(documents, char_limit)
    else:
        check_char_limit(documents, char_limit, truncate="truncate: true", raise_limit="shorten the text")
    throttle = _Throttle(progress, "train")
    started = time.perf_counter()
    record = bool(payload.get("record"))
    if table is not None:
        result = train_corpus(counts=table, settings=settings, on_progress=throttle, record=record)
        sample = " ".join(table)
    else:
        result = train_corpus(documents, settings, on_progress=throttle, record=record)
        sample = "".join(result.documents)
    seconds = time.perf_counter() - started
    entry = _Entry(result.tokenizer, result=result, source="trained",
                   text=sample[:SELF_CHECK_CHARS], heldout=payload.get("heldout") or "",
                   name=payload.get("name") or "", truncation=truncation)
    entry.char_limit = char_limit
    handle = _register(entry)
    info = _describe(handle, entry)
    info["seconds"] = round(seconds, 3)
    if payload.get("report", True):
        info["report"] = _report(entry, payload.get("heldout") or None, progress)
    return info


def _report_request(payload, progress):
    """The compression report of a trained tokenizer, asked for after training (it can take longer)."""
    entry = _entry(payload)
    if entry.result is None:
        raise RequestError(f"tokenizer {payload['handle']!r} was not trained here: no training text to measure")
    heldout = payload.get("heldout")
    if heldout is not None and not isinstance(heldout, str):
        raise RequestError("report: heldout must be a string or null")
    return _report(entry, heldout or None, progress)


def _report(entry, heldout, progress):
    """The compression report (report.py) for the training text and the held-out text."""
    throttle = _Throttle(progress, "report")
    throttle(0, 1)
    return _jsonable(report.compression_report(entry.result, heldout, on_progress=throttle))


def _export(payload, progress):
    entry = _entry(payload)
    if entry.result is None:
        raise RequestError("only a tokenizer trained here can be exported with a manifest; "
                           "an imported one is already in files")
    id_layout = payload.get("id_layout", "seed")
    files = artifacts.export_files(entry.result, id_layout=id_layout, char_limit=entry.char_limit,
                                   truncation=entry.truncation)
    listing = [{"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                "base64": _b64(data)} for name, data in files.items()]
    return {"files": listing, "id_layout": id_layout, "self_check": _self_check(entry, files)}


def _self_check(entry, files):
    """Load the exported files back and check that they encode a sample as the original does."""
    sample = entry.text or "hello world"
    try:
        check = artifacts.self_check(files, entry.tokenizer, sample)
    except Exception as error:  # the check reports, it never hides a failure
        check = {"ok": False, "message": f"Self-check FAILED: the exported files do not load back: {error}"}
    check["sample_chars"] = len(sample)
    return check


def _import(payload, progress):
    """Import tokenizer files. payload: files [{name, base64}], name?, pretokenizer? (for a .tiktoken
    that does not say: a name or {"name": "custom", "pattern": ...}; PretokenizerNeeded asks for it)."""
    raw = payload.get("files")
    if not isinstance(raw, list) or not raw:
        raise RequestError("import needs payload.files, a list of {name, base64}")
    if len(raw) > 16:
        raise RequestError(f"import: {len(raw)} files; a tokenizer is at most 3 files (or one .zip)")
    files = {}
    for item in raw:
        if not isinstance(item, dict):
            raise RequestError(f"import: each file must be an object {{name, base64}}, got {_short(item)}")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise RequestError(f"import: a file without a name: {_short(item)}")
        encoded = item.get("base64", "")
        if not isinstance(encoded, str):
            raise RequestError(f"import: {name!r}: base64 must be a string, got {_short(encoded)}")
        if len(encoded) > (artifacts.MAX_FILE_BYTES + 2) // 3 * 4:  # checked before decoding
            raise artifacts.ArtifactError(
                name, f"file too large (about {len(encoded) * 3 // 4:,} bytes; the limit is {artifacts.MAX_FILE_BYTES:,})"
            )
        try:
            files[name] = base64.b64decode(encoded, validate=True)
        except ValueError:
            raise RequestError(f"import: {name!r}: the content is not valid base64") from None
    label = payload.get("name")
    if label is not None and not isinstance(label, str):
        raise RequestError(f"import: name must be a string, got {_short(label)}")
    tokenizer = artifacts.load_files(files, pretokenizer=payload.get("pretokenizer"))
    entry = _Entry(tokenizer, source="imported", name=label or ", ".join(sorted(files)),
                   files=files)
    handle = _register(entry)
    return _describe(handle, entry)


def _encode(payload, progress):
    """Encode one text with one or several tokenizers (the compare view asks for several)."""
    text = payload.get("text")
    if not isinstance(text, str):
        raise RequestError("encode needs payload.text, a string")
    handles = payload.get("handles") or [payload.get("handle")]
    if not isinstance(handles, list):
        raise RequestError(f"handles must be a list of tokenizer handles, got {handles!r}")
    allowed = payload.get("allowed_special", "all")
    if isinstance(allowed, list) and all(isinstance(token, str) for token in allowed):
        allowed = set(allowed)
    elif allowed != "all":
        raise RequestError(f'allowed_special must be "all" or a list of special-token strings, got {allowed!r}')
    out = []
    for handle in handles:
        entry = _entry({"handle": handle})
        out.append({"handle": handle, "ids": entry.tokenizer.encode(text, allowed_special=allowed)})
    return {"results": out}


def _describe_request(payload, progress):
    entry = _entry(payload)
    return _describe(payload["handle"], entry, include_vocab=payload.get("vocab", True))


def _drop(payload, progress):
    _entry(payload)
    del _REGISTRY[payload["handle"]]
    return {"dropped": payload["handle"]}


def _validate_pattern(payload, progress):
    """Compile a custom pre-tokenizer pattern and show how it splits a sample."""
    pretokenizer = get_pretokenizer("custom", pattern=payload.get("pattern"))
    sample = _text(payload, "sample", optional=True) or ""
    return {"pieces": pretokenizer.split(sample)[:200]}


def _steps(payload, progress):
    """The explorer's per-merge records (train with record: true), a page at a time."""
    entry = _entry(payload)
    steps = entry.result.steps if entry.result is not None else None
    if steps is None:
        raise RequestError(f"tokenizer {payload['handle']!r} has no step records: train it with record: true")
    start = _whole(payload, "start", 0)
    stop = _whole(payload, "stop", start + 100, minimum=start)
    return {"total": len(steps), "start": start, "steps": _jsonable(steps[start:min(stop, len(steps))])}


def _trace(payload, progress):
    """Every rank-based encode step for each pre-token of a short text (seed 003's trace)."""
    entry = _entry(payload)
    text = _text(payload, "text")
    tok = entry.tokenizer
    pieces = []  # special tokens are pieces of their own, as encode(allowed_special="all") treats them
    for chunk, _start, is_special in split_special(text, sorted(tok.special_tokens)):
        pieces += [(chunk, True)] if is_special else [(piece, False) for piece in tok.pretokenizer.split(chunk)]
        if len(pieces) > TRACE_PIECES:
            break
    out = [{"piece": piece, "special_id": tok.special_tokens[piece], "steps": []} if special
           else {"piece": piece, "steps": _jsonable(tok.encode_trace(piece))}
           for piece, special in pieces[:TRACE_PIECES]]
    return {"pieces": out, "truncated": len(pieces) > TRACE_PIECES}


def _at_merges(payload, progress):
    """A new handle for the tokenizer as it was after its first k merges (compare at any size)."""
    entry = _entry(payload)
    k = _whole(payload, "merges", None)
    tokenizer = report.truncate_merges(entry.tokenizer, k)
    handle = _register(_Entry(tokenizer, source="derived", name=f"{entry.name or payload['handle']} @ {k} merges"))
    return _describe(handle, _REGISTRY[handle], include_vocab=payload.get("vocab", False))


def _reference(payload, progress):
    """OpenAI's GPT-2, cl100k_base or o200k_base, from the rank file the worker fetched to payload.path."""
    from .openai_vocab import load_reference

    name = payload.get("name")
    path = payload.get("path")
    if not isinstance(path, str):
        raise RequestError(f"reference {name!r}: the site has no rank file for it (build_ranks.py was not run)")
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise RequestError(f"reference {name!r}: cannot read its rank file {path}: {error.strerror}") from None
    tokenizer = load_reference(name, data)
    key = _register(_Entry(tokenizer, source="reference", name=tokenizer.name))
    # A 200,000-token table is too much to send or to recover merges for unasked.
    return _describe(key, _REGISTRY[key], include_vocab=bool(payload.get("vocab")), include_merges=False)


def _ping(payload, progress):
    return {"pong": payload.get("echo")}


_HANDLERS = {
    "ping": _ping,
    "train": _train,
    "export": _export,
    "import": _import,
    "encode": _encode,
    "describe": _describe_request,
    "drop": _drop,
    "pattern": _validate_pattern,
    "steps": _steps,
    "trace": _trace,
    "at_merges": _at_merges,
    "reference": _reference,
    "report": _report_request,
    "counts_check": _counts_check,
}


# ---------------------------------------------------------------- display, vocabulary, bundle (issue 12)


def _display_request(payload, progress):
    """The token display model (bpelab.display) of payload.text, or of payload.ids, for one tokenizer."""
    from . import display

    entry = _entry(payload)
    start = payload.get("start")
    stop = payload.get("stop")
    if "ids" in payload:
        ids = payload["ids"]
        if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
            raise RequestError(f"display: ids must be a list of whole numbers, got {str(ids)[:60]}")
        model = display.display_ids(entry.tokenizer, ids, start, stop)
    else:
        text = _text(payload, "text")
        model = display.display_text(entry.tokenizer, text, payload.get("policy", "raise"), start, stop)
    model["handle"] = payload["handle"]
    return model


_HANDLERS["display"] = _display_request


def _vocab_request(payload, progress):
    """A page of a tokenizer's vocabulary, or of a search: {handle, kind: all|text|hex|id, query, start, count}."""
    from .vocab_browse import browse

    entry = _entry(payload)
    return browse(entry.tokenizer, payload.get("kind", "all"), payload.get("query", ""),
                  _whole(payload, "start", 0), _whole(payload, "count", 100, minimum=1))


def _bundle_request(payload, progress):
    """Every file of any tokenizer (imported, reference, derived) with its own ids, and the self-check.

    A tokenizer trained here has `export` (its manifest records the training run); this is for the others.
    """
    from . import bundle

    entry = _entry(payload)
    started = time.perf_counter()
    files = bundle.tokenizer_files(entry.tokenizer, name=entry.name, source=entry.source)
    check = bundle.check_files(files, entry.tokenizer)
    listing = [{"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "base64": _b64(data)}
               for name, data in files.items()]
    return {"files": listing, "self_check": check, "seconds": round(time.perf_counter() - started, 3)}


def _zip_request(payload, progress):
    """One .zip of the files given ({files: [{name, base64}], compress?: true}), written by zipfile."""
    from . import bundle

    raw = payload.get("files")
    if not isinstance(raw, list) or not raw:
        raise RequestError("zip needs payload.files, a list of {name, base64}")
    files = {}
    for item in raw:
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name or "/" in name or name in files:
            raise RequestError(f"zip: each file needs a plain, unique name; got {name!r}")
        files[name] = base64.b64decode(item.get("base64", ""), validate=True)
    started = time.perf_counter()
    data = bundle.make_zip(files, compress=payload.get("compress", True) is not False)
    return {"base64": _b64(data), "size": len(data), "files_size": sum(map(len, files.values())),
            "seconds": round(time.perf_counter() - started, 3)}


_HANDLERS["vocab"] = _vocab_request
_HANDLERS["bundle"] = _bundle_request
_HANDLERS["zip"] = _zip_request


# ---------------------------------------------------------------- compare requests (issue 14)

_COMPARE_CACHE = []  # [compare.EncodingCache], made on first use
_BYTES_HANDLE = []  # the handle of the plain-bytes tokenizer, registered once


def _compare_tokenizers(payload, field="handles"):
    """[(handle, name, Tokenizer)] for payload[field], a non-empty list of handles."""
    handles = payload.get(field)
    if not isinstance(handles, list) or not handles:
        raise RequestError(f"{field} must be a non-empty list of tokenizer handles, got {handles!r}")
    out = []
    for handle in handles:
        entry = _entry({"handle": handle})
        out.append((handle, entry.name or entry.tokenizer.name or handle, entry.tokenizer))
    return out


def _compare(payload, progress):
    """The compare view's panes: each tokenizer's window of tokens, counts, boundary differences, policies."""
    from . import compare

    panes = _compare_tokenizers(payload)
    text = _text(payload, "text")
    limit = _whole(payload, "char_limit", CHAR_LIMIT, minimum=1)
    if len(text) > limit:
        raise RequestError(f"the text has {len(text):,} characters, over the limit of {limit:,}: shorten it "
                           "(or raise char_limit)")
    windows = payload.get("windows")
    if windows is not None and not (isinstance(windows, list) and all(
            w is None or (isinstance(w, list) and len(w) == 2 and all(
                isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in w)) for w in windows)):
        raise RequestError(f"windows must be a list of [start, stop] token ranges (or null), got {windows!r}")
    if not _COMPARE_CACHE:
        _COMPARE_CACHE.append(compare.EncodingCache())
    return compare.compare_panes(panes, text, payload.get("policy", "raise"), windows, _COMPARE_CACHE[0])


def _compare_copy(payload, progress):
    """Seed 003's lines for the panes ("copy as text")."""
    from . import compare

    text = _text(payload, "text")
    policy = payload.get("policy", "raise")
    names = payload.get("names")
    panes = []
    for index, (_handle, name, tokenizer) in enumerate(_compare_tokenizers(payload)):
        if isinstance(names, list) and index < len(names) and isinstance(names[index], str):
            name = names[index]
        panes.append((name, tokenizer, compare.encode(tokenizer, text, policy)))
    return {"text": compare.seed_lines(text, panes)}


def _token_detail(payload, progress):
    """One token's id, bytes in hex, merge parents and rank (the focused token of a pane)."""
    from . import compare

    entry = _entry(payload)
    return compare.token_detail(entry.tokenizer, _whole(payload, "id", None))


def _merge_diff(payload, progress):
    """Two trained configurations: the first merge where they part, the merges each lacks, counts on a text."""
    from . import compare

    (_a, _na, tok_a), (_b, _nb, tok_b) = _compare_tokenizers({"handles": [payload.get("a"), payload.get("b")]})
    return compare.merge_diff(tok_a, tok_b, _text(payload, "text", optional=True),
                              _whole(payload, "limit", compare.DIFF_LIMIT))


def _language_table(payload, progress):
    """What each tokenizer costs each language: payload.texts [{code, name, text}], ratios to payload.base."""
    from . import compare

    texts = payload.get("texts")
    if not isinstance(texts, list) or not all(
            isinstance(t, dict) and all(isinstance(t.get(k), str) for k in ("code", "name", "text")) for t in texts):
        raise RequestError("language_table needs texts, a list of {code, name, text} strings")
    tokenizers = [(name, tok) for _handle, name, tok in _compare_tokenizers(payload)]
    names = payload.get("names")
    if isinstance(names, list) and len(names) == len(tokenizers) and all(isinstance(n, str) for n in names):
        tokenizers = [(name, tok) for name, (_old, tok) in zip(names, tokenizers)]
    return compare.language_table(tokenizers, [(t["code"], t["name"], t["text"]) for t in texts],
                                  _text(payload, "base", optional=True))


def _bytes_tokenizer(payload, progress):
    """A handle for plain bytes (no merges), registered once per worker."""
    from .tokenizer import Tokenizer

    if not _BYTES_HANDLE or _BYTES_HANDLE[0] not in _REGISTRY:
        _BYTES_HANDLE[:] = [_register(_Entry(Tokenizer.bytes_only(), source="bytes", name="bytes"))]
    handle = _BYTES_HANDLE[0]
    return _describe(handle, _REGISTRY[handle], include_vocab=False)


_HANDLERS["compare"] = _compare
_HANDLERS["compare_copy"] = _compare_copy
_HANDLERS["token_detail"] = _token_detail
_HANDLERS["merge_diff"] = _merge_diff
_HANDLERS["language_table"] = _language_table
_HANDLERS["bytes_tokenizer"] = _bytes_tokenizer

# ---------------------------------------------------------------- explorer requests (issue 13)


def _explorer(payload):
    """The Explorer of a handle's tokenizer, built once per handle."""
    from .explore import Explorer

    entry = _entry(payload)
    if getattr(entry, "explorer", None) is None:
        entry.explorer = Explorer(entry.tokenizer, entry.result)
    return entry.explorer


def _explore_window(explorer, payload, step):
    window = payload.get("window")
    if window is None:
        return None
    if not isinstance(window, dict):
        raise RequestError(f"window must be an object {{start, size}} or null, got {window!r}")
    text = _text(window, "text", optional=True)
    if text is None and explorer.result is None:
        return None  # an imported tokenizer has no training text; the page sends one
    return explorer.window(step, _whole(window, "start", 0), _whole(window, "size", 2000, minimum=1), text=text)


def _explore_step(payload, progress):
    """Step k of the explorer: {view, window}; payload {handle, step, window?: {start, size, text?}}."""
    started = time.perf_counter()
    explorer = _explorer(payload)
    step = _whole(payload, "step", 0)
    # Built of dicts, lists, tuples, str and int only: no _jsonable round trip (it doubled the JSON time of a jump).
    result = {"view": explorer.step_view(step), "window": _explore_window(explorer, payload, step)}
    if not getattr(explorer, "frozen", False):
        # The records, tables and text index live as long as the handle, and a full collection walked
        # them all every hundred jumps or so (70 ms in CPython, several times that in Pyodide). Frozen,
        # they are skipped. Unfreezing first lets this one collection reclaim what an earlier freeze kept.
        import gc

        explorer.frozen = True
        gc.unfreeze()
        gc.collect()
        gc.freeze()
    result["python_ms"] = round((time.perf_counter() - started) * 1000, 2)  # for bench_explorer.py
    return result


def _explore_token(payload, progress):
    """Where a token came from: payload {handle, id}."""
    return _jsonable(_explorer(payload).provenance(_whole(payload, "id", None)))


def _explore_trace(payload, progress):
    """The encode trace with the pre-tokenizer layer: payload {handle, text, merges?}."""
    merges = payload.get("merges")
    merges = None if merges is None else _whole(payload, "merges", None)
    return _jsonable(_explorer(payload).trace(_text(payload, "text"), merges))


def _explore_judge(payload, progress):
    """Predict mode: payload {handle, step, pair: [a, b]} -> was pair the merge that makes step + 1, and why."""
    return _jsonable(_explorer(payload).judge(_whole(payload, "step", None), payload.get("pair")))


_HANDLERS["explore_step"] = _explore_step
_HANDLERS["explore_token"] = _explore_token
_HANDLERS["explore_trace"] = _explore_trace
_HANDLERS["explore_judge"] = _explore_judge


def _short(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:65] + f"... ({len(text):,} characters)"


# Bidi controls in a message (from a file name or a token) would reorder the
# page's text around them: they are shown as escapes, as repr() shows them.
_BIDI = {cp: f"\\u{cp:04x}" for cp in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))}
MAX_PAYLOAD_DEPTH = 32  # the page's payloads nest 4 deep; deeper JSON is refused before json.loads


def _payload_int(digits):
    """A JSON integer of the payload; Python refuses to read one of over 4,300 digits, with advice for programmers."""
    if len(digits.lstrip("-0")) > 20:
        raise RequestError(f"the payload holds a number of {len(digits):,} digits; ids and counts are below 2**31")
    return int(digits)


def _error_reply(error):
    """{type, message} for an exception; the page shows the message, and logs a traceback for a bug."""
    if isinstance(error, RecursionError):
        message = "the input nests too deeply to process (RecursionError); nothing was changed"
    elif isinstance(error, MemoryError):
        message = "out of memory: the input is too large for the page; nothing was changed"
    else:
        message = str(error) or error.__class__.__name__
    reply = {"type": error.__class__.__name__, "message": message.translate(_BIDI)}
    if isinstance(error, counts.CountsError) and isinstance(error.line, int):
        reply["line"] = error.line  # the box marks the bad line
    if isinstance(error, artifacts.PretokenizerNeeded):
        reply["file"] = str(error.filename).translate(_BIDI)
        reply["choices"] = list(error.choices)
    if not isinstance(error, (ValueError, RecursionError, MemoryError)):
        # Not a bad input but a bug: the page logs the traceback to the console for the report.
        reply["traceback"] = traceback.format_exc(limit=-8)
    return reply


def _watch_splits(progress):
    """Tell the page when a custom pattern starts and ends on a long text: in Pyodide nothing else can stop one
    that backtracks for ever, and the page stops the worker when a split outlasts its budget (worker-client.js)."""
    def watch(pattern, characters, running):
        progress(json.dumps({"watch": "pattern", "pattern": pretokenize._shorten(repr(pattern)),
                             "characters": characters, "running": running}))

    pretokenize.watch_custom_splits(watch)
    return True


def handle(kind, payload_json, progress=None):
    """Answer one request; always returns JSON {"ok": true, "result"} or {"ok": false, "error"}.

    >>> json.loads(handle("ping", '{"echo": 1}'))
    {'ok': True, 'result': {'pong': 1}}
    >>> json.loads(handle("nope", "{}"))["error"]["type"]
    'RequestError'
    """
    try:
        handler = _HANDLERS.get(kind)
        if handler is None:
            raise RequestError(f"unknown request type {kind!r}; known: {sorted(_HANDLERS)!r}")
        if payload_json and artifacts.json_depth(payload_json, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH:
            raise RequestError(f"the payload nests more than {MAX_PAYLOAD_DEPTH} levels deep; refused before parsing")
        payload = json.loads(payload_json, parse_int=_payload_int) if payload_json else {}
        if not isinstance(payload, dict):
            raise RequestError(f"the payload must be a JSON object, got {type(payload).__name__}")
        # In Pyodide only: CPython's main thread stops a slow split itself (a CPU budget, by signal).
        watched = progress is not None and sys.platform == "emscripten" and _watch_splits(progress)
        try:
            result = handler(payload, progress)
        finally:
            if watched:
                pretokenize.watch_custom_splits(None)
        return json.dumps({"ok": True, "result": result})
    except Exception as error:
        return json.dumps({"ok": False, "error": _error_reply(error)})
