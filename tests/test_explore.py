"""The merge explorer's model (explore.py) against the seeds' worked examples. Each docstring names its seed."""

import json
from itertools import accumulate
from pathlib import Path

import pytest

from bpelab import Tokenizer, explore, train
from bpelab import worker_api
from bpelab.explore import ExploreError, Explorer, show
from bpelab.report import truncate_merges

SEED003_CORPUS = (
    "low low low low low\n"
    "lower lower widest widest widest\n"
    "newest newest newest newest newest newest\n"
)
WALK_TEXT = " walk" * 5 + " walking" * 4 + " walked" * 3 + " talks" * 2


@pytest.fixture(scope="module")
def toy():
    """Seed 003: vocabulary 265 = 256 bytes + 8 merges + <|endoftext|>, the greater pair breaks ties."""
    return Explorer.of(train(SEED003_CORPUS, vocab_size=265, record=True))


def text(parts):
    """A parts list as plain text (bytes as <XX>)."""
    return "".join(value if kind == "t" else f"<{value}>" for kind, value in parts)


def pair_text(row):
    return (text(row["left"]), text(row["right"]))


def test_seed003_eight_merges_and_counts(toy):
    """Seed 003 'Step 3': s+t, e+st, o+w, l+ow, w+est, n+e, ne+west, ␣+newest with counts 9, 9, 7, 7, 6, 6, 6, 5."""
    assert toy.steps == 8
    merges = [toy.step_view(k)["merge"] for k in range(1, 9)]
    assert [pair_text(m) for m in merges] == [
        ("s", "t"), ("e", "st"), ("o", "w"), ("l", "ow"), ("w", "est"), ("n", "e"), ("ne", "west"), (" ", "newest"),
    ]
    assert [m["count"] for m in merges] == [9, 9, 7, 7, 6, 6, 6, 5]
    assert [m["id"] for m in merges] == list(range(256, 264))
    assert [text(m["token"]) for m in merges] == ["st", "est", "ow", "low", "west", "ne", "newest", " newest"]
    assert toy.step_view(0)["merge"] is None and toy.step_view(0)["tokens"] == 95


def test_seed003_ties_and_the_rule_that_decided(toy):
    """Seed 003's table, column 'pairs at the top count': the tied candidates of each merge; the greater pair wins."""
    expected = [
        [("e", "s"), ("s", "t")],
        [("e", "st")],
        [("l", "o"), ("o", "w")],
        [("l", "ow")],
        [("e", "w"), ("n", "e"), ("w", "est")],
        [("e", "west"), ("n", "e")],
        [("ne", "west")],
        [(" ", "low"), (" ", "newest")],
    ]
    for k, want in enumerate(expected, start=1):
        table = toy.step_view(k)["merge"]["table"]
        tied = sorted(pair_text(row) for row in table["rows"] if row["tied"])
        assert tied == want, f"step {k}"
        decision = table["decision"]
        assert decision["rule"] == "greater" and decision["ties"] == len(want)
        assert decision["by"] == ("tie" if len(want) > 1 else "count")
        chosen = [pair_text(row) for row in table["rows"] if row["chosen"]]
        assert chosen == [max(want)]  # the greater pair of byte strings
    # Merge 5 is the three-way tie: had (e, w) won, the vocabulary would hold ew instead of west (seed 003).
    decision = toy.step_view(5)["merge"]["table"]["decision"]
    assert pair_text(decision["picks"]["smaller-id"]) == ("e", "w") and decision["picks"]["smaller-id"]["differs"]
    assert pair_text(decision["picks"]["first-seen"]) == ("n", "e")
    assert "'smaller-id' would pick (e, w)" in decision["reason"] and "'greater' picks (w, est)" in decision["reason"]
    # Merge 3: 'The tie between (l, o) and (o, w) at 7 goes to o > l.'
    assert toy.step_view(3)["merge"]["table"]["decision"]["reason"].startswith("2 pairs tie at 7; the tie-break 'greater' picks (o, w)")
    assert toy.step_view(2)["merge"]["table"]["decision"]["reason"] == "(e, st) has the highest count, 9."


def test_seed003_rows_changed_by_merge_1(toy):
    """Seed 003 'Merge 1, st': only ␣newest, ␣widest and newest change; (e, s) vanishes, (e, st) appears at 9."""
    merge = toy.step_view(1)["merge"]
    assert merge["rows_changed"] == 3
    rows = [(text(row["piece"]), row["count"], [text(t) for t in row["before"]], [text(t) for t in row["after"]])
            for row in merge["rows"]]
    assert rows == [
        (" newest", 5, [" ", "n", "e", "w", "e", "s", "t"], [" ", "n", "e", "w", "e", "st"]),
        (" widest", 3, [" ", "w", "i", "d", "e", "s", "t"], [" ", "w", "i", "d", "e", "st"]),
        ("newest", 1, ["n", "e", "w", "e", "s", "t"], ["n", "e", "w", "e", "st"]),
    ]
    assert [(pair_text(p), p["count"]) for p in merge["vanished"]] == [(("e", "s"), 9)]
    assert [(pair_text(p), p["count"]) for p in merge["appeared"]] == [(("e", "st"), 9)]
    assert merge["tokens_after"] == 95 - 9 and merge["bytes_per_token"] == round(95 / 86, 4)
    assert not merge["overlap"]


def test_seed004_walk_table_top_three():
    """Seed 004 'The algorithm by hand': the three most frequent pairs at steps 0 to 6, first-seen ties."""
    ex = Explorer.of(train(WALK_TEXT, num_merges=7, pretokenizer="whitespace", tie_break="first-seen",
                           special_tokens=(), record=True))
    expected = [
        [("a", "l", 14), ("l", "k", 14), (" ", "w", 12)],
        [("al", "k", 14), (" ", "w", 12), ("w", "al", 12)],
        [(" ", "w", 12), ("w", "alk", 12), ("alk", "i", 4)],
        [(" w", "alk", 12), ("alk", "i", 4), ("i", "n", 4)],
        [(" walk", "i", 4), ("i", "n", 4), ("n", "g", 4)],
        [(" walki", "n", 4), ("n", "g", 4), (" walk", "e", 3)],
        [(" walkin", "g", 4), (" walk", "e", 3), ("e", "d", 3)],
    ]
    for k, want in enumerate(expected):
        table = ex.step_view(k)["next"]
        assert [pair_text(row) + (row["count"],) for row in table["rows"][:3]] == want, f"step {k}"
    # Step 0: 'the pairs a|l and l|k both occur 14 times. The program breaks ties by taking the pair it found first.'
    decision = ex.step_view(0)["next"]["decision"]
    assert decision["rule"] == "first-seen" and decision["by"] == "tie" and decision["ties"] == 2
    assert pair_text(decision["picks"]["greater"]) == ("l", "k") and decision["picks"]["greater"]["differs"]
    assert ex.step_view(7)["next"] is None


def test_seed000_aaa_overlap_with_both_numbers():
    """Seed 000: 'With overlapping pairs such as aaa, the adjacent count is 2 but the left-to-right replacement count is 1'."""
    ex = Explorer.of(train("aaa", num_merges=1, pretokenizer="bytes", special_tokens=(), record=True))
    merge = ex.step_view(1)["merge"]
    assert (merge["count"], merge["merged"], merge["overlap"]) == (2, 1, True)
    assert "(a, a) occurs 2 times but merges only 1 times" in merge["overlap_text"]
    assert [[text(t) for t in row["after"]] for row in merge["rows"]] == [["aa", "a"]]
    assert ex.step_view(1)["tokens"] == 2


def test_seed003_newest_merge_tree(toy):
    """Seed 003: newest = ne + west, west = w + est, est = e + st, st = s + t, ne = n + e, each with its rank."""
    def walk(node):
        kids = node.get("children")
        label = text(node["token"])
        return (label, node["rank"], node.get("count"), [walk(k) for k in kids]) if kids else label

    newest = toy.tokenizer.encode("newest")
    assert newest == [262]
    assert walk(toy.provenance(262)["tree"]) == (
        "newest", 6, 6, [
            ("ne", 5, 6, ["n", "e"]),
            ("west", 4, 6, ["w", ("est", 1, 9, ["e", ("st", 0, 9, ["s", "t"])])]),
        ],
    )


def test_seed003_provenance_of_space_newest(toy):
    """Seed 003 merge 8: ␣newest, count 5, a tie with (␣, low) that the greater pair decides."""
    [space_newest] = toy.tokenizer.encode(" newest")
    info = toy.provenance(space_newest)
    made = info["made"]
    assert (made["step"], made["rank"], made["count"], made["tie"], made["ties"]) == (8, 7, 5, True, 2)
    assert pair_text(made) == (" ", "newest")
    assert [(pair_text(r), r["count"], r["tied"]) for r in made["runners_up"]][0] == ((" ", "low"), 5, True)
    assert "Made by merge 8: (␣, newest), which occurred 5 times then." in made["text"]
    # A merge with no tie: (ne, west) alone at 6; its runners-up have lower counts.
    made = toy.provenance(262)["made"]
    assert not made["tie"] and all(r["count"] < 6 for r in made["runners_up"])
    assert "is byte 0x6E" in toy.provenance(ord("n"))["text"]
    assert toy.provenance(264)["special"]


def test_seed003_trace_of_lowest(toy):
    """Seed 003 "encode 'lowest'": four iterations by rank, ending in low + est (ids 259, 257)."""
    trace = toy.trace("lowest")
    [piece] = trace["pieces"]
    assert piece["ids"] == [259, 257] and [text(t) for t in piece["tokens"]] == ["low", "est"]
    iterations = [([(pair_text(c), c["rank"]) for c in step["candidates"]], step["applied"] and step["applied"]["rank"])
                  for step in piece["steps"]]
    assert iterations == [
        ([(("o", "w"), 2), (("s", "t"), 0)], 0),
        ([(("o", "w"), 2), (("e", "st"), 1)], 1),
        ([(("o", "w"), 2), (("w", "est"), 4)], 2),
        ([(("l", "ow"), 3)], 3),
        ([], None),
    ]
    assert toy.trace(" newest")["pieces"][0]["ids"] == [263]
    # At 2 merges the same word stops at l, o, w, est.
    assert [text(t) for t in toy.trace("lowest", 2)["pieces"][0]["tokens"]] == ["l", "o", "w", "est"]


def test_pretokenizer_layer_names_the_alternative():
    """cl100k cuts digits in threes: 12345678 -> 123 456 78, each by the alternative \\p{N}{1,3}+."""
    ex = Explorer(train("ab 12 cd", num_merges=1, pretokenizer="cl100k", special_tokens=()).tokenizer)
    trace = ex.trace("Call 12345678<|x|> now")
    pieces = [(p["piece"], trace["alternatives"][p["alternative"]]["source"]) for p in trace["pieces"]]
    assert pieces[:5] == [("Call", r"[^\r\n\p{L}\p{N}]?+\p{L}++"), (" ", r"\s"), ("123", r"\p{N}{1,3}+"),
                          ("456", r"\p{N}{1,3}+"), ("78", r"\p{N}{1,3}+")]
    assert "three digits" in trace["alternatives"][2]["note"]
    assert [(p["start"], p["end"]) for p in trace["pieces"][2:5]] == [(5, 8), (8, 11), (11, 13)]


def test_trace_of_special_tokens_and_limit(toy):
    trace = toy.trace("low<|endoftext|>low")
    assert [p["piece"] for p in trace["pieces"]] == ["low", "<|endoftext|>", "low"]
    assert trace["pieces"][1]["special_id"] == 264
    assert toy.trace("a " * 100)["truncated"]


@pytest.mark.parametrize("k", [0, 1, 3, 5, 8])
def test_window_at_step_k_matches_training_and_encoding(toy, k):
    """The window at step k is the training text after k merges: as many tokens as the record, as encode at k."""
    window = toy.window(k, 0, 20_000)
    ids = [i for group in window["groups"] for i in group[2]]
    assert window["text"] == SEED003_CORPUS and window["tokens"] == len(ids)
    assert len(ids) == toy.result.token_counts[k]
    assert ids == truncate_merges(toy.tokenizer, k).encode(SEED003_CORPUS)
    assert "".join(window["text"][a:b] for a, b, _ in window["groups"]) == SEED003_CORPUS


def test_window_is_widened_to_whole_pretokens_and_groups_split_characters():
    result = train("héé héé héé", num_merges=2, pretokenizer="gpt2", special_tokens=(), record=True)
    ex = Explorer.of(result)
    window = ex.window(0, 5, 2)  # inside the second ' héé'
    assert window["text"] == " héé" and window["start"] == 3
    # At step 0 each é is two bytes, two tokens, drawn as one group.
    assert [(window["text"][a:b], len(ids)) for a, b, ids in window["groups"]] == [(" ", 1), ("h", 1), ("é", 2), ("é", 2)]
    other = ex.window(0, 0, 100, text="zé")
    assert other["text"] == "zé" and other["length"] == 2


def test_predict_mode_judgements(toy):
    """Predict the merge after step k: right, wrong by count, wrong by the tie-break (seed 003's ties)."""
    right = toy.judge(4, [119, 257])  # (w, est) makes step 5
    assert right["correct"] and right["by"] == "tie" and right["text"].startswith("Right. 3 pairs tie at 6")
    by_count = toy.judge(0, [ord("l"), ord("o")])
    assert not by_count["correct"] and by_count["by"] == "count"
    assert by_count["text"] == "Not quite: (l, o) occurs 7 times, (s, t) 9 times."
    by_tie = toy.judge(0, [ord("e"), ord("s")])
    assert not by_tie["correct"] and by_tie["by"] == "tie" and "picks (s, t)" in by_tie["text"]
    with pytest.raises(ExploreError, match="no merge after it"):
        toy.judge(8, [1, 2])


def test_imported_tokenizer_has_merges_but_no_counts(toy):
    """A tokenizer from ranks alone (tiktoken's rule): steps, trees and the trace, without counts."""
    ranks = {token: i for i, token in toy.tokenizer.vocab.items()}
    ex = Explorer(Tokenizer.from_ranks(ranks, pretokenizer="gpt2"))
    assert ex.steps == 8
    view = ex.step_view(5)
    assert not view["has_counts"] and view["next"] is None
    assert pair_text(view["merge"]) == ("w", "est") and "count" not in view["merge"]
    assert ex.provenance(263)["tree"]["children"][1]["rank"] == 6
    assert "counts are not known" in ex.provenance(263)["made"]["text"]
    assert ex.trace("lowest")["pieces"][0]["ids"] == [259, 257]
    assert ex.judge(4, [119, 257])["correct"] and ex.judge(4, [1, 2])["by"] == "rank"
    with pytest.raises(ExploreError, match="no training text"):
        ex.window(3)
    assert [g[2] for g in ex.window(3, text="low")["groups"]] == [[108], [258]]


def test_many_ties_are_counted_not_all_weighed():
    """Over 256 pairs tied at the top: the record says so and names no other rule's pick."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    docs = [x + y for x in letters for y in letters][:300]
    ex = Explorer.of(train(docs, num_merges=1, pretokenizer="bytes", special_tokens=(), record=True))
    decision = ex.step_view(1)["merge"]["table"]["decision"]
    assert decision["ties"] == "over" and "picks" not in decision
    assert decision["reason"].startswith("more than 256 pairs tie at 1")


def test_errors_say_how_to_fix_the_call(toy):
    with pytest.raises(ExploreError, match=r"step must be a whole number from 0 to 8 \(the merges\), got 9"):
        toy.step_view(9)
    with pytest.raises(ExploreError, match="unknown token id 999"):
        toy.provenance(999)
    with pytest.raises(ExploreError, match="size must be"):
        toy.window(1, 0, 0)


def test_show():
    assert show(b" newest\n") == "␣newest⏎"


def test_worker_requests():
    """The explorer's worker requests answer in JSON, and bad payloads get messages, not tracebacks."""
    reply = json.loads(worker_api.handle("train", json.dumps(
        {"documents": [SEED003_CORPUS], "settings": {"vocab_size": 265}, "record": True, "report": False})))
    handle = reply["result"]["handle"]

    def ask(kind, **payload):
        return json.loads(worker_api.handle(kind, json.dumps({"handle": handle} | payload)))

    step = ask("explore_step", step=1, window={"start": 0, "size": 40})["result"]
    assert step["view"]["merge"]["count"] == 9 and step["window"]["text"].startswith("low low")
    assert ask("explore_judge", step=4, pair=[119, 257])["result"]["correct"]
    assert ask("explore_trace", text="lowest")["result"]["pieces"][0]["ids"] == [259, 257]
    assert ask("explore_token", id=263)["result"]["made"]["step"] == 8
    error = ask("explore_step", step=99)["error"]
    assert error["type"] == "ExploreError" and "traceback" not in error
    assert "step must be a whole number" in ask("explore_step", step="1")["error"]["message"]


def test_window_history_matches_direct_encoding_at_every_step():
    """A window read off each piece's merge history equals encoding with the first k merges, at every k."""
    text = "the theme of these three thin themes: their theft, there, then, thence. " * 3
    result = train(text, num_merges=30, pretokenizer="gpt2", special_tokens=(), record=True)
    ex = Explorer.of(result)
    for k in range(ex.steps + 1):
        window = ex.window(k, 0, len(text))
        ids = [i for group in window["groups"] for i in group[2]]
        assert ids == truncate_merges(result.tokenizer, k).encode(text), f"step {k}"
        assert len(ids) == result.token_counts[k]


def test_window_when_a_merge_reuses_an_id():
    """(a, bc) makes abc again after (ab, c) did: the merge history of abcd falls (ranks 0, 4, 3); still exact."""
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"bc", 257: b"ab", 258: b"abc", 259: b"abcd"}
    a, b, c, d = map(ord, "abcd")
    tok = Tokenizer(vocab, [(b, c), (a, b), (257, c), (258, d), (a, 256)], pretokenizer="bytes")
    ex = Explorer(tok)
    for k in range(ex.steps + 1):
        assert [g[2] for g in ex.window(k, text="abcd")["groups"]] == [[i] for i in truncate_merges(tok, k).encode("abcd")]


# -- long pieces (long_windows.py): a whole document under `bytes` is cut, not encoded whole, for a window --

GENESIS = (Path(__file__).resolve().parents[1] / "web" / "samples" / "kjv-genesis.txt").read_text(encoding="utf-8")


def _expected_window(tokenizer, k, doc, window):
    """The ids encoding at k gives for the window's text, which must start and end on that encoding's tokens."""
    ids = truncate_merges(tokenizer, k).encode(doc)
    offsets = list(accumulate((len(tokenizer.vocab[i]) for i in ids), initial=0))
    lo, hi = len(doc[:window["start"]].encode()), len(doc[:window["end"]].encode())
    assert lo in offsets and hi in offsets, "the window cuts a token"
    return ids[offsets.index(lo):offsets.index(hi)]


@pytest.fixture(scope="module")
def genesis_bytes():
    """3,000 characters of Genesis as one pre-token (bytes), 150 merges, recorded."""
    return Explorer.of(train(GENESIS[:3000], num_merges=150, pretokenizer="bytes", special_tokens=(), record=True))


@pytest.mark.parametrize("k", [0, 1, 7, 40, 149, 150])
@pytest.mark.parametrize("start, size", [(0, 30), (1234, 1), (2990, 500), (700, 2000)])
def test_a_window_into_a_long_piece_is_its_encoding_at_step_k(genesis_bytes, k, start, size):
    ex = genesis_bytes
    doc = ex.result.documents[0]
    window = ex.window(k, start, size)
    ids = [i for group in window["groups"] for i in group[2]]
    assert ids == _expected_window(ex.tokenizer, k, doc, window)
    assert window["start"] <= start < window["end"] and window["text"] == doc[window["start"]:window["end"]]
    longest = max(len(t) for t in ex.vocab.values())
    assert window["end"] - window["start"] <= size + 2 * longest  # widened to whole tokens, not the whole piece
    assert window["length"] == len(doc)


def test_a_long_piece_after_a_merge_that_reused_an_id_is_encoded_not_read_off_training(genesis_bytes, monkeypatch):
    """From the first reused id on, training's boundaries may differ from encoding: the window encodes the piece."""
    ex = Explorer.of(genesis_bytes.result)
    monkeypatch.setattr(ex, "_reuse", 20)  # as if merge 20 had reused an id
    doc = ex.result.documents[0]
    for k in (10, 20, 21, 150):
        window = ex.window(k, 1500, 300)
        assert [i for g in window["groups"] for i in g[2]] == _expected_window(ex.tokenizer, k, doc, window)
    assert list(ex._gone) == [doc.encode()]  # the encoded piece was kept once, for k over 20 only


def test_a_long_text_window_when_a_merge_reuses_an_id(monkeypatch):
    """The tokenizer of test_window_when_a_merge_reuses_an_id, on a text long enough to be cut: still exact."""
    monkeypatch.setattr(explore, "LONG_PIECE", 8)
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"bc", 257: b"ab", 258: b"abc", 259: b"abcd"}
    a, b, c, d = map(ord, "abcd")
    tok = Tokenizer(vocab, [(b, c), (a, b), (257, c), (258, d), (a, 256)], pretokenizer="bytes")
    ex = Explorer(tok)
    text = "abcdabcabcbcd" * 3
    for k in range(ex.steps + 1):
        for start in range(0, len(text), 5):
            window = ex.window(k, start, 4, text=text)
            assert [i for g in window["groups"] for i in g[2]] == _expected_window(tok, k, text, window), (k, start)


def test_a_long_row_is_shown_as_an_excerpt_and_a_step_stays_small():
    """Issue 25: the site failed on a recorded bytes run; a step's reply now holds an excerpt of the document."""
    doc = GENESIS[:50_000]
    reply = json.loads(worker_api.handle("train", json.dumps(
        {"documents": [doc], "settings": {"vocab_size": 2000, "pretokenizer": "bytes"}, "record": True,
         "report": False})))
    assert reply["ok"], reply
    handle = reply["result"]["handle"]
    assert len(json.dumps(reply)) < 200_000
    for step in (1, 500, 1743):
        answer = worker_api.handle("explore_step", json.dumps({"handle": handle, "step": step,
                                                               "window": {"start": 25_000, "size": 2000}}))
        assert len(answer) < 150_000
        view = json.loads(answer)["result"]
        [row] = view["view"]["merge"]["rows"]
        cut = row["cut"]
        assert 0 <= cut["start"] < cut["end"] <= cut["bytes"] == len(doc.encode())
        assert text(row["piece"]) == doc.encode()[cut["start"]:cut["end"]].decode()
        assert len(row["before"]) <= 22 and len(row["after"]) < len(row["before"])
        assert view["window"]["start"] <= 25_000 < view["window"]["end"] <= 25_000 + 2000 + 200


@pytest.mark.parametrize("pretokenizer, text", [("bytes", GENESIS[:2000]), ("gpt2", " " * 3000 + "x"),
                                                ("bytes", "é" * 200)])
def test_the_trace_of_a_long_piece_gives_its_tokens_not_every_step(genesis_bytes, pretokenizer, text):
    """A 2,000-byte piece's trace was 110 MB of JSON (every step lists the whole piece); now its tokens, exactly."""
    tok = genesis_bytes.tokenizer if pretokenizer == "bytes" else train(GENESIS[:3000], num_merges=60).tokenizer
    ex = Explorer(tok)
    for k in (0, 30, ex.steps):
        trace = ex.trace(text, k)
        long = [p for p in trace["pieces"] if len(p["piece"].encode()) > explore.TRACE_STEP_BYTES]
        assert long and all(p["steps"] == [] and "bytes long" in p["steps_note"] for p in long)
        assert [i for p in trace["pieces"] for i in p["ids"]] == truncate_merges(tok, k).encode(text)
        assert len(json.dumps(trace)) < 100_000
