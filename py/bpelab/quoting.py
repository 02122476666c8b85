"""User values in messages: a short, escaped prefix, never a 10 MB echo.

An error names the value it refuses, but a value can be a 10-million-character
string from a page or a file, and a message is one line a reader takes in at a
glance. `quote` shows the start of any value as repr() would (escapes and all,
so a newline or a bidi override in a name cannot break or reorder the line)
and says how long the whole is; it never builds the repr of the whole value.
`cap_message` is the last guard where messages leave the package (the CLI's
stderr, the worker's reply): a message still too long is cut, and says so.
"""

import reprlib

__all__ = ["MAX_MESSAGE_CHARS", "QUOTE_CHARS", "cap_message", "quote"]

QUOTE_CHARS = 60  # characters of a value a message shows
MAX_MESSAGE_CHARS = 2_000  # a whole message, at the edges (a message names a few values and the fix)

_SHORT = reprlib.Repr()
_SHORT.maxlevel = 2
_SHORT.maxtuple = _SHORT.maxlist = _SHORT.maxarray = _SHORT.maxset = _SHORT.maxfrozenset = _SHORT.maxdeque = 6
_SHORT.maxdict = 4
_SHORT.maxstring = _SHORT.maxother = QUOTE_CHARS


def _digits(value):
    return int(value.bit_length() * 0.30103) + 1  # an upper bound, exact for all but a few powers of ten


def quote(value, limit=QUOTE_CHARS):
    """repr(value) when short; else its start, '...' and the whole length.

    >>> quote("abc")
    "'abc'"
    >>> quote("x" * 10_000_000)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (10,000,000 characters)"
    >>> quote("a\\u202eb\\n")
    "'a\\\\u202eb\\\\n'"
    >>> quote(10 ** 5000)
    '<an integer of 5,001 digits>'
    >>> quote(list(range(10 ** 6)))
    '[0, 1, 2, 3, 4, 5, ...] (a list of 1,000,000 items)'
    """
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        if value.bit_length() > 64:  # str() of an int over 4,300 digits raises; no message needs them all
            return f"{'-' if value < 0 else ''}<an integer of {_digits(value):,} digits>"
        return repr(value)
    if isinstance(value, (str, bytes, bytearray)):
        shown = repr(value[: limit + 1])  # the repr of a prefix, never of the whole
        if len(value) <= limit and len(shown) <= limit + 3:
            return shown
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"{shown[:limit]}... ({len(value):,} {unit})"
    try:
        shown = _SHORT.repr(value)
    except Exception:  # a hostile __repr__: say what it is, not what it says
        shown = f"<{type(value).__name__}>"
    if len(shown) > limit + 20:
        shown = shown[:limit] + "..."
    try:
        size = len(value)
    except Exception:
        return shown
    if isinstance(value, (list, tuple, dict, set, frozenset)) and size > 6:
        return f"{shown} (a {type(value).__name__} of {size:,} items)"
    return shown


def cap_message(text, limit=MAX_MESSAGE_CHARS):
    """A message cut to `limit` characters, saying so: the last guard against a value quoted whole.

    >>> cap_message("short")
    'short'
    >>> len(cap_message("x" * 10_000_000)) < 2_100
    True
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... (the message was {len(text):,} characters; cut here)"
