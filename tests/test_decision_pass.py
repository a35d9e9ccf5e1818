"""The decision pass's shortcuts (acl_bridge.configure_cold, issue 40), on the host: each gives
exactly what the general path it replaces gives. A request for a buffer's second role is
``dataclasses.replace`` of its first; the plan options are the values ``PlanOptions`` makes;
the alias check that skips pairs of allocations apart raises exactly where the pairwise check
of every output against every other tensor raises."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from acl_bridge.configure_cold import Decided
from acl_bridge.decisions import quantization_key
from acl_bridge.executor import bridge_allocate, describe_request
from acl_bridge.families import Add, Convolution
from acl_bridge.functions import _shares_memory
from acl_bridge.layout import PaddingSize
from acl_bridge.mapping import PerChannelQuantization, SymmetricQuantization, _types, padded_descriptor
from acl_bridge.plan import Origin, PlanOptions, Reason, TensorRequest, plan_options
from ndarray import NdArray, ShapeDescriptor
from ndarray.errors import InvalidLayoutError

paddings = st.builds(PaddingSize, *(st.integers(0, 4) for _ in range(4)))
requests = st.builds(
    TensorRequest, role=st.sampled_from(["src", "dst", "weights"]), rank=st.integers(1, 6), is_output=st.booleans(),
    reads_output=st.booleans(), origin=st.sampled_from(list(Origin)),
    problem=st.none() | st.tuples(st.sampled_from(list(Reason)), st.text(max_size=8)),
    acl_padding=st.none() | paddings, dense=st.booleans(), padding_is_free=st.booleans(), acl_const=st.booleans())


@given(requests, st.sampled_from(["a", "b", "dst"]), st.booleans(), st.booleans())
def test_a_request_for_another_role_is_replace_of_the_first(r, role, is_output, acl_const):
    made = r.for_role(role, is_output, acl_const)
    expected = dataclasses.replace(r, role=role, is_output=is_output, acl_const=acl_const)
    assert made == expected and type(made) is TensorRequest
    assert made.__dict__ == expected.__dict__ and hash(made) == hash(expected)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.role = "other"  # type: ignore[misc]


def test_a_real_request_for_another_role_is_replace_of_the_first():
    a = NdArray.from_numpy(np.zeros((1, 4, 4, 8), np.int8))
    r = describe_request("src", a, is_output=False, data_layout="NHWC", quantization=(0.5, 3))
    assert r.info is not None
    assert r.for_role("dst", True, False) == dataclasses.replace(r, role="dst", is_output=True, acl_const=False)


def test_the_request_shortcut_holds_only_while_every_field_is_an_init_field():
    """for_role copies the fields as they are: valid while TensorRequest has no __post_init__
    (nothing checked or derived at construction) and no field outside __init__."""
    assert not hasattr(TensorRequest, "__post_init__")
    assert all(f.init for f in dataclasses.fields(TensorRequest))
    assert set(TensorRequest(role="x", rank=1, is_output=False).__dict__) == {
        f.name for f in dataclasses.fields(TensorRequest)}


@pytest.mark.parametrize("allow_copy", [False, True])
@pytest.mark.parametrize("allow_padding_writes", [False, True])
def test_the_shared_plan_options_are_the_values_plan_options_makes(allow_copy, allow_padding_writes):
    o = plan_options(allow_copy, allow_padding_writes)
    assert o == PlanOptions(allow_copy=allow_copy, allow_padding_writes=allow_padding_writes)
    assert (o.allow_copy, o.allow_padding_writes) == (allow_copy, allow_padding_writes)
    assert plan_options(allow_copy, allow_padding_writes) is o


def _reference_alias_refusal(f) -> bool:
    """The pairwise check as it was (every output against every other tensor): whether it
    refuses the call."""
    for out in f.outputs:
        a = f.arrays[out]
        if a is None or a.descriptor.size == 0:
            continue
        for role, b in f.arrays.items():
            if role == out or b is None or b.descriptor.size == 0:
                continue
            in_place = (type(f).in_place and a.data_ptr == b.data_ptr and a.descriptor.shape == b.descriptor.shape
                        and a.descriptor.strides == b.descriptor.strides)
            if not in_place and _shares_memory(a, b):
                return True
    return False


def _function(cls, arrays):
    f = cls.__new__(cls)
    f.kind, f.arrays = cls.kind, dict(zip(cls.roles, arrays))
    return f


# where each tensor of a call lies: its own buffer, or a window of one shared buffer (start
# and length in elements; empty windows included), or a bridge-owned buffer
placements = st.one_of(st.just(("own", 0, 6)), st.just(("bridge", 0, 6)),
                       st.tuples(st.just("shared"), st.integers(0, 12), st.integers(0, 8)))


def _array(shared: np.ndarray, where) -> NdArray:
    kind, start, n = where
    if kind == "own":
        return NdArray.from_numpy(np.zeros(n, np.float32))
    if kind == "bridge":
        return bridge_allocate(padded_descriptor((n,), np.float32, PaddingSize()))
    return NdArray.from_numpy(shared[start:start + n])


@given(st.sampled_from([Add, Convolution]), st.lists(placements, min_size=4, max_size=4), st.booleans())
def test_the_alias_check_refuses_exactly_where_the_pairwise_check_refuses(cls, where, strided):
    shared = np.zeros(24, np.float32)
    if strided:  # a strided parent: windows that interleave without sharing an element
        shared = np.zeros(48, np.float32)[::2]
    arrays = [_array(shared, w) for w in where[:len(cls.roles)]]
    f = _function(cls, arrays)
    if _reference_alias_refusal(f):
        with pytest.raises(InvalidLayoutError, match="overlaps"):
            f._check_aliasing()
    else:
        f._check_aliasing()


def test_an_element_wise_call_in_place_passes_and_an_overlap_is_refused():
    x = np.zeros((4, 4), np.float32)
    a = NdArray.from_numpy(x)
    _function(Add, [a, NdArray.from_numpy(np.ones((4, 4), np.float32)), a])._check_aliasing()
    with pytest.raises(InvalidLayoutError, match="dst overlaps a in memory"):
        _function(Add, [NdArray.from_numpy(x[:2]), NdArray.from_numpy(np.ones((2, 4), np.float32)),
                        NdArray.from_numpy(x[1:3])])._check_aliasing()


def test_a_pass_spells_each_array_s_layout_prefix_as_array_layout_prefix_does():
    """Decided makes an array's layout parts once per descriptor object (arrays of one shape
    share one), one object per content: the tuple whose text array_layout_prefix makes for
    each, origin and free padding included, and () for a misaligned array of the user's."""
    from acl_bridge.configure_cold import Decided
    from acl_bridge.decisions import _prefix_text
    from acl_bridge.executor import array_layout_prefix, bridge_slot

    d = padded_descriptor((1, 4, 4, 8), np.float32, PaddingSize())
    arena = bridge_allocate(padded_descriptor((4096,), np.float32, PaddingSize()))
    slots = [bridge_slot(arena, k * 1024, d) for k in range(3)]  # one descriptor object, bridge-owned
    user = [NdArray.allocate(d), NdArray.allocate(d)]  # the same descriptor, the user's
    raw = np.zeros(4 * 4 * 8 * 4 + 1, np.uint8)
    misaligned = NdArray.from_numpy(raw[1:].view(np.float32).reshape(1, 4, 4, 8))
    parent = np.zeros((1, 6, 6, 8), np.float32)
    view = NdArray.from_numpy(parent[:, 1:5, 1:5, :])  # its padding is not free
    memo = Decided()
    arrays = slots + user + [misaligned, view] + slots
    parts = [memo.layout_parts(a) for a in arrays]
    assert [_prefix_text(p) if p else "" for p in parts] == [array_layout_prefix(a) for a in arrays]
    assert memo.layout_parts(misaligned) == () and len(memo.prefixes) == 3  # bridge, user, the view's
    assert memo.layout_parts(slots[0]) != memo.layout_parts(user[0])
    assert memo.layout_parts(slots[0]) is memo.layout_parts(slots[2])
    # another descriptor object of the same content: the same parts object (one per content)
    same = ShapeDescriptor.create(d.shape, d.dtype, paddings=d.paddings, padding_offsets=d.padding_offsets)
    again = bridge_slot(arena, 3 * 1024, same)
    assert same == d and same is not d and memo.layout_parts(again) is memo.layout_parts(slots[0])
    assert len(memo.prefixes) == 4


_floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 0.5])
quantizations = st.one_of(
    st.none(), st.tuples(_floats, st.integers(-128, 127)), st.tuples(st.integers(1, 3), st.integers(-2, 2)),
    st.tuples(_floats, st.booleans()), st.lists(_floats | st.integers(0, 3), min_size=2, max_size=2),
    st.builds(PerChannelQuantization, st.lists(_floats, max_size=4).map(tuple), st.integers(0, 3)),
    st.builds(PerChannelQuantization, st.lists(st.integers(1, 3) | _floats, max_size=3).map(tuple), st.booleans()),
    st.builds(SymmetricQuantization, _floats | st.integers(1, 3)), st.text(max_size=3))


@given(st.lists(quantizations, min_size=1, max_size=6))
@example([[0.0, float("inf")]])
@example([[0.0, float("nan")]])
@example([(0.5, 3), (0.5, True), (0.5, 3.0), (-0.0, 1), (0.0, 1)])
def test_a_pass_keys_each_quantization_as_quantization_key_and_types_do(qs):
    """Decided.quantization (made once per object of the pass where the object cannot change)
    gives _types' answer and a key equal where quantization_key's are (of quantizations of
    the same types; never equal where those are not), their exceptions alike, asked once or
    again, for values that compare equal and spell differently (0.0 and -0.0, 1 and 1.0, True
    and 1), and for equal tuples that are other objects (a (scale, offset) pair of a float > 0
    and an int is its own key, by content)."""
    memo = Decided()
    seen = []
    for q in qs + qs + [tuple(list(q)) if type(q) is tuple else q for q in qs]:
        try:
            expected = (quantization_key(q), _types(q))
        except (TypeError, ValueError, OverflowError) as e:  # (an offset of inf or NaN: int() refuses it)
            with pytest.raises(type(e)):
                memo.quantization(q)
            continue
        key, types = memo.quantization(q)
        assert types == expected[1]
        seen.append((key, expected[0], types))
    for key, text, types in seen:
        for other, other_text, other_types in seen:
            if key == other:
                assert text == other_text, (key, other)
            if types == other_types:
                assert (key == other) == (text == other_text), (key, other)


def test_a_quantization_that_can_change_is_keyed_afresh():
    memo = Decided()
    q = [0.5, 3]
    assert memo.quantization(q)[0] == quantization_key([0.5, 3])
    q[0] = 0.25
    assert memo.quantization(q)[0] == quantization_key([0.25, 3]) != quantization_key([0.5, 3])
    assert not memo.quantizations  # a list: never kept by its id
    per_channel = PerChannelQuantization((0.5, 0.25), 0)
    assert memo.quantization(per_channel) == (quantization_key(per_channel), _types(per_channel))
    assert id(per_channel) in memo.quantizations  # a frozen one of floats: kept


@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["decided", "refused", "staged"])), min_size=1, max_size=12))
def test_the_pass_in_any_order_answers_as_in_call_order(calls):
    """The pass decides the calls on memory other tensors view first (``allow_padding_writes``
    False) where probes run beside it; its answer is the one of deciding in call order: the
    decisions in call order, the first staged call named, or the lowest refused call's reason
    (stand-ins for decide_one: each call's answer depends on its own content alone)."""
    from acl_bridge import configure_cold
    from acl_bridge.configure_cold import Staged

    class Kind:  # any function class: _call and decide_one are stood in for
        pass

    decided = [object() for _ in calls]

    def decide_one(call, memo, bound, beside):
        k = call
        outcome = calls[k][1]
        if outcome == "refused":
            return None, f"no {k}"
        if outcome == "staged":
            return Staged(("dst",)), f"stages {k}"
        return decided[k], ""

    def answer(beside):
        order = []
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(configure_cold, "acl_identity", lambda: "ACL")
            mp.setattr(configure_cold, "_call", lambda cls, args, kwargs, b: args[0])
            mp.setattr(configure_cold, "decide_one", lambda c, m, b, t: order.append(c) or decide_one(c, m, b, t))
            got = configure_cold.decide_calls([(Kind, (k,), {"allow_padding_writes": apw})
                                               for k, (apw, _) in enumerate(calls)], probes_beside=beside)
        return got, order

    (in_order, order), (beside, beside_order) = answer(False), answer(True)
    assert beside == in_order
    assert order == sorted(order)
    first_refused = next((k for k, (_, o) in enumerate(calls) if o == "refused"), None)
    if first_refused is None:
        assert in_order[0] == [None if o == "staged" else decided[k] for k, (_, o) in enumerate(calls)]
        staged = [k for k, (_, o) in enumerate(calls) if o == "staged"]
        assert in_order[1] == (f"function {staged[0]}: stages {staged[0]}" if staged else "")
        assert sorted(beside_order) == list(range(len(calls)))
    else:
        assert in_order == (None, f"function {first_refused}: no {first_refused}")
    hinted = [k for k, (apw, _) in enumerate(calls) if not apw]
    if 0 < len(hinted) < len(calls) and first_refused is None:
        assert beside_order[:len(hinted)] == hinted  # those on viewed memory first
