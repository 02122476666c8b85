"""Explorer, Compare and Encode: anywidget widgets that mount the site's own view elements.

Each widget's front end is the bundle in static/widget.js (build_scripts/build_widget.py):
it mounts `<bpe-explorer-view>`, `<bpe-compare-view>` or `<bpe-encode-view>` with the
traits as the view's params, and the view's requests travel over the widget's comm to
`kernel.answer`, the worker's dispatch run by this kernel. What the view shows flows
back into the traits (`step`, `panes`, `policy`, `tokenizer`, `text`), so
`w.observe(f, "step")` sees a click, and `w.step = 3` moves the view.

Not here: the protocol (`kernel.py`), the views (web/js/views/), the notebook's theme
(the front end reads it from the page).
"""

import os
from pathlib import Path

import anywidget
import traitlets as t

from .. import artifacts, compare, worker_api
from ..openai_vocab import REFERENCE_NAMES, load_reference
from ..report import truncate_merges
from ..tokenizer import Tokenizer
from ..train import CHAR_LIMIT, TrainSettings
from . import kernel

STATIC = Path(__file__).resolve().parent / "static"
BUNDLE = STATIC / "widget.js"
PRETOKENIZERS = ("gpt2", "cl100k", "o200k", "whitespace", "bytes", "custom")
TIE_BREAKS = ("greater", "smaller-id", "first-seen")
POLICIES = ("raise", "allow", "text")
DEFAULT_VOCAB_SIZE = 1000  # the site's default (web/js/settings.js)


_BUNDLE_TEXT = []  # the front end's source, read once


def _bundle():
    """The front end's source (anywidget sends it to the browser once per widget)."""
    if _BUNDLE_TEXT:
        return _BUNDLE_TEXT[0]
    if not BUNDLE.is_file():
        raise RuntimeError(f"the widgets' front end {str(BUNDLE)!r} is missing: this bpelab was installed from a "
                           "checkout without it; build it with `.venv/bin/python build_scripts/build_widget.py` "
                           "(after `npm ci`), or install bpelab from its wheel")
    _BUNDLE_TEXT.append(BUNDLE.read_text(encoding="utf-8"))
    return _BUNDLE_TEXT[0]


class _Widget(anywidget.AnyWidget):
    """What every BPE Lab widget shares: the front end, the comm to the kernel, the status traits."""

    _view = t.Unicode("").tag(sync=True)
    # Set by the front end: booting | ready | busy | error, the one-line message a failure shows,
    # and the view's last state (its bpe-state event: step, pair, counts ...).
    status = t.Unicode("booting").tag(sync=True)
    error = t.Unicode("").tag(sync=True)
    state = t.Dict().tag(sync=True)
    _first_state_ms = t.Int(0).tag(sync=True)  # render to the first state drawn, in the browser's clock

    def __init__(self, **kwargs):
        self._esm = _bundle()  # before anywidget's __init__, which makes it a synced trait
        super().__init__(**kwargs)
        self.on_msg(self._on_front_end_message)

    def _on_front_end_message(self, _widget, content, _buffers):
        kernel.answer(content, self.send)


class _Trains(t.HasTraits):
    """Training settings as traits (TrainSettings' fields) and the run they make, shared with the view."""

    vocab_size = t.Int(None, allow_none=True, min=0).tag(sync=True)
    num_merges = t.Int(None, allow_none=True, min=0).tag(sync=True)
    pretokenizer = t.Enum(PRETOKENIZERS, "gpt2").tag(sync=True)
    pattern = t.Unicode(None, allow_none=True).tag(sync=True)
    tie_break = t.Enum(TIE_BREAKS, "greater").tag(sync=True)
    min_count = t.Int(1, min=1).tag(sync=True)
    special_tokens = t.List(t.Unicode(), ["<|endoftext|>"]).tag(sync=True)
    document_separator = t.Unicode(None, allow_none=True).tag(sync=True)

    _corpus_trait = "text"  # the trait that holds the training text

    def _corpus(self):
        return getattr(self, self._corpus_trait)

    def settings(self):
        """The training settings as TrainSettings (the vocabulary defaults to the site's 1,000)."""
        size = {"num_merges": self.num_merges} if self.num_merges is not None else {
            "vocab_size": DEFAULT_VOCAB_SIZE if self.vocab_size is None else self.vocab_size}
        return TrainSettings(**size, pretokenizer=self.pretokenizer, tie_break=self.tie_break,
                             min_count=self.min_count, special_tokens=tuple(self.special_tokens),
                             pattern=self.pattern if self.pretokenizer == "custom" else None,
                             document_separator=self.document_separator or None)

    def _train_reply(self):
        corpus = self._corpus()
        if not corpus:
            raise ValueError(f"{type(self).__name__} has no training text: set its {self._corpus_trait}")
        settings = {k: v for k, v in vars(self.settings()).items() if v is not None}
        settings["special_tokens"] = list(settings["special_tokens"])
        # The payload the view's own run sends (web/js/views/explorer-train.js): one run for both.
        payload = {"documents": [corpus], "settings": settings, "truncate": True, "char_limit": CHAR_LIMIT,
                   "name": "your text", "record": True, "report": False}
        reply = kernel.train(payload)
        if not reply["ok"]:
            raise ValueError(reply["error"]["message"])
        return reply["result"]

    @property
    def result(self):
        """The TrainResult of the widget's text and settings (trained once, by the view or here)."""
        return worker_api.lookup(self._train_reply()["handle"])[1]

    def export(self, out, *, id_layout="seed", force=False):
        """Write the trained tokenizer's files to folder `out`, as the site's export and `bpelab train --out` do.

        Returns {file name: Path}.
        """
        from ..cli import UsageError, write_export

        reply = self._train_reply()
        files = artifacts.export_files(self.result, id_layout=id_layout, char_limit=CHAR_LIMIT,
                                       truncation=reply.get("truncation"))
        out = os.fspath(out)
        try:
            write_export(out, files, force=force)
        except UsageError as error:  # the CLI's words for its options, as this method's arguments
            message = str(error).replace("--out ", "export: out ").replace("--force", "force=True")
            raise ValueError(message) from None
        return {name: Path(out) / name for name in files}


class Explorer(_Trains, _Widget):
    """The merge explorer on a text: `Explorer(text, vocab_size=265, step=5)`.

    Traits: text, the training settings (vocab_size or num_merges, pretokenizer,
    pattern, tie_break, min_count, special_tokens, document_separator), step (the view
    follows it and sets it); steps, state, status and error are set by the view.
    """

    _view = t.Unicode("explorer").tag(sync=True)
    text = t.Unicode("").tag(sync=True)
    step = t.Int(0, min=0).tag(sync=True)
    steps = t.Int(0).tag(sync=True)

    def __init__(self, text="", **kwargs):
        super().__init__(text=text, **kwargs)


def _pane_tokenizer(widget, spec):
    """The kernel's tokenizer for a compare pane's spelling (gpt2, cl100k, o200k, bytes, trained, trained@K)."""
    if spec in REFERENCE_NAMES:
        return load_reference(spec)
    if spec == "bytes":
        return Tokenizer.bytes_only()
    if spec == "trained" or spec.startswith("trained@"):
        tokenizer = widget.result.tokenizer
        if spec == "trained":
            return tokenizer
        k = spec.partition("@")[2]
        if not k.isdigit():
            raise ValueError(f"pane {spec!r}: write trained@K with K a whole number of merges")
        return truncate_merges(tokenizer, int(k))
    raise ValueError(f"pane {spec!r} has no tokenizer in Python: ids are given for gpt2, cl100k, o200k, bytes, "
                     "trained and trained@K")


class Compare(_Trains, _Widget):
    """One text, several tokenizers side by side: `Compare("Xin chào thế giới")`.

    Traits: text, panes (the site's spellings: gpt2, cl100k, o200k, bytes, trained,
    trained@K, alt_SIZE_PRE_TIE), policy (raise, allow, text); for trained panes, corpus
    (the training text) and the training settings. `ids` is {pane: ids}.
    """

    _view = t.Unicode("compare").tag(sync=True)
    text = t.Unicode("").tag(sync=True)
    panes = t.List(t.Unicode(), ["gpt2", "cl100k", "o200k"]).tag(sync=True)
    policy = t.Enum(POLICIES, "raise").tag(sync=True)
    corpus = t.Unicode("").tag(sync=True)

    def __init__(self, text="", **kwargs):
        super().__init__(text=text, **kwargs)

    _corpus_trait = "corpus"

    @property
    def ids(self):
        """{pane: the ids of text}, under the special-token policy."""
        return {spec: compare.encode(_pane_tokenizer(self, spec), self.text, self.policy) for spec in self.panes}


class Encode(_Trains, _Widget):
    """An encode box: `Encode("hello world", tokenizer="o200k")`.

    Traits: text, tokenizer (gpt2, cl100k, o200k or trained), policy (raise, allow,
    text); for tokenizer="trained", corpus and the training settings. `ids` is the ids.
    """

    _view = t.Unicode("encode").tag(sync=True)
    text = t.Unicode("").tag(sync=True)
    tokenizer = t.Unicode("o200k").tag(sync=True)
    policy = t.Enum(POLICIES, "raise").tag(sync=True)
    corpus = t.Unicode("").tag(sync=True)

    def __init__(self, text="", **kwargs):
        super().__init__(text=text, **kwargs)

    @t.validate("tokenizer")
    def _check_tokenizer(self, proposal):
        value = proposal["value"]
        if value not in (*REFERENCE_NAMES, "trained"):
            raise t.TraitError(f"tokenizer must be one of {', '.join(REFERENCE_NAMES)} or trained, got {value!r}")
        return value

    _corpus_trait = "corpus"

    @property
    def ids(self):
        """The ids of text with the widget's tokenizer, under the special-token policy."""
        return compare.encode(_pane_tokenizer(self, self.tokenizer), self.text, self.policy)
