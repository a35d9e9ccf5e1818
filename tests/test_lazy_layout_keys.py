"""A first start's layout keys spelled only for the kept files (acl_bridge.decisions.LazyLayoutKey,
made by configure_cold.Decided; issue 40), on the host: a lazy key spells exactly layout_key's
text, two keys a pass makes one object are of one text, and the decisions' JSON form is the
same whether their layouts are lazy keys or texts (the kept files byte-equal)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acl_bridge.configure_cold import Decided
from acl_bridge.configure_session import CONFIGURED_PLAN, decode, encode
from acl_bridge.decisions import (Decision, KeptDecisions, LazyLayoutKey, layout_key, layout_key_with, layout_parts,
                                  layout_text, quantization_key, quantization_text)
from acl_bridge.executor import array_layout_prefix
from acl_bridge.mapping import PerChannelQuantization, SymmetricQuantization, per_channel
from acl_bridge.plan import AclFacts, Action, FunctionPlan, PlanOptions, TensorPlan
from ndarray import NdArray, ShapeDescriptor

# floats whose texts differ though they compare equal (0.0, -0.0), or compare unequal though
# their texts are one ("nan"), beside ordinary scales
scales = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 0.5, 0.25, 1e-3])
quantizations = st.one_of(
    st.none(),
    st.tuples(scales, st.integers(-128, 127)),
    st.builds(SymmetricQuantization, scales),
    st.builds(PerChannelQuantization, st.lists(scales, min_size=1, max_size=6).map(tuple), st.integers(0, 3)),
    # not exact: scales of other types (spelled through float()), a bool axis
    st.builds(PerChannelQuantization, st.lists(st.integers(1, 9), min_size=1, max_size=3).map(tuple),
              st.integers(0, 3)),
    st.builds(PerChannelQuantization, st.lists(scales, min_size=1, max_size=3).map(tuple), st.just(True)),
)


@st.composite
def descriptors(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)))
    dtype = draw(st.sampled_from(["float32", "int8", "int32"]))
    if draw(st.booleans()):  # padded
        paddings = tuple(draw(st.integers(0, 2)) for _ in shape)
        offsets = tuple(draw(st.integers(0, p)) for p in paddings)
        return ShapeDescriptor.create(shape, dtype, paddings=paddings, padding_offsets=offsets)
    item = np.dtype(dtype).itemsize  # explicit strides: a transposed dense layout
    strides, step = [0] * len(shape), item
    for k in range(len(shape)):
        strides[k] = step
        step *= shape[k]
    return ShapeDescriptor.create(shape, dtype, strides=tuple(strides), offset=draw(st.integers(0, 2)) * item)


@settings(max_examples=200, deadline=None)
@given(descriptors(), st.sampled_from(["bridge", "user", "constant"]), st.booleans(), quantizations)
def test_a_lazy_key_spells_layout_key_s_text(d, origin, free, q):
    key = LazyLayoutKey(layout_parts(d, origin, free), q, quantization_key(q))
    text = layout_key(d, origin, free, q)
    assert key.text == str(key) == layout_text(key) == text and repr(key) == repr(text)
    assert key == text and text == key and hash(key) == hash(text)


@settings(max_examples=300, deadline=None)
@given(quantizations, quantizations)
def test_equal_quantization_keys_spell_equal_texts(a, b):
    """The stand-in a pass keys quantizations by is never coarser than their texts (-0.0 and
    0.0, NaNs, ints and floats, a bool axis); it is the text itself except for per-channel
    scales of floats, named by their bits."""
    ka, kb = quantization_key(a), quantization_key(b)
    if ka == kb:
        assert quantization_text(a) == quantization_text(b)
    if type(a) is PerChannelQuantization and all(type(s) is float for s in a.scales) and type(a.axis) is int:
        assert type(ka) is tuple and ka[1] == np.asarray(a.scales, np.float64).tobytes()
    else:
        assert ka == quantization_text(a)


def test_a_quantization_without_text_is_refused_alike():
    for bad in ((1.0, 2, 3), "scale", object()):
        with pytest.raises(TypeError, match="expected None"):
            quantization_key(bad)
        with pytest.raises(TypeError, match="expected None"):
            quantization_text(bad)


def test_a_lazy_key_keeps_the_text_of_what_it_was_made_of():
    """A (scale, offset) given as a list, changed after the pass: the key spells what it was
    (the text is made at once for all but an exact per-channel quantization, which is frozen)."""
    d = ShapeDescriptor.create((2, 3), "int8")
    q = [0.5, 3]
    key = LazyLayoutKey(layout_parts(d, "user", True), q, quantization_key(q))
    before = layout_key(d, "user", True, q)
    q[0] = 0.75
    assert key.text == before != layout_key(d, "user", True, q)



def test_a_lazy_key_equals_its_text_as_any_str():
    """Equal to its text as str and as a subclass of str (numpy's str_), hashing alike."""
    d = ShapeDescriptor.create((2, 3), "int8")
    key = LazyLayoutKey(layout_parts(d, "bridge", True), None, quantization_key(None))
    text = layout_key(d, "bridge", True, None)
    assert key == text and key == np.str_(text) and key != np.str_(text + " ")
    assert {np.str_(text): 1}.get(key) == 1 and {key: 2}.get(text) == 2

def _arrays():
    d = ShapeDescriptor.create((1, 4, 4, 8), "int8", paddings=(0, 1, 1, 0), padding_offsets=(0, 1, 1, 0))
    same = ShapeDescriptor.create((1, 4, 4, 8), "int8", paddings=(0, 1, 1, 0), padding_offsets=(0, 1, 1, 0))
    other = ShapeDescriptor.create((1, 4, 4, 8), "int8")
    return [NdArray.allocate(d), NdArray.allocate(d), NdArray.allocate(same), NdArray.allocate(other),
            NdArray.from_numpy(np.zeros((3, 8), np.int8))]


def test_a_pass_makes_one_key_object_per_text():
    """Decided.layout_key: one object per content (arrays of equal descriptors, quantizations
    of equal texts), each spelling layout_key's text of its array; distinct objects spell
    distinct texts."""
    memo = Decided()
    arrays = _arrays()
    qs = [None, (0.5, 3), (0.5, 3), per_channel(((0.5, 0.25, 0.125), 0), 0),
          PerChannelQuantization((0.5, 0.25, 0.125), 0), PerChannelQuantization((0.5, 0.25, 0.0), 0),
          PerChannelQuantization((0.5, 0.25, -0.0), 0), PerChannelQuantization((1.0, 2.0), 0),
          SymmetricQuantization(0.5)]
    made = {}
    for a in arrays:
        for q in qs:
            key = memo.layout_key(a, q)
            assert key.text == layout_key_with(array_layout_prefix(a), q)
            made.setdefault(key.text, set()).add(id(key))
    assert all(len(ids) == 1 for ids in made.values())
    assert len(memo.keys) == len(made)
    # finer than the text only where scales of ints spell what scales of floats spell: two
    # objects, decided apart (the same decisions, made twice)
    ints, floats = memo.layout_key(arrays[0], PerChannelQuantization((1, 2), 0)), memo.layout_key(
        arrays[0], PerChannelQuantization((1.0, 2.0), 0))
    assert ints is not floats and ints.text == floats.text


def test_a_pass_has_no_key_where_call_layouts_has_none():
    memo = Decided()
    raw = np.zeros(4 * 4 * 8 * 4 + 1, np.uint8)
    misaligned = NdArray.from_numpy(raw[1:].view(np.float32).reshape(1, 4, 4, 8))
    assert memo.layout_key(misaligned, None) is None
    assert memo.layout_key(NdArray.from_numpy(np.zeros(3, np.float32)), (1.0, 2, 3)) is None


def _decisions(layouts_of):
    """Three decisions over four tensors, their layouts made by ``layouts_of`` from
    (descriptor, origin, free, quantization) rows."""
    plan = FunctionPlan("add", (TensorPlan("a", Action.IN_PLACE), TensorPlan("b", Action.IN_PLACE),
                                TensorPlan("dst", Action.IN_PLACE)), needs_probe=False, renegotiated=False)
    pc = PerChannelQuantization((0.5, 0.25), 3)
    d1 = ShapeDescriptor.create((1, 2, 2, 2), "int8")
    d2 = ShapeDescriptor.create((1, 2, 2, 2), "int8", paddings=(0, 1, 0, 0), padding_offsets=(0, 1, 0, 0))
    rows = [[(d1, "bridge", True, (0.5, 1)), (d1, "constant", True, pc), (d2, "bridge", True, None)],
            [(d2, "bridge", True, None), (d1, "constant", True, PerChannelQuantization((0.5, 0.25), 3)),
             (d1, "bridge", True, (0.5, 1))],
            [(d1, "bridge", True, (0.5, 1)), (d1, "bridge", True, (0.5, 1)), (d2, "user", False, None)]]
    return tuple(Decision("add", bytes(8), "NHWC", PlanOptions(True, False), layouts_of(row), plan,
                          AclFacts(required_padding={}), (b"\x01" * 16, b"\x02" * 16, b"\x03" * 16), "neon", "ACL x")
                 for row in rows)


def _texts(row):
    return tuple(layout_key(*r) for r in row)


def _lazy_unshared(row):  # a lazy key per tensor: texts repeat across key objects
    return tuple(LazyLayoutKey(layout_parts(d, o, f), q, quantization_key(q)) for d, o, f, q in row)


def test_the_json_form_is_the_same_for_lazy_keys_and_texts():
    """The kept decisions are byte-equal whether a pass gave lazy keys (one object per text,
    or several objects of one text) or the texts themselves; decoded, they equal both."""
    texts = _decisions(_texts)
    expected = json.dumps(encode(CONFIGURED_PLAN, texts), sort_keys=True)
    lazy = _decisions(_lazy_unshared)
    kept = KeptDecisions.of(lazy)
    assert len(kept.distinct_layouts) == 9  # one per tensor: not spelled to be tabled
    assert all(type(v) is LazyLayoutKey and v._text is None for v in kept.distinct_layouts)
    assert json.dumps(encode(CONFIGURED_PLAN, kept), sort_keys=True) == expected
    assert json.dumps(encode(CONFIGURED_PLAN, lazy), sort_keys=True) == expected
    back = decode(CONFIGURED_PLAN, json.loads(expected))
    assert tuple(back) == texts == lazy
    assert list(back.distinct_layouts) == list(dict.fromkeys(t for d in texts for t in d.layouts))


def test_decisions_with_lazy_keys_match_calls_of_their_texts():
    lazy, texts = _decisions(_lazy_unshared)[0], _decisions(_texts)[0]
    assert lazy.matches(texts.kind, texts.params, texts.data_layout, texts.options, texts.layouts, texts.backend,
                        texts.acl)
    other = (texts.layouts[1],) + texts.layouts[1:]
    assert not lazy.matches(texts.kind, texts.params, texts.data_layout, texts.options, other, texts.backend,
                            texts.acl)
    assert repr(lazy) == repr(texts) and hash(lazy.layouts) == hash(texts.layouts)
