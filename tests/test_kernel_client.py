"""The store cannot tell a kernel from a worker: both clients hand it the same things.

The kernel's own replies (bpelab.widgets.kernel.answer) to a run of requests, progress and
errors included, are replayed by tests/kernel_client_vs_worker.mjs to the Pyodide worker's
client (through a fake Worker) and to the notebook's client (through a fake anywidget model).
Each must give back the ready versions, every progress payload, and the result or the error's
type and one-line message exactly as the kernel sent them.
"""

import json
import subprocess
from pathlib import Path

from bpelab.widgets import kernel

ROOT = Path(__file__).resolve().parent.parent
CORPUS = "abcd " * 300 + "xyz " * 50 + "lower newest widest " * 40


def record(requests):
    cases = []
    for kind, payload in requests:
        replies = []
        kernel.answer({"id": 1, "type": kind, "payload": payload}, replies.append)
        for reply in replies:
            reply.pop("id")
        cases.append({"type": kind, "payload": payload, "replies": replies})
    return cases


def test_the_worker_client_and_the_kernel_client_give_the_store_the_same_answers(tmp_path):
    ready = []
    kernel.answer({"type": "hello"}, ready.append)
    reference = []
    kernel.answer({"id": 1, "type": "reference", "payload": {"name": "o200k"}}, reference.append)
    handle = reference[0]["payload"]["handle"]
    cases = record([
        ("ping", {"echo": ["é", 1]}),
        ("train", {"documents": [CORPUS], "settings": {"num_merges": 30, "tie_break": "smaller-id"}, "record": True,
                   "report": False, "name": "client test"}),
        ("encode", {"text": "Xin chào thế giới", "handles": [handle]}),
        ("encode", {"text": "x", "handles": ["t999999"]}),
        ("no such request", {}),
    ])
    assert [r["type"] for r in cases[1]["replies"]].count("progress") >= 1, "the training must send progress"
    assert cases[3]["replies"][-1]["type"] == "error" and cases[4]["replies"][-1]["type"] == "error"
    data = tmp_path / "cases.json"
    data.write_text(json.dumps({"cases": cases, "versions": ready[0]["versions"]}), encoding="utf-8")
    run = subprocess.run(["node", str(ROOT / "tests" / "kernel_client_vs_worker.mjs"), str(data)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout)
    assert got["worker"] == got["kernel"]
    seen = got["kernel"]
    assert seen[0] == {"ready": ready[0]["versions"]} and seen[-1] == {"onReady": [ready[0]["versions"]]}
    for case, outcome in zip(cases, seen[1:]):
        *progress, last = case["replies"]
        assert outcome["progress"] == [p["payload"] for p in progress], case["type"]
        if last["type"] == "result":
            assert outcome["result"] == last["payload"], case["type"]
        else:
            assert outcome["error"] == {"name": "WorkerError", **last["error"]}, case["type"]
    assert len(seen[3]["result"]["results"][0]["ids"]) == 5  # seed 003's phrase, o200k: 5 tokens
    assert seen[-2] == {"busy": False, "methods": ["request", "cancel", "restart"]}
