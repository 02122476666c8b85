"""Compare (issue 14): the numbers the compare view draws, checked exactly.

Seed 003's lines and the reference ids come from OpenAI's vocabularies
through our encoder; the oracle for ids is tiktoken itself, loaded offline
(conftest.py's `tiktoken_encoding`), over every bundled aligned passage.
"""

import json
from pathlib import Path

import pytest

from bpelab import Tokenizer, train, worker_api
from bpelab.compare import (
    EncodingCache, boundaries, compare_panes, differing, differing_count, language_lines, language_table, merge_diff, neighbour,
    policy_counts, seed_lines, token_detail, token_label,
)
from bpelab.display import token_parts
from bpelab.openai_vocab import load_reference
from seed003_vietnamese import SEED003_BLOCK, XIN_CHAO

ROOT = Path(__file__).resolve().parent.parent
ALIGNED = ROOT / "web" / "samples" / "aligned"
TIKTOKEN_NAME = {"gpt2": "r50k_base", "cl100k": "cl100k_base", "o200k": "o200k_base"}


@pytest.fixture(scope="module")
def refs(reference_ranks):
    """key -> our Tokenizer for OpenAI's gpt2, cl100k_base and o200k_base."""
    return {key: load_reference(key) for key in TIKTOKEN_NAME}


@pytest.fixture(scope="module")
def aligned():
    """The bundled aligned passages: (index, [(code, name, text)])."""
    index = json.loads((ALIGNED / "index.json").read_text("utf-8"))
    texts = [(lang["code"], lang["name"], (ALIGNED / lang["file"]).read_text("utf-8")) for lang in index["languages"]]
    return index, texts


# ------------------------------------------------------------------ seed 003


def test_seed003_lines(refs):
    """Seed 003's three lines for 'Xin chào thế giới': 15, 9 and 5 tokens, byte chips and ␣ as printed."""
    panes = [(refs[k].name, refs[k], refs[k].encode(XIN_CHAO)) for k in ("gpt2", "cl100k", "o200k")]
    assert [len(ids) for _name, _tok, ids in panes] == [15, 9, 5]
    assert seed_lines(XIN_CHAO, panes) == SEED003_BLOCK


def test_seed003_lines_through_the_worker(refs, reference_ranks):
    """compare_copy gives the same block from handles; a name can be overridden."""
    handles = [_reference_handle(key, reference_ranks) for key in ("gpt2", "cl100k", "o200k")]
    got = _ok("compare_copy", {"handles": handles, "text": XIN_CHAO})
    assert got["text"] == SEED003_BLOCK
    renamed = _ok("compare_copy", {"handles": handles[:1], "text": "hi", "names": ["GPT-2"]})
    assert renamed["text"] == "'hi': 2 characters, 2 bytes\n  GPT-2  1 token  hi"


def test_token_labels():
    """Whitespace is drawn ␣ ⏎ ⇥, partial bytes <XX>, mixed tokens both ways."""
    assert token_label(token_parts(b" a\n\t")) == "␣a⏎⇥"
    assert token_label(token_parts(b" \xe1\xba")) == "␣<E1><BA>"
    assert token_label(b"\xc3\xa0") == "à"
    assert token_label(token_parts(b"\x07")) == "<07>"


# ------------------------------------------------------------------ counts, groups, boundaries


def test_counts_of_a_pane(refs):
    """Tokens, characters, bytes, words and the three ratios, for the whole text."""
    out = compare_panes([("g", "gpt2", refs["gpt2"])], XIN_CHAO)
    counts = out["panes"][0]["counts"]
    assert (out["characters"], out["bytes"], out["words"]) == (17, 22, 4)
    assert {k: counts[k] for k in ("tokens", "characters", "bytes", "words")} == {
        "tokens": 15, "characters": 17, "bytes": 22, "words": 4}
    assert counts["bytes_per_token"] == round(22 / 15, 4)
    assert counts["chars_per_token"] == round(17 / 15, 4)
    assert counts["tokens_per_word"] == round(15 / 4, 4)


def test_byte_groups_of_split_characters(refs):
    """GPT-2 splits ế and ớ into three byte tokens each; each triple is one group spelling the character."""
    pane = compare_panes([("g", "gpt2", refs["gpt2"])], XIN_CHAO)["panes"][0]
    assert [(g["start"], g["stop"], g["text"]) for g in pane["groups"]] == [(6, 9, "ế"), (11, 14, "ớ")]
    assert [t["parts"] for t in pane["tokens"][6:9]] == [[["b", "E1"]], [["b", "BA"]], [["b", "BF"]]]
    assert len({t["group"] for t in pane["tokens"][6:9]}) == 1
    assert pane["tokens"][5]["group"] != pane["tokens"][6]["group"]


def test_boundaries_and_differences(refs):
    """Byte offsets of token ends, and the tokens that start or end off the neighbour's boundaries."""
    gpt2, cl100k = refs["gpt2"], refs["cl100k"]
    g_ids, c_ids = gpt2.encode(XIN_CHAO), cl100k.encode(XIN_CHAO)
    g_ends, c_ends = boundaries(gpt2, g_ids), boundaries(cl100k, c_ids)
    assert g_ends[-1] == c_ends[-1] == 22
    # cl100k: X | in | ␣ch | à | o | ␣th | ế | ␣gi | ới; ế is one token where GPT-2 has three bytes.
    assert c_ends == [1, 3, 6, 8, 9, 12, 15, 18, 22]
    flags = differing(g_ends, c_ends)
    # GPT-2's byte tokens of ế end inside cl100k's ế; ␣g | i end inside ␣gi; ớ's bytes inside ới.
    assert [token_label(gpt2.token_bytes(i)) for i, f in zip(g_ids, flags) if f] == [
        "<E1>", "<BA>", "<BF>", "␣g", "i", "<E1>", "<BB>", "<9B>", "i"][:sum(flags)]
    assert flags == [False] * 6 + [True, True, True] + [True, True] + [True, True, True, True]
    # cl100k's ế, ␣gi and ới keep whole what GPT-2 splits: marked too.
    assert differing(c_ends, g_ends) == [False] * 6 + [True, True, True]
    assert differing(g_ends, g_ends) == [False] * 15


def test_differing_window_matches_whole():
    """A window's flags are the whole list's flags for those tokens."""
    a, b = [2, 3, 5, 8, 9, 12], [1, 3, 4, 8, 12]
    whole = differing(a, b)
    assert differing(a, b, 2, 5) == whole[2:5]


def test_neighbours():
    assert [neighbour(i, 4) for i in range(4)] == [1, 0, 1, 2]
    assert neighbour(0, 1) is None


def test_compare_panes_neighbour_and_windows(refs):
    """Each pane is marked against its neighbour; a window sends only its tokens, ids_all only when small."""
    panes = [("g", "gpt2", refs["gpt2"]), ("c", "cl100k_base", refs["cl100k"]), ("o", "o200k_base", refs["o200k"])]
    out = compare_panes(panes, XIN_CHAO, windows=[[6, 9], None, None])
    g, c, o = out["panes"]
    assert (g["start"], g["stop"], len(g["tokens"]), g["differs"]) == (6, 9, 3, [True, True, True])
    assert g["ids_all"] == refs["gpt2"].encode(XIN_CHAO)
    assert (g["neighbour"], c["neighbour"], o["neighbour"]) == (1, 0, 1)
    assert c["n_differs"] == 3 and g["n_differs"] == 9
    small = compare_panes(panes[:1], XIN_CHAO, ids_limit=10)["panes"][0]
    assert small["ids_all"] is None and small["total"] == 15


def test_window_is_widened_to_whole_characters(refs):
    """A window starting inside ế's three bytes starts at the first of them."""
    pane = compare_panes([("g", "gpt2", refs["gpt2"])], XIN_CHAO, windows=[[7, 8]])["panes"][0]
    assert (pane["start"], pane["stop"]) == (6, 9)


def test_encoding_cache_reencodes_only_new_text():
    tok = Tokenizer.bytes_only()
    cache = EncodingCache()
    ids, _ends = cache.get("b", tok, "abc", "raise")
    assert cache.get("b", tok, "abc", "raise")[0] is ids
    assert cache.get("b", tok, "abcd", "raise")[0] == [97, 98, 99, 100]
    cache.keep(set())
    assert cache.get("b", tok, "abcd", "raise")[0] is not ids


# ------------------------------------------------------------------ special-token policy


def test_policy_counts(refs):
    """raise is an error naming the way out; allow makes one id; text spells it in ordinary tokens."""
    text = "hi<|endoftext|>there"
    counts = policy_counts(refs["gpt2"], text)
    assert counts["raise"]["tokens"] is None
    assert "<|endoftext|>" in counts["raise"]["error"] and "allow" in counts["raise"]["error"]
    assert counts["allow"]["tokens"] == len(refs["gpt2"].encode(text, allowed_special="all"))
    assert counts["text"]["tokens"] == len(refs["gpt2"].encode_ordinary(text))
    assert counts["allow"]["tokens"] == 3 and counts["text"]["tokens"] > 3
    assert counts["specials_in_text"]
    plain = policy_counts(refs["gpt2"], "hello")
    assert {p: plain[p]["tokens"] for p in ("raise", "allow", "text")} == {"raise": 1, "allow": 1, "text": 1}


def test_compare_pane_under_raise_is_an_error_not_a_crash(refs):
    out = compare_panes([("g", "gpt2", refs["gpt2"]), ("b", "bytes", Tokenizer.bytes_only())], "a<|endoftext|>")
    g, b = out["panes"]
    assert g["error"] and g["tokens"] == [] and g["policies"]["allow"]["tokens"] == 2
    assert b["error"] is None and b["total"] == 14 and b["neighbour"] is None


# ------------------------------------------------------------------ token detail


def test_token_detail_reference(refs):
    """A GPT-2 token: its rank is its id; its parents are the two tokens BPE over lower ranks leaves."""
    tok = refs["gpt2"]
    (the,) = tok.encode(" the")
    detail = token_detail(tok, the)
    assert detail["hex"] == "20 74 68 65" and detail["rank"] == the
    a, b = [p["id"] for p in detail["parents"]]
    assert tok.token_bytes(a) + tok.token_bytes(b) == b" the" and max(a, b) < the
    byte = token_detail(tok, tok.encode("X")[0])
    assert byte["parents"] is None and byte["rank"] is None
    special = token_detail(tok, 50256)
    assert special["special"] and special["parents"] is None


def test_token_detail_trained():
    """A trained token: the merge that made it, with its rank (seed 003's ␣newest is merge 7)."""
    result = train("low low low low low\nlower lower widest widest widest\n"
                   "newest newest newest newest newest newest\n", vocab_size=265)
    tok = result.tokenizer
    (newest,) = tok.encode(" newest")
    detail = token_detail(tok, newest)
    assert detail["rank"] == 7 and detail["label"] == "␣newest"
    assert [p["label"] for p in detail["parents"]] == ["␣", "newest"]


# ------------------------------------------------------------------ two trained configurations


def test_merge_diff():
    text = "low lower lowest newer newest " * 3
    a = train(text, num_merges=10, special_tokens=()).tokenizer
    b = train("newest widest " * 5, num_merges=10, pretokenizer="whitespace", special_tokens=()).tokenizer
    diff = merge_diff(a, b, text)
    ma = [(a.vocab[x], a.vocab[y]) for x, y in a.merges]
    mb = [(b.vocab[x], b.vocab[y]) for x, y in b.merges]
    first = next(k for k, (x, y) in enumerate(zip(ma, mb)) if x != y)
    assert diff["first_difference"] == first
    assert diff["n_only_a"] == len(set(ma) - set(mb)) and diff["n_only_b"] == len(set(mb) - set(ma))
    assert diff["shared"] == len(set(ma) & set(mb))
    assert {row["rank"] for row in diff["only_a"]} == {k for k, m in enumerate(ma) if m not in set(mb)}
    assert diff["tokens"] == {"a": len(a.encode(text)), "b": len(b.encode(text))}
    same = merge_diff(a, a, text)
    assert same["first_difference"] is None and same["n_only_a"] == same["n_only_b"] == 0
    prefix = merge_diff(a, train(text, num_merges=4, special_tokens=()).tokenizer)
    assert prefix["first_difference"] == 4 and prefix["at_first"]["b"] is None


def test_merge_diff_needs_merge_lists(refs):
    with pytest.raises(ValueError, match="no merge list"):
        merge_diff(refs["gpt2"], Tokenizer.bytes_only())


# ------------------------------------------------------------------ languages


def test_aligned_passages_are_aligned(aligned):
    """Every language holds the same sections: the same number of paragraphs, a few KB, with a licence."""
    index, texts = aligned
    assert "CC-BY-SA-3.0" in index["licence"] and "GPL-2" in index["licence"]
    assert len(index["sections"]) >= 3
    codes = [code for code, _name, _text in texts]
    assert {"en", "vi", "ar", "zh", "ru", "ja"} <= set(codes)
    paragraphs = {code: text.count("\n\n") for code, _name, text in texts}
    assert len(set(paragraphs.values())) == 1, paragraphs
    for code, _name, text in texts:
        assert 1_000 < len(text.encode("utf-8")) < 10_000, code
        assert "://" not in text
    english = dict((c, t) for c, _n, t in texts)["en"]
    assert all(t != english for c, _n, t in texts if c != "en")


def test_reference_ids_equal_tiktoken_on_aligned_passages(refs, aligned, tiktoken_encoding):
    """Every reference pane's ids are tiktoken's on every bundled language."""
    _index, texts = aligned
    for key, name in TIKTOKEN_NAME.items():
        enc = tiktoken_encoding(name)
        for code, _name, text in texts:
            assert refs[key].encode(text) == enc.encode(text), (key, code)


def test_language_table(refs, aligned, tiktoken_encoding):
    """Tokens per language are tiktoken's counts; ratios are to English; English's ratio is 1."""
    _index, texts = aligned
    names = [("gpt2", refs["gpt2"]), ("cl100k_base", refs["cl100k"]), ("o200k_base", refs["o200k"])]
    table = language_table(names, texts, base="en")
    assert [lang["code"] for lang in table["languages"]] == [c for c, _n, _t in texts]
    assert len(table["rows"]) == 3 * len(texts)
    by = {(row["tokenizer"], row["code"]): row for row in table["rows"]}
    for tok_name, _tok in names:
        enc = tiktoken_encoding(tok_name if tok_name != "gpt2" else "gpt2")
        english = len(enc.encode_ordinary(dict((c, t) for c, _n, t in texts)["en"]))
        for code, _name, text in texts:
            row = by[tok_name, code]
            n = len(enc.encode_ordinary(text))
            assert row["tokens"] == n
            assert row["ratio"] == round(n / english, 4)
            assert row["bytes_per_token"] == round(len(text.encode("utf-8")) / n, 4)
        assert by[tok_name, "en"]["ratio"] == 1.0
    # Seed 003's finding holds here too: GPT-2 charges Vietnamese most, o200k least.
    assert by["gpt2", "vi"]["ratio"] > by["cl100k_base", "vi"]["ratio"] > by["o200k_base", "vi"]["ratio"]
    text = language_lines(table)
    assert text.splitlines()[0].startswith("language") and "Vietnamese" in text


def test_language_table_two_pasted_texts():
    """Two pasted texts: the second priced against the first."""
    table = language_table([("bytes", Tokenizer.bytes_only())], [("a", "Text A", "abcd"), ("b", "Text B", "ếế")])
    assert [(row["tokens"], row["ratio"]) for row in table["rows"]] == [(4, 1.0), (6, 1.5)]
    with pytest.raises(ValueError, match="distinct"):
        language_table([("bytes", Tokenizer.bytes_only())], [("a", "A", "x"), ("a", "B", "y")])
    with pytest.raises(ValueError, match="base"):
        language_table([("bytes", Tokenizer.bytes_only())], [("a", "A", "x")], base="en")


# ------------------------------------------------------------------ worker requests


def _ok(kind, payload):
    reply = json.loads(worker_api.handle(kind, json.dumps(payload)))
    assert reply["ok"], reply
    return reply["result"]


def _error(kind, payload):
    reply = json.loads(worker_api.handle(kind, json.dumps(payload)))
    assert not reply["ok"], reply
    return reply["error"]["message"]


def _reference_handle(key, reference_ranks):
    return _ok("reference", {"name": key, "path": str(reference_ranks[key])})["handle"]


def test_worker_compare(reference_ranks):
    g = _reference_handle("gpt2", reference_ranks)
    b = _ok("bytes_tokenizer", {})["handle"]
    assert _ok("bytes_tokenizer", {})["handle"] == b
    out = _ok("compare", {"handles": [g, b], "text": XIN_CHAO, "policy": "raise", "windows": [None, [0, 7]]})
    assert [p["total"] for p in out["panes"]] == [15, 22]
    assert [p["name"] for p in out["panes"]] == ["gpt2", "bytes"]
    assert out["panes"][1]["stop"] == 8  # widened to the end of à's two bytes
    detail = _ok("token_detail", {"handle": g, "id": out["panes"][0]["ids_all"][2]})
    assert detail["label"] == "␣ch"
    table = _ok("language_table", {"handles": [g, b], "texts": [
        {"code": "en", "name": "English", "text": "hello world"}, {"code": "vi", "name": "Vietnamese", "text": XIN_CHAO}]})
    assert [row["tokens"] for row in table["rows"]] == [2, 15, 11, 22]


def test_worker_compare_errors(reference_ranks):
    g = _reference_handle("gpt2", reference_ranks)
    assert "handles" in _error("compare", {"handles": [], "text": "x"})
    assert "windows" in _error("compare", {"handles": [g], "text": "x", "windows": [[0]]})
    assert "over the limit" in _error("compare", {"handles": [g], "text": "x" * 11, "char_limit": 10})
    assert "policy" in _error("compare", {"handles": [g], "text": "x", "policy": "maybe"})
    assert "texts" in _error("language_table", {"handles": [g], "texts": "en"})
    assert "no tokenizer" in _error("token_detail", {"handle": "nope", "id": 1})


def test_worker_merge_diff():
    text = "low lower lowest newer newest " * 3
    a = _ok("train", {"documents": [text], "settings": {"num_merges": 8}, "report": False})["handle"]
    b = _ok("train", {"documents": [text], "settings": {"num_merges": 8, "tie_break": "smaller-id"},
                      "report": False})["handle"]
    diff = _ok("merge_diff", {"a": a, "b": b, "text": "lowest"})
    assert diff["merges"] == {"a": 8, "b": 8} and set(diff["tokens"]) == {"a", "b"}


def test_differs_is_on_the_tokens_too(refs):
    """The display model's tokens carry differs: true, so the token display can mark them."""
    panes = [("g", "gpt2", refs["gpt2"]), ("o", "o200k_base", refs["o200k"])]
    g = compare_panes(panes, XIN_CHAO)["panes"][0]
    assert [bool(t.get("differs")) for t in g["tokens"]] == g["differs"]
    assert any(g["differs"]) and not all(g["differs"])


def test_window_model_equals_the_whole_model(refs, aligned):
    """A window of a long encoding is display.py's model of the whole text, cut to that window."""
    from bpelab.display import display_ids

    _index, texts = aligned
    text = "".join(t for c, _n, t in texts if c in ("en", "vi", "zh", "ja"))
    tok = refs["gpt2"]
    ids = tok.encode(text)
    whole = display_ids(tok, ids, 0, len(ids), text=text)
    for start, stop in [(0, 50), (1234, 1300), (len(ids) - 40, len(ids) + 10)]:
        pane = compare_panes([("g", "gpt2", tok)], text, windows=[[start, stop]])["panes"][0]
        lo, hi = pane["start"], pane["stop"]
        assert lo <= start and hi >= min(stop, len(ids))
        assert pane["ids"] == ids[lo:hi] and pane["total"] == len(ids)
        assert [(t["id"], t["parts"], t["span"]) for t in pane["tokens"]] == [
            (t["id"], t["parts"], t["span"]) for t in whole["tokens"][lo:hi]]
        assert {k: pane["counts"][k] for k in whole["counts"]} == whole["counts"]
        # Groups keep their token positions; their numbers need only be distinct within the window.
        assert [(g["start"], g["stop"], g["text"]) for g in pane["groups"]] == [
            (g["start"], g["stop"], g["text"]) for g in whole["groups"] if lo <= g["start"] < hi]


def test_differing_count_is_the_number_of_marked_tokens(refs, aligned):
    _index, texts = aligned
    text = dict((c, t) for c, _n, t in texts)["vi"]
    ends = {k: boundaries(tok, tok.encode(text)) for k, tok in refs.items()}
    ends["bytes"] = list(range(1, len(text.encode("utf-8")) + 1))
    for a in ends:
        for b in ends:
            assert differing_count(ends[a], ends[b]) == sum(differing(ends[a], ends[b])), (a, b)


def test_long_texts_count_differences_in_the_window_only(refs, monkeypatch):
    """Above COUNT_LIMIT tokens n_differs is None and n_differs_window counts the drawn tokens."""
    from bpelab import compare

    panes = [("g", "gpt2", refs["gpt2"]), ("c", "cl100k_base", refs["cl100k"])]
    full = compare_panes(panes, XIN_CHAO)["panes"][0]
    monkeypatch.setattr(compare, "COUNT_LIMIT", 10)
    cut = compare_panes(panes, XIN_CHAO, windows=[[0, 8], None])["panes"][0]
    assert full["n_differs"] == 9 and cut["n_differs"] is None
    assert cut["n_differs_window"] == sum(full["differs"][cut["start"]:cut["stop"]])


def test_make_aligned_reads_sections_and_drops_screens(tmp_path):
    """The handbook parser groups titles and paragraphs by section id and drops screens and listings."""
    import importlib.util

    # Not conftest's loader: with tests/e2e collected too, "conftest" may name the other one.
    spec = importlib.util.spec_from_file_location("bpelab_build_make_aligned", ROOT / "build_scripts" / "make_aligned.py")
    make_aligned = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_aligned)
    page = tmp_path / "p.html"
    page.write_text(
        '<div class="section"><h2 class="title"><a id="sect.a"></a>B.1. Title A</h2>'
        '<div class="para">First &amp; one.</div><pre class="screen">$ apt-get install x</pre>'
        '<div class="para">Second <code>two</code>.</div>'
        '<div class="section"><h3 class="title"><a xmlns="" id="sect.b"></a>B.1.1. Title B</h3>'
        '<p>Third.</p><div class="programlisting">code</div></div></div>', "utf-8")
    sections, order = make_aligned.page_sections(page)
    assert order == ["sect.a", "sect.b"]
    assert sections == {"sect.a": ["Title A", "First & one.", "Second two."], "sect.b": ["Title B", "Third."]}
    english = ["Title", "Some text"]
    assert not make_aligned.translated(english, english, None)
    assert make_aligned.translated(["Заголовок", "Немного текста"], english, "CYRILLIC")
    assert not make_aligned.translated(["Заголовок"], english, "CYRILLIC")  # paragraphs must align


def test_incremental_encoding_equals_a_whole_encode(refs, aligned):
    """Edits anywhere in a long text: the cache re-encodes a tail, and the ids are always a whole encode's."""
    import random

    from bpelab import compare

    _index, texts = aligned
    base = "\n\n".join(t for _c, _n, t in texts)[:12_000] + " Hello<|endoftext|> world  \u3000 end"
    rng = random.Random(14)
    inserts = [" ", "a", "  ", "\n", "ế", "'s", "12345", "<|endoftext|>", "🙂", "x y", "\u00a0"]
    tokenizers = dict(refs, trained=train(base[:3_000], num_merges=60, special_tokens=("<|endoftext|>",)).tokenizer)
    for key, tok in tokenizers.items():
        for policy in ("text", "allow"):
            cache = EncodingCache()
            text = base
            cache.get(key, tok, text, policy)
            reused = 0
            for _ in range(25):
                at = rng.randrange(len(text))
                if rng.random() < 0.3:
                    text = text[:at] + text[at + rng.randrange(1, 5):]
                else:
                    text = text[:at] + rng.choice(inserts) + text[at:]
                previous = cache._entries[key, policy]
                reused += compare._reencode_tail(tok, previous[:1] + previous[1:], text, policy) is not None
                ids, ends = cache.get(key, tok, text, policy)
                whole = compare.encode(tok, text, policy)
                assert ids == whole, (key, policy, at)
                assert ends == boundaries(tok, whole)
            assert policy == "allow" or reused > 10  # the fast path does run (allow: the text holds a special)


def test_window_memo_never_keeps_stale_marks_or_spans(refs):
    """A reused window model gets the new neighbour's marks, and new spans when text before it changed."""
    cache = EncodingCache()
    gpt2 = ("g", "gpt2", refs["gpt2"])
    first = compare_panes([gpt2, ("o", "o200k_base", refs["o200k"])], XIN_CHAO, cache=cache)["panes"][0]
    same = compare_panes([gpt2, ("g2", "gpt2", refs["gpt2"])], XIN_CHAO, cache=cache)["panes"][0]
    assert any(first["differs"]) and not any(same["differs"])
    assert not any(t.get("differs") for t in same["tokens"])
    shifted = compare_panes([gpt2], "Ah " + XIN_CHAO, windows=[[2, 6]], cache=cache)["panes"][0]
    fresh = compare_panes([gpt2], "Ah " + XIN_CHAO, windows=[[2, 6]])["panes"][0]
    assert shifted["tokens"] == fresh["tokens"] and shifted["start"] == fresh["start"]


def test_two_panes_of_one_tokenizer_keep_their_own_marks(refs):
    """o200k | gpt2 | gpt2: the middle pane is marked against o200k, the last (same as its neighbour) not at all."""
    panes = [("o", "o200k_base", refs["o200k"]), ("g", "gpt2", refs["gpt2"]), ("g", "gpt2", refs["gpt2"])]
    cache = EncodingCache()
    for _ in range(2):  # the second time the window models come from the memo
        _o, middle, last = compare_panes(panes, XIN_CHAO, cache=cache)["panes"]
        assert any(t.get("differs") for t in middle["tokens"]) and middle["differs"] == [
            bool(t.get("differs")) for t in middle["tokens"]]
        assert not any(t.get("differs") for t in last["tokens"])
