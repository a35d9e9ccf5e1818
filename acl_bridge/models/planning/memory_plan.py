"""Where a model's intermediate buffers live: one arena, slots placed by lifetime (pure Python).

Decide, then act (design habits 14 and 18): :func:`lifetimes` reads a :class:`Plan` and says,
for every buffer that owns memory, the first and the last step that touches it (views count
for their root: a RESHAPE output or a CONCATENATION slice keeps its parent alive);
:func:`place` puts the buffers into one arena so that two buffers whose lifetimes overlap
never share a byte. The runner then makes one aligned allocation and gives each buffer its
slot; nothing here touches memory.

Placement starts from TFLite's greedy-by-size rule (``simple_memory_arena``): the largest
buffer first, each at the lowest aligned offset that no already placed, lifetime-overlapping
buffer occupies. A few other orders (best fit, by first use, by size x lifetime) are tried
too and the smallest arena kept: on BlazeFace front, greedy by size alone gave 1.14x the
lower bound, best fit 1.00x. Lifetimes are closed step intervals, so a step's inputs and its output never
share bytes (ACL's functions are not in-place unless the plan says so with an alias view).

Graph inputs and outputs are *pinned*: they keep memory of their own (the caller writes the
input between runs, and reads outputs after a run while the next may be configured), so they
are not in the arena and not in its lower bound.

The lower bound is the largest sum of slot sizes alive at any one step: no placement can
use less. The arena's size over it is what :meth:`MemoryPlan.overhead_ratio` reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ndarray.errors import AclNdarrayError

from .tflite_plan import Plan, Step

DEFAULT_ALIGNMENT_IN_BYTES = 64


class MemoryPlanError(AclNdarrayError, ValueError):
    """A buffer list the arena planner cannot place (bad size, lifetime or alignment)."""


@dataclass(frozen=True)
class Lifetime:
    """Steps ``first_step`` to ``last_step`` (inclusive, indices into ``Plan.steps``) touch
    the buffer of model tensor ``tensor``."""

    tensor: int
    first_step: int
    last_step: int

    def overlaps(self, other: "Lifetime") -> bool:
        return self.first_step <= other.last_step and other.first_step <= self.last_step


@dataclass(frozen=True)
class Slot:
    """A buffer's bytes in the arena: ``[offset_in_bytes, offset_in_bytes + size_in_bytes)``."""

    lifetime: Lifetime
    offset_in_bytes: int
    size_in_bytes: int

    @property
    def tensor(self) -> int:
        return self.lifetime.tensor

    @property
    def end_in_bytes(self) -> int:
        return self.offset_in_bytes + self.size_in_bytes


@dataclass(frozen=True)
class MemoryPlan:
    slots: Tuple[Slot, ...]  # in placement order (largest first)
    pinned: Tuple[int, ...]  # tensors with memory of their own (graph inputs and outputs)
    alignment_in_bytes: int

    @property
    def arena_size_in_bytes(self) -> int:
        return max((s.end_in_bytes for s in self.slots), default=0)

    @property
    def total_size_in_bytes(self) -> int:
        """What one buffer per tensor would take (the runner without an arena)."""
        return sum(s.size_in_bytes for s in self.slots)

    @property
    def lower_bound_in_bytes(self) -> int:
        """The largest sum of sizes of the slots alive at one step."""
        return _lower_bound([(s.lifetime, s.size_in_bytes) for s in self.slots], 1)

    def overhead_ratio(self) -> float:
        """Arena size over the lower bound (1.0 is optimal; 1.0 for an empty arena)."""
        bound = self.lower_bound_in_bytes
        return self.arena_size_in_bytes / bound if bound else 1.0

    def slot_of(self, tensor: int) -> Slot:
        for s in self.slots:
            if s.tensor == tensor:
                return s
        raise KeyError(f"tensor {tensor} has no slot in the arena (pinned: {list(self.pinned)})")

    def describe(self) -> str:
        lines = [f"arena {self.arena_size_in_bytes} B for {len(self.slots)} buffers "
                 f"(one buffer each: {self.total_size_in_bytes} B; lower bound {self.lower_bound_in_bytes} B, "
                 f"{self.overhead_ratio():.3f}x); pinned tensors {list(self.pinned)}"]
        for s in sorted(self.slots, key=lambda s: s.offset_in_bytes):
            lines.append(f"  tensor {s.tensor:4d}: bytes [{s.offset_in_bytes}, {s.end_in_bytes}) "
                         f"steps {s.lifetime.first_step}..{s.lifetime.last_step}")
        return "\n".join(lines)


def step_tensors(step: Step) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """(tensors read, tensors written) by one step; a copy into a concatenation slice writes
    the concatenation's output (its ``into`` parameter)."""
    writes = list(step.written)
    into = step.param("into")
    if isinstance(into, int):
        writes.append(into)
    return tuple(step.inputs), tuple(writes)


def lifetimes(plan: Plan) -> Tuple[Tuple[Lifetime, ...], Tuple[int, ...]]:
    """(lifetimes of the arena's buffers, pinned tensors) of ``plan``: every buffer that owns
    memory (:meth:`Plan.buffers`) and is neither a graph input nor a graph output, from the
    first step that reads or writes it or any view of it to the last."""
    model = plan.model
    pinned = tuple(sorted({plan.root(t) for t in (*model.inputs, *model.outputs)}))
    first: Dict[int, int] = {}
    last: Dict[int, int] = {}
    for k, step in enumerate(plan.steps):
        reads, writes = step_tensors(step)
        for t in (*reads, *writes):
            if t < 0 or model.tensors[t].is_constant:
                continue
            r = plan.root(t)
            first.setdefault(r, k)
            last[r] = k
    buffers = [b for b in plan.buffers() if b not in pinned and b in first]
    return tuple(Lifetime(b, first[b], last[b]) for b in buffers), pinned


def _aligned(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def _overlapping(buffers: Sequence[Tuple[Lifetime, int]]) -> Dict[int, Tuple[int, ...]]:
    """{tensor: the tensors whose lifetimes overlap its own}, found once for every order that
    :func:`place` tries (a sweep by first step: each pair compared at most once)."""
    lives = sorted((life for life, _ in buffers), key=lambda life: (life.first_step, life.tensor))
    out: Dict[int, List[int]] = {life.tensor: [] for life in lives}
    for i, a in enumerate(lives):
        for b in lives[i + 1:]:
            if b.first_step > a.last_step:
                break  # every later one starts later still
            out[a.tensor].append(b.tensor)
            out[b.tensor].append(a.tensor)
    return {t: tuple(ts) for t, ts in out.items()}


def _lower_bound(buffers: Sequence[Tuple[Lifetime, int]], alignment: int) -> int:
    """The most aligned bytes alive at one step: :attr:`MemoryPlan.lower_bound_in_bytes` of
    every placement of ``buffers`` (no arena is smaller), swept over the steps where one
    starts or ends."""
    change: Dict[int, int] = {}
    for life, size in buffers:
        size = _aligned(size, alignment)
        change[life.first_step] = change.get(life.first_step, 0) + size
        change[life.last_step + 1] = change.get(life.last_step + 1, 0) - size
    alive = most = 0
    for step in sorted(change):
        alive += change[step]
        most = max(most, alive)
    return most


def _place_in_order(order: Sequence[Tuple[Lifetime, int]], alignment: int, best_fit: bool,
                    overlapping: Mapping[int, Tuple[int, ...]]) -> List[Slot]:
    """Each buffer in ``order`` at an aligned offset free of every placed buffer whose lifetime
    overlaps its own (``overlapping``: :func:`_overlapping`): the lowest such offset (first fit)
    or the smallest gap that holds it (best fit; the end of the arena when no gap does)."""
    placed: List[Slot] = []
    spans: Dict[int, Tuple[int, int]] = {}  # tensor -> (offset, end) of its slot, placed so far
    for life, size in order:
        size = _aligned(size, alignment)
        offset, chosen, smallest_gap = 0, None, None
        # (sorted by offset; equal offsets in either order give the same gaps and end offset)
        for other_offset, other_end in sorted([spans[t] for t in overlapping[life.tensor] if t in spans]):
            gap = other_offset - offset
            if gap >= size:
                if not best_fit:
                    break
                if smallest_gap is None or gap < smallest_gap:
                    chosen, smallest_gap = offset, gap
            other_end = _aligned(other_end, alignment)
            if other_end > offset:
                offset = other_end
        at = offset if chosen is None else chosen
        placed.append(Slot(life, at, size))
        spans[life.tensor] = (at, at + size)
    return placed


# Orders tried by place(), the smallest arena kept: TFLite's greedy by size (largest first),
# the same with best fit, and by first use (longest-lived first among equals).
_STRATEGIES = (
    (lambda b: (-b[1], b[0].first_step, b[0].tensor), False),
    (lambda b: (-b[1], b[0].first_step, b[0].tensor), True),
    (lambda b: (b[0].first_step, -(b[0].last_step - b[0].first_step), -b[1], b[0].tensor), False),
    (lambda b: (-(b[1] * (b[0].last_step - b[0].first_step + 1)), b[0].tensor), False),
)


def place(buffers: Sequence[Tuple[Lifetime, int]], *, pinned: Iterable[int] = (),
          alignment_in_bytes: int = DEFAULT_ALIGNMENT_IN_BYTES) -> MemoryPlan:
    """Place ``(lifetime, size_in_bytes)`` buffers in one arena: each at an offset (a multiple
    of ``alignment_in_bytes``) free of every placed buffer whose lifetime overlaps its own,
    in each order of ``_STRATEGIES`` (TFLite's greedy by size first); the smallest arena wins
    (the orders after one that reaches the lower bound are not tried: none is smaller).
    Ties are broken by tensor id, so the plan is deterministic."""
    if alignment_in_bytes <= 0 or alignment_in_bytes & (alignment_in_bytes - 1):
        raise MemoryPlanError(f"alignment_in_bytes is {alignment_in_bytes}, expected a power of two")
    seen: Dict[int, Lifetime] = {}
    for life, size in buffers:
        if size <= 0:
            raise MemoryPlanError(f"size_in_bytes is {size} for tensor {life.tensor}, expected > 0")
        if not 0 <= life.first_step <= life.last_step:
            raise MemoryPlanError(f"lifetime of tensor {life.tensor} is steps {life.first_step}..{life.last_step}, "
                                  f"expected 0 <= first_step <= last_step")
        if life.tensor in seen:
            raise MemoryPlanError(f"tensor {life.tensor} is listed twice: {seen[life.tensor]} and {life}")
        seen[life.tensor] = life
    best: Optional[List[Slot]] = None
    overlapping = _overlapping(buffers)
    bound = _lower_bound(buffers, alignment_in_bytes)
    best_end = 0
    for order_key, best_fit in _STRATEGIES:
        placed = _place_in_order(sorted(buffers, key=order_key), alignment_in_bytes, best_fit, overlapping)
        end = max((s.end_in_bytes for s in placed), default=0)
        if best is None or end < best_end:
            best, best_end = placed, end
        if best_end <= bound:
            break  # no later order can be smaller than the lower bound: the same arena wins
    placed = best or []
    return MemoryPlan(tuple(placed), tuple(sorted(pinned)), alignment_in_bytes)


def place_at(buffers: Sequence[Tuple[Lifetime, int]], offsets: Sequence[Tuple[int, int]], *,
             pinned: Iterable[int] = (), alignment_in_bytes: int = DEFAULT_ALIGNMENT_IN_BYTES) -> Optional[MemoryPlan]:
    """The arena with each buffer at a given offset, in the order given (``(tensor, offset)``
    pairs: a placement :func:`place` made earlier and kept), or None where they are no valid
    placement of these buffers: another set of tensors, an offset that is not an int, negative,
    not aligned or past the buffers laid end to end (no placement needs a larger arena: a kept
    offset of a terabyte is refused, not allocated), or two buffers alive at one step sharing a
    byte (:func:`check_disjoint`)."""
    by_tensor = {life.tensor: (life, size) for life, size in buffers}
    if len(offsets) != len(by_tensor) or {t for t, _ in offsets} != set(by_tensor):
        return None
    end_to_end = sum(_aligned(size, alignment_in_bytes) for _, size in buffers if size > 0)
    slots = []
    for t, offset in offsets:
        life, size = by_tensor[t]
        if type(offset) is not int or offset < 0 or offset % alignment_in_bytes or size <= 0:
            return None
        if offset + _aligned(size, alignment_in_bytes) > end_to_end:
            return None
        slots.append(Slot(life, offset, _aligned(size, alignment_in_bytes)))
    memory = MemoryPlan(tuple(slots), tuple(sorted(pinned)), alignment_in_bytes)
    return memory if check_disjoint(memory) is None else None


def plan_memory(plan: Plan, sizes_in_bytes: Mapping[int, int], *,
                alignment_in_bytes: int = DEFAULT_ALIGNMENT_IN_BYTES,
                kept: Optional[Sequence[Tuple[int, int]]] = None,
                leave_out: AbstractSet[int] = frozenset()) -> MemoryPlan:
    """The arena of ``plan`` given each buffer's size (padding and slack included); with
    ``kept`` (the ``(tensor, offset)`` pairs of an arena placed earlier for the same plan), that
    placement where it is valid for these sizes (:func:`place_at`), else placed afresh;
    ``leave_out``: buffers whose memory is elsewhere (a fallback segment's interpreter)."""
    lives, pinned = lifetimes(plan)
    lives = tuple(life for life in lives if life.tensor not in leave_out)
    missing = [life.tensor for life in lives if life.tensor not in sizes_in_bytes]
    if missing:
        raise MemoryPlanError(f"sizes_in_bytes has no entry for tensors {missing}")
    buffers = [(life, sizes_in_bytes[life.tensor]) for life in lives]
    if kept is not None:
        memory = place_at(buffers, kept, pinned=pinned, alignment_in_bytes=alignment_in_bytes)
        if memory is not None:
            return memory
    return place(buffers, pinned=pinned, alignment_in_bytes=alignment_in_bytes)


def check_disjoint(memory: MemoryPlan) -> Optional[str]:
    """None, or a sentence naming two buffers alive at one step that share bytes (for tests
    and for the runner's own assertion)."""
    slots = sorted(memory.slots, key=lambda s: s.offset_in_bytes)
    for i, a in enumerate(slots):
        for b in slots[i + 1:]:
            if b.offset_in_bytes >= a.end_in_bytes:
                break
            if a.lifetime.overlaps(b.lifetime):
                return (f"tensors {a.tensor} (steps {a.lifetime.first_step}..{a.lifetime.last_step}, bytes "
                        f"[{a.offset_in_bytes}, {a.end_in_bytes})) and {b.tensor} (steps {b.lifetime.first_step}.."
                        f"{b.lifetime.last_step}, bytes [{b.offset_in_bytes}, {b.end_in_bytes})) overlap")
    return None


__all__ = ["Lifetime", "Slot", "MemoryPlan", "MemoryPlanError", "lifetimes", "place", "place_at", "plan_memory",
           "check_disjoint", "step_tensors", "DEFAULT_ALIGNMENT_IN_BYTES"]
