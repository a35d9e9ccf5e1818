"""The graph's quantization contracts checked at once (tflite_quantization._graph_holds, the
path every read and every parsed-model cache decode takes) say exactly what the per-operator
checks say: on the published int8 models and on mutants of them, each differing from its model
in one quantization field of one tensor, the one-pass check holds where the per-operator
checks accept and fails where they refuse (which then name the field)."""

import os
from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.format import model_cache as mc  # noqa: E402
from acl_bridge.models.format import tflite_quantization as tq  # noqa: E402
from acl_bridge.models.format.tflite_reader import ModelFormatError, Quantization, read_model  # noqa: E402

from .conftest import model_file  # noqa: E402

# under emulation (the bookworm stage runs the pure tests) one model and fewer mutants: the code is pure Python
EMULATED = os.environ.get("HYPOTHESIS_PROFILE") == "emulated"
MODELS = ["visual_wake_words"] if EMULATED else ["visual_wake_words", "keyword_spotting_alexa",
                                                  "fingerprint_signature_generator"]
MUTANTS = 40 if EMULATED else 150


def _per_operator(spec) -> bool:
    """Whether the per-operator checks accept ``spec`` (check_quantization without its one pass)."""
    try:
        saved, tq._graph_holds = tq._graph_holds, lambda *args: False
        try:
            tq.check_quantization(spec)
        finally:
            tq._graph_holds = saved
    except ModelFormatError:
        return False
    return True


def _reader_arrays(spec):
    """check_quantization's ``arrays`` as the reader makes them: numpy's float64 and int64 arrays
    of every integer tensor's per-channel scales and zero points (the one pass's array path)."""
    arrays = {}
    for t in spec.tensors:
        q = t.quantization
        if q is not None and len(q.scale) > 1 and t.dtype in tq.STORAGE_RANGES:
            arrays[id(q.scale) * 2 + 1] = np.asarray(q.scale, np.float64)
            arrays[id(q.zero_point) * 2] = np.asarray(q.zero_point, np.int64)
    return arrays


def _mutants(spec, rng, count):
    """(what changed, the spec with it): one quantization field of one tensor that operators use
    as weights, bias, input or output changed to a value a crafted file could hold."""
    used = sorted({i for op in spec.operators for i in op.inputs + op.outputs if i >= 0})
    quantized = [spec.tensors[i] for i in used if spec.tensors[i].quantization is not None]
    for _ in range(count):
        t = quantized[int(rng.integers(len(quantized)))]
        q = t.quantization
        n = len(q.scale)
        c = int(rng.integers(n))
        kind = int(rng.integers(7))
        if kind == 0:  # one scale off by a relative 1e-5, 1e-7 or a factor
            scales = list(q.scale)
            scales[c] *= [1 + 1e-5, 1 + 1e-7, 2.0][int(rng.integers(3))]
            new, what = replace(q, scale=tuple(scales)), f"scale[{c}]"
        elif kind == 1:  # one zero point moved
            zero_points = list(q.zero_point)
            zero_points[c] += int(rng.integers(1, 3))
            new, what = replace(q, zero_point=tuple(zero_points)), f"zero_point[{c}]"
        elif kind == 2:  # another quantized dimension
            new, what = replace(q, quantized_dimension=(q.quantized_dimension + 1) % max(len(t.shape), 1)), "axis"
        elif kind == 3:  # no parameters
            new, what = None, "no quantization"
        elif kind == 4:  # one scale for every channel, or the first channel's only
            new, what = Quantization((q.scale[0],), (q.zero_point[0],), q.quantized_dimension), "one scale"
        elif kind == 5:  # another storage type
            dtype = [np.int8, np.uint8, np.int16, np.int32][int(rng.integers(4))]
            yield f"tensor {t.index} dtype {np.dtype(dtype)}", replace(
                spec, tensors=tuple(replace(u, dtype=np.dtype(dtype)) if u.index == t.index else u
                                    for u in spec.tensors))
            continue
        else:  # the softmax output's scale and zero point, or any per-tensor pair, set
            new = Quantization((float(np.float32(1 / 256)),) * n, (-128,) * n, q.quantized_dimension)
            what = "1/256, -128"
        yield f"tensor {t.index} {what}", replace(
            spec, tensors=tuple(replace(u, quantization=new) if u.index == t.index else u for u in spec.tensors))


@pytest.mark.parametrize("name", MODELS)
def test_the_one_pass_check_agrees_with_the_per_operator_checks_on_mutants(name):
    spec = read_model(model_file(name).read_bytes())
    assert tq._graph_holds(spec, {}) and _per_operator(spec)
    rng = np.random.default_rng(42)
    outcomes = {True: 0, False: 0}
    for what, mutant in _mutants(spec, rng, MUTANTS):
        holds = tq._graph_holds(mutant, {})
        assert holds == _per_operator(mutant), what
        assert tq._graph_holds(mutant, _reader_arrays(mutant)) == holds, what  # the reader's path: arrays
        outcomes[holds] += 1
        if not holds:  # the checks every read makes refuse it, naming the field
            with pytest.raises(ModelFormatError, match=r"quantization|expected"):
                tq.check_quantization(mutant)
    assert outcomes[False] >= MUTANTS // 3, outcomes  # the mutants mostly break a contract


@pytest.mark.parametrize("name", MODELS)
def test_a_kept_bias_scale_one_ulp_outside_the_tolerance_is_refused(name):
    """The tolerance's edge, both sides, through a parsed-model cache file: the one pass compares
    in float64 as the per-operator check does."""
    spec = read_model(model_file(name).read_bytes())
    op = next(op for op in spec.operators if op.opcode in tq.OUTPUT_CHANNEL_AXIS and len(op.inputs) > 2
              and op.inputs[2] >= 0 and spec.tensors[op.inputs[2]].quantization is not None)
    x, w, b = (spec.tensors[i] for i in op.inputs[:3])
    c = len(b.quantization.scale) - 1
    product = float(x.quantization.scale[0]) * float(w.quantization.scale[c if len(w.quantization.scale) > 1 else 0])
    edge = product * (1 + tq.BIAS_SCALE_RELATIVE_TOLERANCE)  # just inside, then one ulp past it
    while abs(product - edge) > tq.BIAS_SCALE_RELATIVE_TOLERANCE * min(product, edge):
        edge = np.nextafter(edge, product)
    key = {"test": 1}
    for value, ok in ((edge, True), (float(np.nextafter(edge, np.inf)), False)):
        scales = list(b.quantization.scale)
        scales[c] = float(value)
        mutant = replace(spec, tensors=tuple(replace(u, quantization=replace(u.quantization, scale=tuple(scales)))
                                             if u.index == b.index else u for u in spec.tensors))
        assert tq._graph_holds(mutant, {}) is ok and _per_operator(mutant) is ok
        assert tq._graph_holds(mutant, _reader_arrays(mutant)) is ok
        blob = memoryview(mc.encode(mutant, key))
        if ok:
            assert mc.decode(blob, key).tensors[b.index].quantization.scale[c] == value
        else:
            with pytest.raises(mc.CacheFileRejected, match=rf"quantization.scale\[{c}\] is .* expected input scale"):
                mc.decode(blob, key)



@pytest.mark.parametrize("flags", [np.ones(0, bool), np.ones(5, bool), np.array([True, False, True]),
                                   np.ones((4, 6), bool)[:, ::2], np.eye(3, dtype=bool), np.zeros((2, 3), bool)])
def test_all_true_is_numpys_all(flags):
    """all_true (a bool array's bytes read, no reduction) answers as ``flags.all()``, for empty,
    strided and two-dimensional arrays alike."""
    assert tq.all_true(flags) is bool(flags.all())


def test_all_zero_is_numpys_answer_and_refuses_what_the_safe_cast_refused():
    for values in [(), (0, 0), (0, 1), np.zeros(300, np.int64), np.array([0, 0, 2 ** 40], np.int64),
                   np.zeros(7, np.int8)[::2], np.array([0, -1], np.int32)]:
        assert tq._all_zero(values) is not bool(np.asarray(values, np.int64).any()), values
    with pytest.raises(TypeError):
        tq._all_zero(np.zeros(3, np.float64))


@pytest.mark.parametrize("biases", [
    [(0.5, (0.2, 0.4), (0.1, 0.2))],  # per channel, both
    [(0.5, (0.2,), (0.1, 0.1, 0.1))],  # one weight scale for three channels
    [(0.5, (0.2, 0.4), (0.1,))],  # one bias scale, the second product differs
    [(0.5, (0.2, 0.4), (0.1, 0.2, 0.3))],  # counts neither equal nor one
    [(0.25, (2, 4), (0.5, 1.0)), (0.5, (0.2,), (0.1,))],  # integer weight scales, a per-tensor operator
])
def test_the_products_on_arrays_answer_as_on_tuples(biases):
    """_products_hold on numpy arrays (the reader's, a cache decoder's) says what it says on the
    same scales as tuples; a type numpy does not cast to float64 safely is left to the
    per-operator checks (False)."""
    try:
        expected = tq._products_hold(biases)
    except ValueError:  # the tuple layout refuses counts neither equal nor one
        expected = False
    as_arrays = [(x, np.asarray(ws), np.asarray(bs)) for x, ws, bs in biases]
    assert tq._products_hold(as_arrays) is expected
    mixed = [(x, ws, np.asarray(bs)) for x, ws, bs in biases]  # a per-tensor tuple beside arrays
    assert tq._products_hold(mixed) is expected
    assert tq._products_hold([(x, np.asarray(ws, np.complex128), bs) for x, ws, bs in as_arrays]) is False
