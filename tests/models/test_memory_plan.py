"""The arena planner (acl_bridge.models.planning.memory_plan) on the host: a table of small graphs with
their expected lifetimes and offsets, properties over random buffer lists, and the cached
face models (lifetimes from their plans, arena against its lower bound)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acl_bridge.models.planning.memory_plan import (Lifetime, MemoryPlanError, check_disjoint, lifetimes, place,
                                           plan_memory)
from acl_bridge.models.planning.tflite_plan import Plan, Step, View
from acl_bridge.models.format.tflite_reader import ModelSpec, TensorSpec

from .conftest import model_file


def _model(n_tensors, inputs, outputs, constants=()):
    tensors = tuple(TensorSpec(index=i, name=f"t{i}", shape=(1, 4, 4, 4), dtype="float32",
                               data=np.zeros((1, 4, 4, 4), np.float32) if i in constants else None)
                    for i in range(n_tensors))
    return ModelSpec(version=3, description="", tensors=tensors, operators=(), inputs=tuple(inputs),
                     outputs=tuple(outputs), md5="")


def _step(k, inputs, output, **params):
    return Step(k, "OP", "activation", tuple(inputs), output, tuple(params.items()))


# name: (model tensors, inputs, outputs, steps, views) -> expected {tensor: (first, last)}
GRAPHS = {
    # 0 -> 1 -> 2 -> 3 -> 4: each intermediate lives for two steps
    "chain": ((5, [0], [4], [_step(0, [0], 1), _step(1, [1], 2), _step(2, [2], 3), _step(3, [3], 4)], []),
              {1: (0, 1), 2: (1, 2), 3: (2, 3)}),
    # 0 -> 1; 1 -> 2; 1 -> 3; (2, 3) -> 4: 1 is read by two later steps
    "branch": ((5, [0], [4], [_step(0, [0], 1), _step(1, [1], 2), _step(2, [1], 3), _step(3, [2, 3], 4)], []),
               {1: (0, 2), 2: (1, 3), 3: (2, 3)}),
    # 1 and 2 are slices of 3 (a concatenation): the producers write into 3, whose life starts at the first
    "concat_of_views": ((6, [0], [5], [_step(0, [0], 1), _step(1, [0], 2), _step(2, [3], 4), _step(3, [4], 5)],
                         [View(1, 3, ("slice", 3, 0)), View(2, 3, ("slice", 3, 2))]),
                        {3: (0, 2), 4: (2, 3)}),
    # 2 is an in-place activation's output: an alias of 1, so 1 lives until 2's last reader
    "in_place": ((5, [0], [4], [_step(0, [0], 1), _step(1, [1], 1), _step(2, [2], 3), _step(3, [3], 4)],
                  [View(2, 1, ("alias",))]),
                 {1: (0, 2), 3: (2, 3)}),
    # 1 is read again by the last step
    "read_later": ((5, [0], [4], [_step(0, [0], 1), _step(1, [1], 2), _step(2, [2], 3), _step(3, [1, 3], 4)], []),
                   {1: (0, 3), 2: (1, 2), 3: (2, 3)}),
    # 2 is a graph output that later steps read: pinned, not in the arena
    "output_used_inside": ((5, [0], [2, 4], [_step(0, [0], 1), _step(1, [1], 2), _step(2, [2], 3), _step(3, [3], 4)], []),
                           {1: (0, 1), 3: (2, 3)}),
    # a reshape view keeps its parent alive; a constant (5) is never a buffer
    "reshape_and_constant": ((6, [0], [4], [_step(0, [0], 1), _step(1, [2, 5], 3), _step(2, [3], 4)],
                              [View(2, 1, ("reshape",))]),
                             {1: (0, 1), 3: (1, 2)}),
    # a copy step into a concatenation's slice writes the concatenation's output
    "copy_into_slice": ((5, [0], [4], [_step(0, [0], 1), Step(1, "CONCATENATION", "copy", (0,), -1,
                                                                (("into", 2), ("slice", ("slice", 3, 2)))),
                                       _step(2, [2], 3), _step(3, [3], 4)],
                         [View(1, 2, ("slice", 3, 0))]),
                        {2: (0, 2), 3: (2, 3)}),
}


def _plan(spec):
    n, inputs, outputs, steps, views = spec
    constants = (5,) if n == 6 and any(5 in s.inputs for s in steps) else ()
    return Plan(_model(n, inputs, outputs, constants), tuple(steps), tuple(views), ())


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_lifetimes_table(name):
    spec, expected = GRAPHS[name]
    plan = _plan(spec)
    lives, pinned = lifetimes(plan)
    assert {life.tensor: (life.first_step, life.last_step) for life in lives} == expected
    assert set(pinned) == {plan.root(t) for t in (*plan.model.inputs, *plan.model.outputs)}
    memory = plan_memory(plan, {t: 1000 for t in expected})
    assert check_disjoint(memory) is None
    assert memory.arena_size_in_bytes <= memory.total_size_in_bytes


def test_chain_reuses_memory():
    """A chain needs two slots alive at once: the arena is the bound, not the sum."""
    spec, _ = GRAPHS["chain"]
    memory = plan_memory(_plan(spec), {1: 640, 2: 640, 3: 640})
    assert memory.lower_bound_in_bytes == 1280
    assert memory.arena_size_in_bytes == 1280
    assert memory.total_size_in_bytes == 1920
    # 1 and 3 never meet: they share the first slot
    assert memory.slot_of(1).offset_in_bytes == memory.slot_of(3).offset_in_bytes == 0
    assert memory.slot_of(2).offset_in_bytes == 640


def test_greedy_by_size_alignment():
    a, b = Lifetime(1, 0, 1), Lifetime(2, 1, 2)
    memory = place([(a, 100), (b, 1000)], alignment_in_bytes=64)
    assert memory.slot_of(2).offset_in_bytes == 0  # the largest first
    assert memory.slot_of(1).offset_in_bytes == 1024  # 1000 rounded up to 64
    assert memory.slot_of(1).size_in_bytes == 128


def test_no_arena_buffers_is_an_empty_arena():
    """A one-operator model: its only buffers are the graph input and output (pinned)."""
    memory = place([], pinned=(0, 1))
    assert memory.slots == () and memory.arena_size_in_bytes == 0 and memory.pinned == (0, 1)


@pytest.mark.parametrize("buffers,alignment,match", [
    ([(Lifetime(1, 0, 1), 0)], 64, "size_in_bytes is 0 for tensor 1, expected > 0"),
    ([(Lifetime(1, 2, 1), 8)], 64, r"lifetime of tensor 1 is steps 2..1"),
    ([(Lifetime(1, 0, 1), 8), (Lifetime(1, 1, 2), 8)], 64, "tensor 1 is listed twice"),
    ([(Lifetime(1, 0, 1), 8)], 48, "alignment_in_bytes is 48, expected a power of two"),
])
def test_refusals(buffers, alignment, match):
    with pytest.raises(MemoryPlanError, match=match):
        place(buffers, alignment_in_bytes=alignment)


def test_missing_size_refused():
    spec, _ = GRAPHS["chain"]
    with pytest.raises(MemoryPlanError, match=r"no entry for tensors \[3\]"):
        plan_memory(_plan(spec), {1: 8, 2: 8})


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 6), st.integers(1, 5000)), min_size=1, max_size=30),
       st.sampled_from([1, 16, 64]))
def test_random_buffers_never_share_bytes_while_alive(raw, alignment):
    buffers = [(Lifetime(i, first, first + span), size) for i, (first, span, size) in enumerate(raw)]
    memory = place(buffers, alignment_in_bytes=alignment)
    assert check_disjoint(memory) is None
    assert all(s.offset_in_bytes % alignment == 0 for s in memory.slots)
    assert memory.lower_bound_in_bytes <= memory.arena_size_in_bytes <= memory.total_size_in_bytes


@pytest.mark.parametrize("name", ["face_detection_front", "face_landmark", "face_detection_full_range"])
def test_face_models_arena_near_lower_bound(name):
    """Dense float32 sizes (the padding ACL asks for comes on the device): the arena of each
    face model is within 1.10x of its lower bound, far below one buffer per tensor."""
    from acl_bridge.models.planning.tflite_plan import plan_model
    from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model

    plan = plan_model(fold_constant_dequantize(read_model(model_file(name))))
    lives, _ = lifetimes(plan)
    sizes = {life.tensor: int(np.prod(plan.model.tensors[life.tensor].shape)) * 4 for life in lives}
    memory = plan_memory(plan, sizes)
    assert check_disjoint(memory) is None
    assert memory.overhead_ratio() <= 1.10, memory.describe()
    assert memory.arena_size_in_bytes < memory.total_size_in_bytes / 3


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 8), st.integers(1, 5000)), min_size=1, max_size=40))
def test_a_kept_placement_is_used_as_it_is_and_only_where_it_is_valid(items):
    """place_at takes back what place() made (the same slots, in the same order), and refuses
    offsets that lose a buffer, are misaligned or make two buffers alive at once share bytes."""
    from acl_bridge.models.planning.memory_plan import place_at

    buffers = [(Lifetime(t, a, a + d), size) for t, (a, d, size) in enumerate(items)]
    made = place(buffers, pinned=(99,))
    kept = [(s.tensor, s.offset_in_bytes) for s in made.slots]
    again = place_at(buffers, kept, pinned=(99,))
    assert again == made
    assert place_at(buffers, kept[1:], pinned=(99,)) is None  # a buffer missing
    t, offset = kept[0]
    assert place_at(buffers, [(t, offset + 1)] + kept[1:], pinned=(99,)) is None  # not aligned
    end_to_end = sum(-(-size // 64) * 64 for _, size in buffers)
    for far in (end_to_end, 1 << 40, 1 << 70):  # past every buffer laid end to end: never allocated
        assert place_at(buffers, [(t, far)] + kept[1:], pinned=(99,)) is None
    assert place_at(buffers, [(t, float(offset))] + kept[1:], pinned=(99,)) is None  # not an int
    if len(kept) > 1:  # everything at offset 0: refused exactly when two lifetimes overlap
        stacked = place_at(buffers, [(t, 0) for t, _ in kept], pinned=(99,))
        overlapping = any(a.overlaps(b) for i, (a, _) in enumerate(buffers) for b, _ in buffers[i + 1:])
        assert (stacked is None) == overlapping


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 6), st.integers(1, 5000)), min_size=1, max_size=30),
       st.sampled_from([1, 16, 64]))
def test_orders_after_the_lower_bound_would_not_win(raw, alignment):
    """place() stops trying orders once one reaches the lower bound: the same slots as trying
    every order of _STRATEGIES and keeping the first smallest (the planner before it stopped)."""
    from acl_bridge.models.planning.memory_plan import _STRATEGIES, _overlapping, _place_in_order

    buffers = [(Lifetime(i, first, first + span), size) for i, (first, span, size) in enumerate(raw)]
    overlapping = _overlapping(buffers)
    every = [_place_in_order(sorted(buffers, key=key), alignment, best_fit, overlapping)
             for key, best_fit in _STRATEGIES]
    ends = [max(s.end_in_bytes for s in placed) for placed in every]
    memory = place(buffers, alignment_in_bytes=alignment)
    assert list(memory.slots) == every[ends.index(min(ends))]
    assert memory.lower_bound_in_bytes <= min(ends)


def _placed_slot_by_slot(order, alignment, best_fit, overlapping):
    """The placement as the planner first wrote it (Slot objects sorted by offset, each gap read
    off them): what _place_in_order's (offset, end) pairs must give."""
    from acl_bridge.models.planning.memory_plan import Slot

    placed, by_tensor = [], {}
    for life, size in order:
        size = -(-size // alignment) * alignment
        offset, chosen, smallest_gap = 0, None, None
        alive = (by_tensor[t] for t in overlapping[life.tensor] if t in by_tensor)
        for other in sorted(alive, key=lambda s: s.offset_in_bytes):
            gap = other.offset_in_bytes - offset
            if gap >= size:
                if not best_fit:
                    break
                if smallest_gap is None or gap < smallest_gap:
                    chosen, smallest_gap = offset, gap
            offset = max(offset, -(-other.end_in_bytes // alignment) * alignment)
        slot = Slot(life, offset if chosen is None else chosen, size)
        placed.append(slot)
        by_tensor[life.tensor] = slot
    return placed


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 6), st.sampled_from([1, 64, 100, 128, 4096, 5000])),
                min_size=1, max_size=40),
       st.sampled_from([1, 16, 64]))
def test_place_in_order_is_the_slot_by_slot_placement(raw, alignment):
    """_place_in_order (spans as (offset, end) pairs) places every buffer of every order of
    _STRATEGIES where the slot-by-slot form did; sizes drawn from a few values so that slots
    often start at one offset."""
    from acl_bridge.models.planning.memory_plan import _STRATEGIES, _overlapping, _place_in_order

    buffers = [(Lifetime(i, first, first + span), size) for i, (first, span, size) in enumerate(raw)]
    overlapping = _overlapping(buffers)
    for key, best_fit in _STRATEGIES:
        order = sorted(buffers, key=key)
        assert (_place_in_order(order, alignment, best_fit, overlapping)
                == _placed_slot_by_slot(order, alignment, best_fit, overlapping))
