"""Memory maps: where every element of a layout sits in its allocation (the data behind the
pictures of acl_bridge.pictures, and the text form).

A :class:`MemoryMap` is the allocation seen as a grid of cells, one cell per element-sized
slot, read left to right and top to bottom (cell ``k`` is element offset ``k`` from the start
of the allocation). The grid has ``columns`` cells per row: by default the extent of the
innermost *padded* dimension (the row pitch), so a padded buffer shows up as in the libnd4j
ADR's and DirectML's figures, its padding as columns on the right and rows at the bottom::

    ADR 2x2x5x5 float32, ACL padding right 1 / bottom 1  ->  padded (2,2,6,6), 6 columns
    DirectML "ABCxxDEFxx" (sizes {2,3}, strides {5,1})   ->  5 columns, 2 rows

Each cell holds the logical element stored there, as its C-order linear index (the value an
``np.arange`` fill would put there), or nothing (a padding cell). Boundaries are drawn
between groups of cells: planes (the two innermost padded dimensions) and, for XLA tiled
layouts, tiles (every tiling level is a run of ``prod(tile)`` consecutive cells).

Builders: :func:`descriptor_map` (ShapeDescriptor), :func:`xla_map` (ndarray.formats.xla
shapes, tiled or not). Text: :func:`text_map`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ndarray import ShapeDescriptor
from ndarray.errors import InvalidLayoutError, NotRepresentableError

__all__ = ["MemoryMap", "descriptor_map", "descriptor_columns", "xla_map", "xla_columns", "text_map",
           "too_many_cells", "check_cells", "MAX_CELLS", "MAX_MAP_CELLS", "TEXT_MAP_MAX_CELLS"]

MAX_CELLS = 1 << 20  # above this many cells a picture is refused (text maps stop much earlier)
AUTO_COLUMNS_LIMIT = 256  # a derived row longer than this wraps at AUTO_WRAP cells instead
AUTO_WRAP = 64
MAX_MAP_CELLS = MAX_CELLS * 64  # above this many cells no map is built at all
TEXT_MAP_MAX_CELLS = 4096  # text maps stop here (text_map's default)


# ---------------------------------------------------------------------------- the map
@dataclass(frozen=True, eq=False)
class MemoryMap:
    """The allocation as cells; see the module docstring.

    ``cells[k]``: C-order linear index of the (lowest) element stored at offset ``k``, or -1
    for padding. ``counts[k]``: how many logical elements share offset ``k`` (0 = padding).
    ``boundaries``: ``(period, kind)`` pairs; a boundary separates cells ``i`` and ``j``
    when ``i // period != j // period`` (kind 'plane', or 'tile0', 'tile1'... per tiling level).
    """

    title: str
    shape: Tuple[int, ...]
    cells: np.ndarray
    counts: np.ndarray
    columns: int
    element0: int  # offset of element (0, ..., 0); -1 when there is no element
    boundaries: Tuple[Tuple[int, str], ...] = ()

    def __post_init__(self) -> None:
        if self.columns < 1:
            raise InvalidLayoutError(f"columns is {self.columns}, expected >= 1: {self.title}")
        assert self.cells.shape == self.counts.shape, (
            f"cells {self.cells.shape} and counts {self.counts.shape} disagree: {self.title}"
        )

    @property
    def alloc_size(self) -> int:
        return int(self.cells.size)

    @property
    def rows(self) -> int:
        return -(-self.alloc_size // self.columns)

    @property
    def padding_cells(self) -> int:
        return int(np.count_nonzero(self.counts == 0))

    @property
    def element_cells(self) -> int:
        """Cells holding at least one element."""
        return int(np.count_nonzero(self.counts))

    @property
    def shared_cells(self) -> int:
        """Cells holding more than one element (stride-0 or overlapping views)."""
        return int(np.count_nonzero(self.counts > 1))

    def plane_of(self, linear: np.ndarray) -> np.ndarray:
        """Index of the logical plane (the two innermost logical dimensions) of elements."""
        plane = math.prod(self.shape[-2:]) if len(self.shape) >= 2 else 0
        return linear // plane if plane else np.zeros_like(linear)

    def coordinates(self, linear: int) -> Tuple[int, ...]:
        return tuple(int(i) for i in np.unravel_index(int(linear), self.shape)) if self.shape else ()

    def group_edges(self, period: int) -> Tuple[np.ndarray, np.ndarray]:
        """Boolean arrays (rows, columns): a boundary right of a cell / below a cell."""
        idx = np.arange(self.rows * self.columns, dtype=np.int64).reshape(self.rows, self.columns)
        group = idx // period
        right = np.zeros(idx.shape, dtype=bool)
        right[:, :-1] = group[:, 1:] != group[:, :-1]
        below = np.zeros(idx.shape, dtype=bool)
        below[:-1, :] = group[1:, :] != group[:-1, :]
        inside = idx < self.alloc_size
        right &= inside & np.roll(inside, -1, axis=1)
        below &= inside & np.roll(inside, -1, axis=0)
        return right, below


def check_cells(alloc_size: int, title: str) -> None:
    """Refuse, before anything is allocated, a map of more cells than MAX_MAP_CELLS."""
    if alloc_size > MAX_MAP_CELLS:
        raise NotRepresentableError(
            f"alloc_size is {alloc_size} cells, expected at most {MAX_MAP_CELLS} for a memory map: {title}"
        )


def _from_offsets(title, shape, offsets: np.ndarray, alloc_size: int, columns: int, boundaries) -> MemoryMap:
    offsets = np.asarray(offsets, dtype=np.int64).reshape(-1)
    check_cells(alloc_size, title)
    if offsets.size and (offsets.min() < 0 or offsets.max() >= alloc_size):
        raise InvalidLayoutError(
            f"element offsets span {offsets.min()}..{offsets.max()}, expected inside the allocation "
            f"0..{alloc_size - 1}: {title}"
        )
    counts = np.bincount(offsets, minlength=alloc_size).astype(np.int64)
    cells = np.full(alloc_size, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(cells, offsets, np.arange(offsets.size, dtype=np.int64))
    cells[counts == 0] = -1
    element0 = int(offsets[0]) if offsets.size else -1
    bounds = tuple((p, k) for p, k in boundaries if 0 < p < alloc_size)
    return MemoryMap(title, tuple(shape), cells, counts, max(1, columns), element0, bounds)


def _auto_columns(extents_inner_first: Sequence[int], alloc_size: int) -> Tuple[int, int]:
    """(columns, plane period) from the physical extents, innermost first; sizes 1 skipped."""
    extents = [n for n in extents_inner_first if n > 1]
    if not extents:
        return max(1, min(alloc_size, AUTO_WRAP)), 0
    columns = extents[0]
    plane = columns * extents[1] if len(extents) > 1 else 0
    if columns > AUTO_COLUMNS_LIMIT:
        return AUTO_WRAP, 0
    return columns, plane


def descriptor_columns(d: ShapeDescriptor) -> Tuple[int, int]:
    """(columns, plane period) a map of ``d`` uses unless told: for a padded buffer, the
    innermost padded extent > 1 (``padded_shape[-1]`` in order 'c', ``padded_shape[0]`` in
    'f'); for any other strided view, the stride of the second-fastest dimension (a transpose
    shows its source rows). Costs nothing per element (``describe`` prints it without a map)."""
    if d.explicit is None:
        inner_first = d.padded_shape[::-1] if d.order == "c" else d.padded_shape
        return _auto_columns(inner_first, d.alloc_size)
    steps = sorted(set(abs(s) for n, s in zip(d.shape, d.strides) if n > 1 and s != 0))
    if len(steps) >= 2 and steps[1] <= AUTO_COLUMNS_LIMIT:
        return steps[1], (steps[2] if len(steps) >= 3 and steps[2] % steps[1] == 0 else 0)
    return max(1, min(d.alloc_size, AUTO_WRAP)), 0


def descriptor_map(d: ShapeDescriptor, columns: Optional[int] = None, title: Optional[str] = None) -> MemoryMap:
    """Memory map of a ShapeDescriptor (columns: :func:`descriptor_columns` unless given)."""
    check_cells(d.alloc_size, title or repr(d))
    offsets = np.full(d.shape, d.offset, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(d.shape, d.strides)):
        view = [1] * d.rank
        view[axis] = n
        offsets = offsets + (np.arange(n, dtype=np.int64) * s).reshape(view)
    auto, plane = descriptor_columns(d)
    return _from_offsets(
        title or repr(d), d.shape, offsets, d.alloc_size, columns or auto, ((plane, "plane"),) if plane else ()
    )


def xla_columns(shape) -> Tuple[int, Tuple[Tuple[int, str], ...]]:
    """(columns, boundaries) a map of an XLA shape uses unless told: tiled, the minor size of
    the first tile and a boundary around every tile of every level (a level's tile is
    ``prod(tile)`` consecutive cells); untiled, as a padded buffer, the most minor physical
    bound. Costs nothing per element."""
    if shape.tiles:
        sizes = [t for t in shape.tiles[0] if t > 0]
        auto = sizes[-1] if sizes[-1] > 1 else math.prod(sizes)
        boundaries = tuple((math.prod(t for t in tile if t > 0), f"tile{level}") for level, tile in enumerate(shape.tiles))
        return min(auto, AUTO_WRAP * 4), boundaries
    auto, plane = _auto_columns(shape.physical_dimensions[::-1], shape.buffer_size)
    return auto, ((plane, "plane"),) if plane else ()


def xla_map(shape, columns: Optional[int] = None, title: Optional[str] = None) -> MemoryMap:
    """Memory map of an ``ndarray.formats.xla.XlaShape`` (its ``linear_indices()``; columns
    and boundaries: :func:`xla_columns`)."""
    check_cells(shape.buffer_size, title or repr(shape))
    auto, boundaries = xla_columns(shape)
    return _from_offsets(title or repr(shape), shape.dimensions, shape.linear_indices(), shape.buffer_size,
                         columns or auto, boundaries)


# ---------------------------------------------------------------------------- text
def too_many_cells(alloc_size: int, max_cells: int = TEXT_MAP_MAX_CELLS) -> Optional[str]:
    """What a text map of ``alloc_size`` cells prints instead, when it is too large to print."""
    if alloc_size > max_cells:
        return f"({alloc_size} cells: too many to print, expected at most {max_cells}; draw it with --out FILE.png)"
    return None


def text_map(m: MemoryMap, coordinates: bool = False, max_cells: int = TEXT_MAP_MAX_CELLS) -> str:
    """The grid as text: one line per row, prefixed by the offset of its first cell.

    A cell shows the element's linear index (or its coordinates), ``.`` for padding, a
    trailing ``*`` when several elements share it; element 0 is in brackets ``[0]``. A blank
    line separates planes/tiles that start a row; ``|`` separates them inside a row.
    """
    refusal = too_many_cells(m.alloc_size, max_cells)
    if refusal:
        return refusal
    if m.alloc_size == 0:
        return "(empty allocation: 0 cells)"

    def label(k: int) -> str:
        if m.counts[k] == 0:
            return "."
        text = ",".join(map(str, m.coordinates(m.cells[k]))) if coordinates else str(int(m.cells[k]))
        text = f"({text})" if coordinates else text
        text += "*" if m.counts[k] > 1 else ""
        return f"[{text}]" if k == m.element0 else text

    labels = [label(k) for k in range(m.alloc_size)]
    width = max(len(s) for s in labels) + 1
    offset_width = len(str(m.alloc_size - 1))
    edges = [m.group_edges(p) for p, _ in m.boundaries]
    lines: List[str] = []
    for r in range(m.rows):
        start = r * m.columns
        if r and any(
            below[r - 1].any() and start % p == 0 and kind in ("plane", "tile0")
            for (p, kind), (_, below) in zip(m.boundaries, edges)
        ):
            lines.append("")
        parts = []
        for c in range(min(m.columns, m.alloc_size - start)):
            text = labels[start + c].rjust(width)
            if c and any(right[r, c - 1] for right, _ in edges):
                text = " |" + text
            parts.append(text)
        lines.append(f"{start:>{offset_width}} |" + "".join(parts))
    return "\n".join(lines)


