"""The kernel's side of the widgets' protocol: the worker's requests, answered by this Python.

A widget's front end (web/js/notebook/kernel-client.js) sends the very messages the
site's page sends its Pyodide worker, `{id, type, payload}`, over the widget's comm
instead of postMessage. `answer` runs each through `worker_api.handle`, the same
dispatch the worker uses, and sends back what the worker would post: any number of
`{id, type: "progress", payload}`, then one `{id, type: "result", payload}` or
`{id, type: "error", error: {type, message}}`. Two messages are the kernel's own:
`{type: "hello"}` is answered with `{type: "ready", versions}` (the worker's boot
ends the same way), and `{type: "cancel", id}` is acknowledged only: a kernel runs
one request at a time, so a cancel is read once the run is over (interrupting the
kernel stops a run; the view then gets a `Cancelled` error).

Tokenizers live in worker_api's registry, one per kernel, so every widget of a
notebook sees the same handles. A `train` request is remembered by its corpus and
settings: when Python asks for a widget's `result` first (nbclient runs a notebook
with no front end), or the front end asks after Python did, the run is made once.

Not here: anywidget and traits (`_widgets.py`); no module here imports a notebook package.
"""

import json
import secrets
from dataclasses import asdict

from .. import worker_api
from ..openai_vocab import reference_info
from ..train import CHAR_LIMIT, TrainSettings

SESSION = secrets.token_hex(8)  # this kernel's Python: a front end that sees another one forgets its handles
_TRAINED = {}  # train key (json) -> the train request's result (a description with its handle)


def train_key(payload):
    """What makes two train requests the same run: documents, settings, limit, truncation, records.

    Returns None for a payload worker_api would refuse (it explains why when it answers).

    >>> a = {"documents": ["low"], "settings": {"vocab_size": 260}, "record": True}
    >>> train_key(a) == train_key({**a, "name": "another label"})
    True
    """
    try:
        settings = asdict(TrainSettings(**dict(payload.get("settings") or {})))
    except (TypeError, ValueError):
        return None
    settings["special_tokens"] = list(settings["special_tokens"])
    key = [payload.get("documents"), settings, payload.get("char_limit", CHAR_LIMIT), bool(payload.get("truncate")),
           bool(payload.get("record")), bool(payload.get("report", True)), payload.get("heldout") or ""]
    return json.dumps(key, sort_keys=True)


def _cached_train(payload):
    key = train_key(payload)
    cached = _TRAINED.get(key) if key else None
    if cached is not None and worker_api.lookup(cached["handle"]) is not None:
        return key, cached
    return key, None


def train(payload, progress=None):
    """The result of a train request (worker_api's description), made once per corpus and settings."""
    key, cached = _cached_train(payload)
    if cached is not None:
        return {"ok": True, "result": cached}
    reply = json.loads(worker_api.handle("train", json.dumps(payload), progress))
    if reply["ok"] and key:
        _TRAINED[key] = reply["result"]
    return reply


def _error(error):
    return {"type": error.__class__.__name__, "message": str(error)}


def request(kind, payload, progress=None):
    """worker_api's reply {ok, result | error} to one request, with the kernel's own rank files."""
    if kind == "train":
        return train(payload, progress)
    if kind == "reference":
        # The worker fetches the site's rank file to a path; here the package's own file is the path.
        try:
            payload = {**payload, "path": str(reference_info(payload.get("name")).path)}
        except ValueError as error:
            return {"ok": False, "error": _error(error)}
    return json.loads(worker_api.handle(kind, json.dumps(payload), progress))


def answer(message, send):
    """Answer one message of a widget's front end; `send(dict)` posts a reply over the comm.

    >>> replies = []
    >>> answer({"id": 7, "type": "ping", "payload": {"echo": "hi"}}, replies.append)
    >>> replies
    [{'id': 7, 'type': 'result', 'payload': {'pong': 'hi'}}]
    """
    if not isinstance(message, dict):
        return
    kind = message.get("type")
    ident = message.get("id")
    if kind == "hello":
        versions = json.loads(worker_api.versions())
        send({"type": "ready", "versions": {**versions, "boot": "kernel", "session": SESSION}})
        return
    if kind == "cancel":
        return
    payload = message.get("payload")
    if payload is None:
        payload = {}
    if not isinstance(payload, dict):
        send({"id": ident, "type": "error", "error": {
            "type": "RequestError", "message": f"the payload must be an object, got {type(payload).__name__}"}})
        return

    def progress(text):
        send({"id": ident, "type": "progress", "payload": json.loads(text)})

    try:
        reply = request(kind, payload, progress)
    except KeyboardInterrupt:
        send({"id": ident, "type": "error", "error": {
            "type": "Cancelled", "message": "the kernel was interrupted; nothing was changed"}})
        return
    if reply["ok"]:
        send({"id": ident, "type": "result", "payload": reply["result"]})
    else:
        send({"id": ident, "type": "error", "error": reply["error"]})
