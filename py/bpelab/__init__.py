"""BPE Lab: learn, make and inspect byte-level BPE tokenizers.

Pure Python, standard library only, so the same code runs in CPython and in
Pyodide. The public surface is small:

    >>> from bpelab import train
    >>> result = train("low lower lowest", num_merges=3, pretokenizer="whitespace")
    >>> result.tokenizer.decode(result.tokenizer.encode("lowest"))
    'lowest'
"""

__version__ = "0.1.0"

from .tokenizer import Tokenizer, DisallowedSpecialError, InvalidTextError  # noqa: E402
from .train import CHAR_LIMIT, TrainSettings, TrainResult, TrainingCancelled, train  # noqa: E402

__all__ = [
    "CHAR_LIMIT",
    "DisallowedSpecialError",
    "InvalidTextError",
    "Tokenizer",
    "TrainResult",
    "TrainSettings",
    "TrainingCancelled",
    "train",
]
