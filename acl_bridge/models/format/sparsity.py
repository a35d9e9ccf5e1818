"""TFLite's sparse constants (schema ``SparsityParameters``), made dense at load.

A sparse constant's buffer keeps only some of its values. Its ``traversal_order`` lists the
levels of a tree: the tensor's dimensions (a permutation of them), then, for a block-sparse
tensor, the dimensions inside a block (``block_map[j]``: the tensor dimension that block
dimension ``j`` splits). A DENSE level keeps every index (``dense_size`` of them); a
SPARSE_CSR level keeps, under each position of the levels above, the indices of one segment
of ``array_indices`` (``array_segments[p]`` to ``array_segments[p + 1]``). The buffer holds
one value per leaf, in traversal order. :func:`densify` writes each value where TFLite's
sparsity format converter writes it (tensorflow/lite/kernels/internal/utils/
sparsity_format_converter.cc), zeros elsewhere, after :func:`stored_count` has checked every
field against the shape (as TFLite's verifier does, and stricter where the converter's result
would be undefined), so a damaged file is a :class:`SparsityFormatError` naming the field,
the value and what was expected: never an index out of range or a huge allocation.

Pure numpy; the flatbuffer is read by :mod:`.tflite_reader`, which turns these errors into
its own (:class:`~.tflite_reader.ModelFormatError`, naming the tensor).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ndarray.errors import AclNdarrayError, UnsupportedOptionError

DENSE, SPARSE_CSR = "DENSE", "SPARSE_CSR"  # schema enum DimensionType: 0, 1
# The largest dense tensor made from a sparse one: a few bytes of sparsity metadata can name
# a shape of billions of elements, so the dense size is bounded by this, not by the file.
MAX_DENSE_BYTES = 1 << 30


class SparsityFormatError(AclNdarrayError, ValueError):
    """Sparsity parameters that contradict the shape, each other or the stored values."""


class SparseTooLargeError(UnsupportedOptionError):
    """Well-formed sparsity parameters whose dense tensor is larger than ``max_dense_bytes``."""


def _index_array(values: Any) -> np.ndarray[Any, Any]:
    a = np.array(values, dtype=np.int64).reshape(-1)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class DimensionMetadata:
    """One level of the traversal: DENSE (``dense_size`` indices) or SPARSE_CSR
    (``array_segments``, ``array_indices``: read-only int64 arrays). Build with
    :meth:`dense` or :meth:`csr`; checked against the shape by :func:`stored_count`."""

    format: str
    dense_size: int = 0
    array_segments: Optional[np.ndarray[Any, Any]] = None
    array_indices: Optional[np.ndarray[Any, Any]] = None

    def __post_init__(self) -> None:
        if self.format not in (DENSE, SPARSE_CSR):
            raise SparsityFormatError(f"format is {self.format!r}, expected {DENSE!r} or {SPARSE_CSR!r}")

    @classmethod
    def dense(cls, size: int) -> "DimensionMetadata":
        return cls(DENSE, int(size))

    @classmethod
    def csr(cls, segments: Any, indices: Any) -> "DimensionMetadata":
        """A SPARSE_CSR level; None for a vector the file does not have."""
        return cls(SPARSE_CSR, 0, None if segments is None else _index_array(segments),
                   None if indices is None else _index_array(indices))

    def __repr__(self) -> str:
        if self.format == DENSE:
            return f"DENSE({self.dense_size})"
        segments = None if self.array_segments is None else len(self.array_segments)
        indices = None if self.array_indices is None else len(self.array_indices)
        return f"SPARSE_CSR(segments: {segments}, indices: {indices})"


@dataclass(frozen=True, eq=False)
class SparsityParameters:
    """A tensor's sparsity: levels in ``traversal_order`` (tensor dimensions, then block
    dimensions numbered from the rank up), ``block_map`` (block dimension -> tensor
    dimension), one :class:`DimensionMetadata` per level."""

    traversal_order: Tuple[int, ...]
    block_map: Tuple[int, ...]
    dim_metadata: Tuple[DimensionMetadata, ...]

    @classmethod
    def of(cls, traversal_order: Sequence[int], block_map: Sequence[int],
           dim_metadata: Sequence[DimensionMetadata]) -> "SparsityParameters":
        return cls(tuple(int(v) for v in traversal_order), tuple(int(v) for v in block_map), tuple(dim_metadata))

    def __repr__(self) -> str:
        return (f"SparsityParameters(traversal_order={list(self.traversal_order)}, block_map={list(self.block_map)}, "
                f"dim_metadata={list(self.dim_metadata)})")


@dataclass(frozen=True)
class _Level:
    """A level as densification needs it: its size, and the step its index makes in the
    flat dense tensor (the stride of its tensor dimension, times the block size for the
    outer index of a blocked dimension)."""

    size: int
    step_in_elements: int


def _permutation(values: Sequence[int], first: int, field: str, meaning: str) -> None:
    if sorted(values) != list(range(first, first + len(values))):
        raise SparsityFormatError(f"sparsity.{field} is {list(values)}, expected a permutation of "
                                  f"{list(range(first, first + len(values)))} ({meaning})")


def _levels(shape: Tuple[int, ...], sp: SparsityParameters) -> List[_Level]:
    """Size and step of each level, after checking the traversal order, the block map and
    the block sizes (DENSE levels, > 0)."""
    rank, order, block_map = len(shape), sp.traversal_order, sp.block_map
    if any(d < 0 for d in shape):
        raise SparsityFormatError(f"shape is {list(shape)}, expected sizes >= 0")
    if len(order) < rank:
        raise SparsityFormatError(f"sparsity.traversal_order has {len(order)} entries, expected at least the "
                                  f"tensor's rank {rank} (shape {list(shape)})")
    blocks = len(order) - rank
    if len(sp.dim_metadata) != len(order):
        raise SparsityFormatError(f"sparsity.dim_metadata has {len(sp.dim_metadata)} entries, expected one per "
                                  f"traversal_order entry: {len(order)}")
    if len(block_map) != blocks:
        raise SparsityFormatError(f"sparsity.block_map has {len(block_map)} entries, expected {blocks} "
                                  f"(traversal_order has {len(order)} entries for a rank-{rank} tensor)")
    _permutation(order[:rank], 0, f"traversal_order[:{rank}]", "the tensor's dimensions")
    _permutation(order[rank:], rank, f"traversal_order[{rank}:]", "the block's dimensions")
    if any(not 0 <= d < rank for d in block_map) or any(a >= b for a, b in zip(block_map, block_map[1:])):
        raise SparsityFormatError(f"sparsity.block_map is {list(block_map)}, expected increasing tensor dimensions "
                                  f"in [0, {rank}) (TFLite's converter pairs blocks with dimensions in that order)")
    block_size = [0] * blocks
    for level in range(rank, len(order)):
        m = sp.dim_metadata[level]
        if m.format != DENSE or m.dense_size <= 0:
            raise SparsityFormatError(f"sparsity.dim_metadata[{level}] (a block dimension) is {m!r}, expected DENSE "
                                      f"with dense_size > 0 (TFLite's blocks are dense)")
        block_size[order[level] - rank] = m.dense_size
    for j in range(blocks):  # TFLite's verifier and converter each read block j's size at another level
        seen = (sp.dim_metadata[rank + j].dense_size, sp.dim_metadata[order[rank + j]].dense_size)
        if seen != (block_size[j], block_size[j]):
            raise SparsityFormatError(f"sparsity.traversal_order[{rank}:] is {list(order[rank:])} with block sizes "
                                      f"{[sp.dim_metadata[k].dense_size for k in range(rank, len(order))]}: TFLite "
                                      f"reads block {j}'s size as {seen[0]} and {seen[1]}, expected {block_size[j]}")
    strides = [1] * rank
    for d in range(rank - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    levels = []
    for level, d in enumerate(order):
        if level < rank:
            b = block_size[block_map.index(d)] if d in block_map else 1
            levels.append(_Level(shape[d] // b, strides[d] * b))  # TFLite's floor: a partial block is not stored
        else:
            levels.append(_Level(block_size[d - rank], strides[block_map[d - rank]]))
    return levels


def _check_csr(m: DimensionMetadata, level: int, positions: int, size: int) -> None:
    """A SPARSE_CSR level's segments and indices, checked: one segment per position above,
    starting at 0, non-decreasing, ending at the number of indices, each index in [0, size)
    and named once in its segment."""
    field = f"sparsity.dim_metadata[{level}]"
    if m.array_segments is None or m.array_indices is None:
        vectors = (("array_segments", m.array_segments), ("array_indices", m.array_indices))
        missing = [n for n, v in vectors if v is None]
        raise SparsityFormatError(f"{field} is SPARSE_CSR without {' and '.join(missing)}, expected both vectors")
    segments, indices = m.array_segments, m.array_indices
    if len(segments) != positions + 1:
        raise SparsityFormatError(f"{field}.array_segments has {len(segments)} entries, expected {positions + 1} "
                                  f"(one more than the {positions} positions of the levels above)")
    if segments[0] != 0:
        raise SparsityFormatError(f"{field}.array_segments[0] is {int(segments[0])}, expected 0")
    steps = np.diff(segments)
    if steps.size and steps.min() < 0:
        k = int(np.argmax(steps < 0))
        raise SparsityFormatError(f"{field}.array_segments[{k + 1}] is {int(segments[k + 1])}, expected >= "
                                  f"array_segments[{k}] = {int(segments[k])} (segments never decrease)")
    if segments[-1] != len(indices):
        raise SparsityFormatError(f"{field}.array_segments[{positions}] is {int(segments[-1])}, expected the number "
                                  f"of array_indices, {len(indices)}")
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        k = int(np.argmax((indices < 0) | (indices >= size)))
        raise SparsityFormatError(f"{field}.array_indices[{k}] is {int(indices[k])}, expected an index in [0, {size})")
    if indices.size > 1:
        parent = np.repeat(np.arange(positions, dtype=np.int64), steps)
        key = parent * size + indices
        if not bool(np.all(key[1:] > key[:-1])):  # not sorted: unsorted is valid, a repeated index is not
            order = np.argsort(key, kind="stable")
            same = np.flatnonzero(key[order][1:] == key[order][:-1])
            if same.size:
                a, b = sorted((int(order[same[0]]), int(order[same[0] + 1])))
                raise SparsityFormatError(f"{field}.array_indices[{a}] and [{b}] are both {int(indices[a])} in segment "
                                          f"{int(parent[a])}, expected each index once per segment")


def _checked(shape: Tuple[int, ...], sp: SparsityParameters) -> Tuple[List[_Level], int]:
    """The levels and the number of stored values, every field checked against ``shape``."""
    levels = _levels(shape, sp)
    positions = 1
    for level, (lv, m) in enumerate(zip(levels, sp.dim_metadata)):
        if m.format == DENSE:
            if m.dense_size != lv.size:
                raise SparsityFormatError(f"sparsity.dim_metadata[{level}].dense_size is {m.dense_size}, expected "
                                          f"{lv.size} (level {level} of shape {list(shape)}, traversal_order "
                                          f"{list(sp.traversal_order)}, block_map {list(sp.block_map)})")
            positions *= lv.size
        else:
            _check_csr(m, level, positions, lv.size)
            positions = len(m.array_indices)  # type: ignore[arg-type]
    return levels, positions


def stored_count(shape: Sequence[int], sparsity: SparsityParameters) -> int:
    """How many values a buffer with these sparsity parameters holds, after checking every
    field against ``shape`` (SparsityFormatError naming the field otherwise). Allocates only
    in proportion to the vectors the parameters already hold."""
    return _checked(tuple(int(d) for d in shape), sparsity)[1]


def densify(values: np.ndarray[Any, Any], shape: Sequence[int], sparsity: SparsityParameters,
            max_dense_bytes: int = MAX_DENSE_BYTES) -> np.ndarray[Any, Any]:
    """The dense tensor of ``shape`` whose stored values (1-D, in traversal order) are
    ``values``: each at the place TFLite's sparsity format converter puts it, zeros
    elsewhere. SparsityFormatError for parameters that contradict the shape or the number
    of values; SparseTooLargeError for a dense tensor over ``max_dense_bytes``.

    Vectorised: per level, the dense offset of every position so far (``flat``); a DENSE
    level gives each position ``size`` children, a SPARSE_CSR level its segment's indices;
    a child's offset is its parent's plus its index times the level's step. With every
    field checked, no level holds more positions than the values stored or the segments
    of a later level (sizes are >= 1 when any value is stored)."""
    shape = tuple(int(d) for d in shape)
    values = np.asarray(values).reshape(-1)
    levels, count = _checked(shape, sparsity)
    if count != values.size:
        raise SparsityFormatError(f"the sparsity parameters keep {count} values, the buffer holds {values.size}")
    elements = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if elements * values.dtype.itemsize > max_dense_bytes:
        raise SparseTooLargeError(f"a sparse tensor of shape {list(shape)} {values.dtype} is {elements} elements "
                                  f"dense, more than max_dense_bytes={max_dense_bytes}")
    dense = np.zeros(elements, values.dtype)
    if count == 0:
        return dense.reshape(shape)
    flat = np.zeros(1, np.int64)  # per position of the levels so far: its offset in the dense tensor
    for lv, m in zip(levels, sparsity.dim_metadata):
        if m.format == DENSE:
            flat = (flat[:, None] + np.arange(lv.size, dtype=np.int64) * lv.step_in_elements).reshape(-1)
        else:
            assert m.array_segments is not None and m.array_indices is not None
            flat = np.repeat(flat, np.diff(m.array_segments)) + m.array_indices * lv.step_in_elements
    assert flat.size == count and (flat.size == 0 or 0 <= flat.min() <= flat.max() < elements), \
        f"{flat.size} leaves for {count} values, offsets outside [0, {elements})"
    dense[flat] = values
    return dense.reshape(shape)


__all__ = ["DENSE", "SPARSE_CSR", "MAX_DENSE_BYTES", "SparsityFormatError", "SparseTooLargeError",
           "DimensionMetadata", "SparsityParameters", "stored_count", "densify"]
