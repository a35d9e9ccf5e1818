"""How ``NdArray.to_string(show_padding=True)`` prints an allocation: numpy's own text for
every cell, and every cell that is not an element in parentheses::

    >>> a = NdArray.full((2, 2), 1, paddings=(1, 2), padding_offsets=(0, 1))
    >>> print(a.to_string(show_padding=True))
    [[(0.)  1.   1.  (0.)]
     [(0.)  1.   1.  (0.)]
     [(0.) (0.) (0.) (0.)]]

numpy decides everything else as it does for ``print``: the precision and width (from the
cells it shows), line wrapping, and the summary (``...``) of a big allocation.
"""

from __future__ import annotations

import sys
from typing import Dict, List

import numpy as np

__all__ = ["cells_text"]

_SEPARATOR = "\x00"


def cells_text(values: np.ndarray, outside: np.ndarray) -> str:
    """``values`` printed by numpy, the cells where ``outside`` is True in parentheses."""
    if values.size == 0:
        return np.array2string(values)
    index = np.arange(values.size).reshape(values.shape)
    shown: List[int] = []

    def seen(i: np.integer) -> str:
        shown.append(int(i))
        return "."

    np.array2string(index, formatter={"int": seen})  # which cells numpy shows (it summarises big arrays)
    # numpy's text of exactly those values, one width for all, as print() would give them
    texts = np.array2string(values.reshape(-1)[shown], separator=_SEPARATOR, threshold=sys.maxsize,
                            max_line_width=sys.maxsize)[1:-1].split(_SEPARATOR)
    text: Dict[int, str] = dict(zip(shown, texts))
    flags = outside.reshape(-1)

    def cell(i: np.integer) -> str:
        return f"({text[int(i)]})" if flags[i] else f" {text[int(i)]} "

    return np.array2string(index, formatter={"int": cell})
