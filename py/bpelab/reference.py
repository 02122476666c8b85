"""The reference trainer: short, slow and obviously right. Tests hold `train.py` to it.

It is seed 003's `train` and seed 004's `trainbpe`, with every policy of the
fast trainer spelled out plainly: recount every pair on every merge, pick the
best by the tie-break, merge it everywhere. Rows that become equal are joined,
in first-seen order, exactly as seed 004's Counter does.
"""

from collections import Counter

from .pretokenize import split_special
from .train import TrainSettings, split_documents


def _merge(seq, pair, new):
    out, i = [], 0
    while i < len(seq):
        if i < len(seq) - 1 and (seq[i], seq[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(seq[i])
            i += 1
    return tuple(out)


def reference_train(corpus, settings=None, **overrides):
    """Merges [(a, b)], their counts, and the vocab {id: bytes}, the slow way.

    >>> merges, counts, vocab = reference_train(["abab", "abac"], num_merges=4,
    ...     pretokenizer="bytes", tie_break="smaller-id", min_count=2, special_tokens=())
    >>> merges, counts
    ([(97, 98)], [3])
    """
    settings = settings or TrainSettings(**overrides)
    documents = split_documents(corpus, settings.document_separator)
    pretokenizer = settings.get_pretokenizer()
    rows = Counter()  # tuple of ids -> count, in first-seen order
    for doc in documents:
        for chunk, _start, is_special in split_special(doc, settings.special_tokens):
            if not is_special:
                for piece in pretokenizer.split(chunk):
                    rows[tuple(piece.encode("utf-8"))] += 1
    vocab = {i: bytes([i]) for i in range(256)}
    merges, counts = [], []
    budget = settings.merge_budget()
    while (len(vocab) - 256 if settings.vocab_size is not None else len(merges)) < budget:
        pairs = Counter()
        first_seen = {}  # pair -> (row, position) of its first occurrence
        for r, (seq, n) in enumerate(rows.items()):
            for position, pair in enumerate(zip(seq, seq[1:])):
                pairs[pair] += n
                first_seen.setdefault(pair, (r, position))
        if not pairs:
            break
        if settings.tie_break == "greater":
            best = max(pairs, key=lambda p: (pairs[p], vocab[p[0]], vocab[p[1]]))
        elif settings.tie_break == "smaller-id":
            best = min(pairs, key=lambda p: (-pairs[p], p))
        else:
            best = min(pairs, key=lambda p: (-pairs[p], first_seen[p]))
        if pairs[best] < settings.min_count:
            break
        merged = vocab[best[0]] + vocab[best[1]]
        existing = [i for i, token in vocab.items() if token == merged]
        new = existing[0] if existing else len(vocab)
        vocab[new] = merged
        merges.append(best)
        counts.append(pairs[best])
        joined = Counter()
        for seq, n in rows.items():
            joined[_merge(seq, best, new)] += n
        rows = joined
    return merges, counts, vocab
