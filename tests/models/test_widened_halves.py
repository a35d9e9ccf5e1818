"""The float16 constants widened together (tflite_reader.widened_halves, used by
fold_constant_dequantize): each value what ``astype(np.float32)`` gives, bit for bit, in memory
no caller can make writeable; and the fold equal to folding one constant at a time on every
fetched model and on graphs whose DEQUANTIZEs chain or fail (host, pure)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acl_bridge.models.apps.fetch import MODEL_FILES
from acl_bridge.models.format.tflite_reader import (ModelFormatError, ModelSpec, OperatorSpec, TensorSpec,
                                                    UnsupportedModelError, dequantize_constant,
                                                    fold_constant_dequantize, read_model, widened_halves)

from .conftest import model_file

_shapes = st.lists(st.integers(1, 5), min_size=0, max_size=4).map(tuple)


@given(st.lists(st.tuples(_shapes, st.integers(0, 2 ** 32 - 1), st.booleans()), min_size=0, max_size=12))
def test_each_value_is_astype_float32_bit_for_bit(drawn):
    """Random bit patterns (NaNs with payloads, infinities, subnormals, signed zeros), 0-d and
    odd sizes, file-like read-only views at an odd 2-byte position and writeable arrays."""
    values = []
    for shape, seed, in_file in drawn:
        n = int(np.prod(shape))
        bits = np.random.default_rng(seed).integers(0, 2 ** 16, n, dtype=np.uint16)
        if in_file:  # as the reader makes a constant: a view of immutable bytes
            raw = b"\0\0" + bits.tobytes()
            values.append(np.ndarray(shape, np.float16, raw, 2))
        else:
            values.append(bits.view(np.float16).reshape(shape))
    got = widened_halves(values)
    assert len(got) == len(values)
    for v, g in zip(values, got):
        want = v.astype(np.float32)
        assert g.dtype == want.dtype and g.shape == want.shape and g.tobytes() == want.tobytes()
        assert g.flags.c_contiguous and not g.flags.writeable
        assert g.__array_interface__["data"][0] % 64 == 0
        with pytest.raises(ValueError):
            g.flags.writeable = True


@pytest.mark.parametrize("value", [np.zeros((2, 0), np.float16), np.zeros(3, np.float32)])
def test_refuses_empty_or_other_types(value):
    with pytest.raises(ValueError, match="non-empty float16 arrays"):
        widened_halves([np.ones(2, np.float16), value])


def _fold_one_at_a_time(model: ModelSpec) -> ModelSpec:
    """The fold as it was written before widened_halves: each constant cast on its own."""
    tensors = list(model.tensors)
    kept = []
    for op in model.operators:
        if op.opcode == "DEQUANTIZE" and len(op.inputs) == 1 and len(op.outputs) == 1 \
                and tensors[op.inputs[0]].is_constant:
            src, dst = tensors[op.inputs[0]], tensors[op.outputs[0]]
            value = dequantize_constant(src, f"operator #{op.index} DEQUANTIZE")
            if tuple(value.shape) != tuple(dst.shape):
                raise ModelFormatError(f"operator #{op.index} DEQUANTIZE: input shape {list(src.shape)} differs "
                                       f"from output shape {list(dst.shape)}")
            value.flags.writeable = False
            tensors[dst.index] = TensorSpec(dst.index, dst.name, dst.shape, np.dtype(np.float32), value, None)
        else:
            kept.append(op)
    return ModelSpec(model.version, model.description, tuple(tensors), tuple(kept), model.inputs,
                     model.outputs, model.sha256)


def _same(a: ModelSpec, b: ModelSpec) -> None:
    assert (a.version, a.description, a.operators, a.inputs, a.outputs, a.sha256) == \
        (b.version, b.description, b.operators, b.inputs, b.outputs, b.sha256)
    assert len(a.tensors) == len(b.tensors)
    for s, t in zip(a.tensors, b.tensors):
        assert (s.index, s.name, tuple(s.shape), s.dtype, s.quantization) == \
            (t.index, t.name, tuple(t.shape), t.dtype, t.quantization)
        assert (s.data is None) == (t.data is None)
        if s.data is not None:
            assert s.data.dtype == t.data.dtype and s.data.shape == t.data.shape
            assert s.data.tobytes() == t.data.tobytes() and s.data.flags.writeable == t.data.flags.writeable


@pytest.mark.parametrize("name", sorted(MODEL_FILES))
def test_every_fetched_model_folds_as_one_at_a_time(name):
    model = read_model(model_file(name))
    _same(fold_constant_dequantize(model), _fold_one_at_a_time(model))


def _graph(ops, constants):
    """Four tensors of shape (2, 3); ``constants``: {index: float16 or int8 value}."""
    tensors = tuple(TensorSpec(i, f"t{i}", (2, 3), np.dtype(constants[i].dtype) if i in constants else np.dtype(np.float32),
                               constants.get(i), None) for i in range(4))
    return ModelSpec(3, "", tensors, tuple(OperatorSpec(k, code, ins, outs, ()) for k, (code, ins, outs) in enumerate(ops)),
                     (3,), (3,), "")


HALF = np.arange(6, dtype=np.float16).reshape(2, 3)


@pytest.mark.parametrize("ops, constants", [
    # a chain: the second DEQUANTIZE reads the float32 the first made, and is refused as before
    ([("DEQUANTIZE", (0,), (1,)), ("DEQUANTIZE", (1,), (2,)), ("ADD", (2, 3), (3,))], {0: HALF}),
    # two DEQUANTIZEs of one constant: two values
    ([("DEQUANTIZE", (0,), (1,)), ("DEQUANTIZE", (0,), (2,)), ("ADD", (1, 2), (3,))], {0: HALF}),
    # a DEQUANTIZE of an int8 constant without quantization before a float16 one: its refusal first
    ([("DEQUANTIZE", (1,), (2,)), ("DEQUANTIZE", (0,), (3,))], {0: HALF, 1: np.zeros((2, 3), np.int8)}),
    # a shape that differs from its output's
    ([("DEQUANTIZE", (0,), (1,))], {0: np.zeros((3, 2), np.float16)}),
])
def test_small_graphs_fold_or_fail_as_one_at_a_time(ops, constants):
    model = _graph(ops, constants)
    try:
        want = _fold_one_at_a_time(model)
    except (ModelFormatError, UnsupportedModelError) as e:
        with pytest.raises(type(e), match=re.escape(str(e))):
            fold_constant_dequantize(model)
        return
    _same(fold_constant_dequantize(model), want)
