"""Windows into long pieces: a long pre-token's tokens at any step, read off when each byte boundary went.

The explorer shows a window of the training text after k merges. A short
piece is encoded whole (explore.py keeps its merge history); a piece of
thousands of bytes (a whole document under the `bytes` pre-tokenizer) cannot
be re-encoded, or its history copied, at every step. For such a piece one
array says, for each byte boundary, the step at which it went:

    gone[j] = the rank of the merge that joined byte j - 1 and byte j

and the piece after k merges is cut exactly at the boundaries with
gone[j] >= k. Encoding applies merges lowest rank first, so it follows the
full encoding until that first applies a rank >= k; the rank of step i is
therefore counted as the highest rank applied up to step i (it only differs
from the rank itself after a merge that reused an existing id).

Two sources of `gone`: the trainer's records (`TrainResult.boundaries`, the
training itself, exact while no merge up to k reused an id) and
`boundary_steps`, a full encoding (any text, any tokenizer).

Not here: short pieces and everything else a window holds (explore.py).
"""

import heapq
from array import array

NEVER = 2**31 - 1  # no merge removed this boundary (also the piece's start)


def boundary_steps(ids, merger):
    """gone[j] for a piece given as byte ids; merger(a, b) -> (rank, made id) or None.

    >>> ranks = {(97, 98): (0, 256), (256, 99): (1, 257), (98, 99): (2, 258)}
    >>> list(boundary_steps([97, 98, 99, 98, 99], lambda a, b: ranks.get((a, b))))[1:]
    [0, 1, 2147483647, 2]
    """
    n = len(ids)
    ids = list(ids)
    gone = array("i", [NEVER]) * n
    nxt = array("i", range(1, n + 1))
    prv = array("i", range(-1, n - 1))
    heap = []
    for i in range(n - 1):
        hit = merger(ids[i], ids[i + 1])
        if hit is not None:
            heap.append((hit[0], i, hit[1]))
    heapq.heapify(heap)
    highest = -1
    while heap:
        rank, i, made = heapq.heappop(heap)
        j = nxt[i]
        if ids[i] is None or j >= n:
            continue
        hit = merger(ids[i], ids[j])
        if hit is None or hit[0] != rank:  # stale: a neighbour changed since this entry was pushed
            continue
        highest = max(highest, rank)
        gone[j] = highest
        ids[i] = made
        ids[j] = None
        after = nxt[j]
        nxt[i] = after
        if after < n:
            prv[after] = i
            hit = merger(made, ids[after])
            if hit is not None:
                heapq.heappush(heap, (hit[0], i, hit[1]))
        before = prv[i]
        if before >= 0:
            hit = merger(ids[before], made)
            if hit is not None:
                heapq.heappush(heap, (hit[0], before, hit[1]))
    return gone


def _cut(data, gone, threshold, j):
    """Whether byte offset j is a boundary after the step (a token's and a character's start)."""
    return j <= 0 or j >= len(data) or (gone[j] >= threshold and data[j] & 0xC0 != 0x80)


def spans(data, gone, threshold, lo, hi):
    """Byte spans [(start, end)] of the tokens covering data[lo:hi], widened to whole characters.

    A boundary stays after the step when gone[j] >= threshold.

    >>> gone = array("i", [NEVER, 0, NEVER, 1])  # ab|cd: (a, b) at rank 0, (c, d) at rank 1
    >>> spans(b"abcd", gone, 1, 1, 3)  # b and c: ab is one token, cd not yet merged
    [(0, 2), (2, 3)]
    >>> spans(b"abcd", gone, 2, 1, 3)  # after (c, d) too
    [(0, 2), (2, 4)]
    """
    start = lo
    while not _cut(data, gone, threshold, start):
        start -= 1
    end = max(hi, start + 1)
    while not _cut(data, gone, threshold, end):
        end += 1
    out, first = [], start
    for j in range(start + 1, end + 1):
        if j == end or gone[j] >= threshold:
            out.append((first, j))
            first = j
    return out
