"""Word counts in a widget, from a course page on another origin: the `counts` parameter.

CS336's handout example (tests/textbooks.py) travels as one JSON object in
the widget's address; the explorer's `state` messages name each merge, and
they must spell the handout's twelve merges. Compare's trained@K panes train
on the same counts.
"""

import json
from urllib.parse import quote

from bpelab import train

import textbooks
from site_harness import TRAIN_TIMEOUT_MS
from test_embed import Host, _new_host, fresh_host, host_url, pages  # noqa: F401 (fixtures of the two origins)

CS336_COUNTS = json.dumps({"low": 5, "lower": 2, "widest": 3, "newest": 6}, separators=(",", ":"))
SETTINGS = "mode=merges&size=12&pre=whitespace&tie=greater"


def widget_page(host, name, query):
    return host.serve(name, f"""<!doctype html><title>{name}</title>
<iframe id="w" title="BPE Lab widget" style="width:1000px;height:900px" src="{host.widget}/embed.html?{query}"></iframe>""")


def test_the_cs336_merges_from_the_counts_parameter(fresh_host):
    host = fresh_host
    host.page.goto(widget_page(host, "cs336.html", f"view=explorer&counts={quote(CS336_COUNTS)}&{SETTINGS}&id=cs336"))
    host.wait_message("ready", "cs336", timeout=TRAIN_TIMEOUT_MS)
    first = host.wait_message("state", "cs336", "m.steps === 12", timeout=TRAIN_TIMEOUT_MS)
    assert first["view"] == "explorer"
    vocab = {i: bytes([i]) for i in range(256)}
    names, counts = [], []
    for k in range(1, 13):
        host.command("#w", action="step", step=k)
        state = host.wait_message("state", "cs336", f"m.step === {k}")
        a, b = state["pair"]
        vocab[state["merged"]] = vocab[a] + vocab[b]
        names.append(f"{vocab[a].decode()} {vocab[b].decode()}")
        counts.append(state["count"])
    assert names == textbooks.CS336["merges"]
    assert counts[:2] == [9, textbooks.CS336["second_merge_count"]]
    # The explorer's text window shows each piece with its count.
    window = host.page.frame_locator("#w").locator(".text-window .piece-count")
    assert [t.strip() for t in window.all_inner_texts()] == ["× 5", "× 2", "× 3", "× 6"]


def test_compare_trains_its_panes_on_the_counts(fresh_host):
    host = fresh_host
    text = "the newest and lowest"
    query = f"view=compare&panes=bytes,trained@6,trained&counts={quote(CS336_COUNTS)}&{SETTINGS}&text={quote(text)}&id=cmp"
    host.page.goto(widget_page(host, "compare.html", query))
    state = host.wait_message("state", "cmp", "m.panes && m.panes.length === 3 && m.panes.every((p) => p.tokens > 0)",
                              timeout=TRAIN_TIMEOUT_MS)
    table = {"low": 5, "lower": 2, "widest": 3, "newest": 6}
    full = train(counts=table, num_merges=12, pretokenizer="whitespace").tokenizer
    six = train(counts=table, num_merges=6, pretokenizer="whitespace").tokenizer
    assert [(p["tokenizer"], p["ids"]) for p in state["panes"]] == [
        ("bytes", list(text.encode())), ("trained@6", six.encode(text)), ("trained", full.encode(text))]
    assert len(six.encode(text)) > len(full.encode(text))  # the two panes differ, so each was trained as asked


def test_a_bad_counts_parameter_posts_a_line_numbered_error(fresh_host):
    host = fresh_host
    bad = '{"low": 5,\n "lower": -2}'
    host.page.goto(widget_page(host, "bad.html", f"view=explorer&counts={quote(bad)}&{SETTINGS}&id=bad"))
    error = host.wait_message("error", "bad", timeout=TRAIN_TIMEOUT_MS)
    assert "counts line 2" in error["message"] and "negative" in error["message"]
