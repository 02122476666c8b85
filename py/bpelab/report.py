"""Compression reports: how well a tokenizer shortens a text (seed 000 §8, seed 004).

Numbers per text: bytes, characters (code points, not graphemes), words
(whitespace-separated), tokens, bytes per token, characters per token, tokens
per word and vocabulary entries used. Per training run: a curve of characters
per token against the number of learned merges, for the training text and an
optional held-out text. The x axis is merges actually learned, never the
requested budget.
"""

from .pretokenize import split_special
from .tokenizer import Tokenizer
from .train import count_pieces

CURVE_POINTS = 12  # points on the curve, both ends included


def truncate_merges(tokenizer, k):
    """The tokenizer as it was after its first k merges (special tokens kept).

    >>> from bpelab.train import train
    >>> tok = train("aaab aaab", num_merges=2, pretokenizer="bytes", special_tokens=()).tokenizer
    >>> truncate_merges(tok, 0).encode("aaab")
    [97, 97, 97, 98]
    """
    if tokenizer.merges is None:
        raise ValueError("truncate_merges needs a tokenizer with explicit merges")
    if not 0 <= k <= len(tokenizer.merges):
        raise ValueError(f"k must be between 0 and {len(tokenizer.merges)}, got {k}")
    merges = tokenizer.merges[:k]
    keep = {i for i, token in tokenizer.vocab.items() if len(token) == 1}
    by_bytes = {token: i for i, token in tokenizer.vocab.items()}
    for a, b in merges:
        keep.add(by_bytes[tokenizer.vocab[a] + tokenizer.vocab[b]])
    vocab = {i: tokenizer.vocab[i] for i in sorted(keep)}
    return Tokenizer(
        vocab, merges, special_tokens=tokenizer.special_tokens, pretokenizer=tokenizer.pretokenizer, name=tokenizer.name
    )


def text_stats(documents):
    """Bytes, characters and words of a list of documents.

    >>> text_stats(["héllo world"])
    {'documents': 1, 'bytes': 12, 'characters': 11, 'words': 2}
    """
    return {
        "documents": len(documents),
        "bytes": sum(len(doc.encode("utf-8")) for doc in documents),
        "characters": sum(len(doc) for doc in documents),
        "words": sum(len(doc.split()) for doc in documents),
    }


def _ratio(a, b):
    return a / b if b else None


def compression(tokenizer, documents):
    """Compression of documents under one tokenizer.

    Special tokens are boundaries, not text, as in training and on the
    curve: their spellings count as neither characters nor tokens (an
    <|endoftext|> would otherwise add 13 characters for 1 token).

    >>> compression(Tokenizer.bytes_only(), ["ab ab"])["bytes_per_token"]
    1.0
    """
    specials = sorted(tokenizer.special_tokens)
    texts = [chunk for doc in documents for chunk, _start, special in split_special(doc, specials) if not special]
    stats = text_stats(texts) | {"documents": len(documents)}
    used = set()
    tokens = 0
    for text in texts:
        ids = tokenizer.encode_ordinary(text)
        tokens += len(ids)
        used.update(ids)
    stats.update(
        tokens=tokens,
        bytes_per_token=_ratio(stats["bytes"], tokens),
        characters_per_token=_ratio(stats["characters"], tokens),
        tokens_per_word=_ratio(tokens, stats["words"]),
        entries_used=len(used),
        vocab_size=len(tokenizer.vocab) + len(tokenizer.special_tokens),
    )
    return stats


def table_compression(tokenizer, table):
    """Compression of a word-count table [(piece bytes, count)], each piece encoded as one pre-token.

    A table stands for the text of its pieces, each as often as its count;
    its words are the pieces' words, counted the same way.

    >>> table_compression(Tokenizer.bytes_only(), [(b"ab", 3)])["tokens"]
    6
    """
    characters = size = words = tokens = 0
    used = set()
    for piece, count in table:
        text = piece.decode("utf-8")
        ids = tokenizer.encode_piece(piece)
        characters += len(text) * count
        size += len(piece) * count
        words += len(text.split()) * count
        tokens += len(ids) * count
        used.update(ids)
    return {
        "documents": 0, "pieces": len(table), "bytes": size, "characters": characters, "words": words,
        "tokens": tokens, "bytes_per_token": _ratio(size, tokens), "characters_per_token": _ratio(characters, tokens),
        "tokens_per_word": _ratio(tokens, words), "entries_used": len(used),
        "vocab_size": len(tokenizer.vocab) + len(tokenizer.special_tokens),
    }


def curve_points(n_merges, points=CURVE_POINTS):
    """Distinct merge counts from 0 to n_merges, evenly spaced.

    >>> curve_points(10, 3)
    [0, 5, 10]
    """
    if n_merges <= 0:
        return [0]
    return sorted({round(n_merges * i / (points - 1)) for i in range(points)})


def compression_report(result, heldout=None, *, points=CURVE_POINTS, on_progress=None):
    """The report for a training result: train and held-out numbers and the curve.

    `heldout` is a text or a list of documents, or None. The curve counts
    ordinary text only (special tokens are boundaries, not text) and encodes
    each distinct pre-token once per point, so it is cheap on long texts.
    `on_progress(done, total)` is called once per curve point.
    """
    tokenizer = result.tokenizer
    heldout_docs = None if heldout is None else ([heldout] if isinstance(heldout, str) else list(heldout))
    report = {
        "train": (table_compression(tokenizer, result.pieces) if result.input == "counts"
                  else compression(tokenizer, result.documents)),
        "heldout": compression(tokenizer, heldout_docs) if heldout_docs else None,
        "curve": [],
    }
    train_table = [(piece, count) for piece, count in result.pieces]
    heldout_table = None
    if heldout_docs:
        specials = list(tokenizer.special_tokens)
        table = count_pieces(heldout_docs, tokenizer.pretokenizer, specials)
        heldout_table = [(piece.encode("utf-8"), count) for piece, count in table.items()]
    xs = curve_points(len(result.merges), points)
    train_characters = sum(len(piece.decode("utf-8")) * count for piece, count in train_table)
    for done, k in enumerate(xs):
        # The trainer counted its tokens after every merge: the training curve is free.
        point = {"merges": k, "train": _ratio(train_characters, result.token_counts[k])}
        point["heldout"] = None
        if heldout_table:
            point["heldout"] = _table_chars_per_token(truncate_merges(tokenizer, k), heldout_table)
        report["curve"].append(point)
        if on_progress is not None:
            on_progress(done + 1, len(xs))
    return report


def _table_chars_per_token(tokenizer, table):
    """Characters per token over a pre-token table [(piece bytes, count)]."""
    characters = tokens = 0
    for piece, count in table:
        characters += len(piece.decode("utf-8")) * count
        tokens += len(tokenizer.encode_piece(piece)) * count
    return _ratio(characters, tokens)
