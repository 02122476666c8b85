"""GPT-2's table between the 256 byte values and 256 visible characters.

`encoder.json` and `vocab.bpe` cannot hold raw bytes: a space would break a
merge line, a newline would end it, and bytes 0x80-0xFF are not UTF-8 on their
own. GPT-2's `encoder.py` therefore writes every byte as a printable character:
the 188 printable bytes stand for themselves and the other 68 move, in order,
to U+0100 onwards. So the space byte is 'Ġ' and the newline 'Ċ'.

This module is only the table; the file formats live in `artifacts.py`.
"""

PRINTABLE_BYTES = (
    list(range(ord("!"), ord("~") + 1))
    + list(range(ord("¡"), ord("¬") + 1))
    + list(range(ord("®"), ord("ÿ") + 1))
)


def _build_table():
    table = {}  # int -> str
    moved = 0
    for byte in range(256):
        if byte in PRINTABLE_BYTES:
            table[byte] = chr(byte)
        else:
            table[byte] = chr(256 + moved)
            moved += 1
    return table


BYTE_TO_CHAR = _build_table()  # int -> str, one character
CHAR_TO_BYTE = {char: byte for byte, char in BYTE_TO_CHAR.items()}  # str -> int

# Lookup lists are faster than dicts in the hot paths of the file readers.
_BYTE_TO_CHAR_LIST = [BYTE_TO_CHAR[b] for b in range(256)]


def bytes_to_visible(data):
    """The visible spelling of a byte string, as GPT-2's files write it.

    >>> bytes_to_visible(b" the\\n")
    'ĠtheĊ'
    """
    return "".join([_BYTE_TO_CHAR_LIST[b] for b in data])


def visible_to_bytes(text):
    """The bytes a visible spelling stands for; KeyError names no byte for others.

    >>> visible_to_bytes("Ġthe")
    b' the'
    """
    return bytes([CHAR_TO_BYTE[c] for c in text])


def gpt2_byte_ids():
    """GPT-2's own id for each byte: the printable bytes first, then the rest.

    >>> gpt2_byte_ids()[ord("!")], gpt2_byte_ids()[ord(" ")]
    (0, 220)
    """
    order = PRINTABLE_BYTES + [b for b in range(256) if b not in PRINTABLE_BYTES]
    return {byte: index for index, byte in enumerate(order)}
