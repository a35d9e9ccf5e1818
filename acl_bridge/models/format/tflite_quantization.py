"""Checks of a TFLite model's quantization parameters, run by :func:`~.tflite_reader.read_model`.

A quantized tensor stores ``q`` and means ``real = scale * (q - zero_point)``; with one scale
it is quantized per tensor, with one scale per index of axis ``quantized_dimension`` per
channel (TFLite: only constant int8 weights of CONV_2D, DEPTHWISE_CONV_2D and
FULLY_CONNECTED, and their int32 bias). Two levels:

* :func:`check_tensor_quantization`, for each integer tensor (int8, uint8, int16, int32,
  int64) as it is read: every scale finite and > 0; as many zero points as scales (TFLite's
  ``InterpreterBuilder::ParseQuantization`` refuses anything else, so a single zero point with
  several scales is refused too); zero points within the storage type's range;
  ``quantized_dimension`` an axis of the shape; several scales only as many as
  ``shape[quantized_dimension]``. Float tensors may carry quantization parameters (converters
  leave min/max or scales on them); they mean nothing for float arithmetic and are not checked.
* :func:`check_quantization`, for the whole graph, the rules TFLite's own kernels enforce
  when they are prepared (kernels/conv.cc, depthwise_conv.cc, fully_connected.cc,
  kernel_util.cc, activations.cc), refused here at load time instead of at the first run.
  Each operator's contract is its row of :data:`QUANTIZATION_CONTRACTS` (opcode -> checks);
  the loop names no opcode:

  - the quantized tensors of CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, SOFTMAX,
    CONCATENATION, MEAN, QUANTIZE's output and DEQUANTIZE's input carry quantization; the
    live tensors (everything but weights and bias) are quantized per tensor;
  - convolution, depthwise and fully-connected weights with an int8 / uint8 input have the
    input's type; per-channel weights are int8, quantized on the output-channel axis
    (:data:`OUTPUT_CHANNEL_AXIS`: 0 for OHWI convolution and (out, in) fully-connected
    weights, 3 for 1xHxWx(C*M) depthwise weights) and symmetric (zero point 0); int8
    convolution and depthwise weights are symmetric per tensor too (TFLite's int8
    convolution refuses others, its int8 depthwise kernel ignores them);
  - their bias is int32, zero point 0, and its scale is input scale x weight scale, channel
    by channel, within TFLite's tolerance (``GetQuantizedConvolutionMultipler``:
    ``|input_product_scale - bias_scale| <= 1e-6 * min(input_product_scale, bias_scale)``,
    in double). TFLite itself applies that check to uint8 per-tensor models only; here it
    covers int8 per channel too: neither TFLite's int8 kernels nor ACL's read the bias
    scale, they take it to be the product, so a bias stored at another scale is not the
    bias the model's float meaning says they add (the model contradicts itself);
  - an int8 SOFTMAX output has zero point -128 and scale exactly 1/256 (float32), a uint8 one
    zero point 0 (activations.cc ``CalculateSoftmaxParams``).

Every refusal is a :class:`~.tflite_reader.ModelFormatError` naming the operator or tensor,
the field, its value and what was expected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, AbstractSet, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

if TYPE_CHECKING:  # the reader imports this module; its types are only needed for annotations
    from .tflite_reader import ModelSpec, OperatorSpec, Quantization, TensorSpec

# storage type -> (smallest, largest) zero point it can hold
STORAGE_RANGES: Dict[np.dtype[Any], Tuple[int, int]] = {
    np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
    for t in (np.int8, np.uint8, np.int16, np.int32, np.int64)
}

_ACTIVATION_TYPES = (np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16))

# TFLite's tolerance on bias scale vs input scale x weight scale (relative, in double)
BIAS_SCALE_RELATIVE_TOLERANCE = 1e-6
SOFTMAX_INT8_OUTPUT = (float(np.float32(1.0 / 256)), -128)


def _error(message: str) -> Exception:
    from .tflite_reader import ModelFormatError

    return ModelFormatError(message)


# ---------------------------------------------------------------------------- one tensor
def check_tensor_quantization(what: str, shape: Sequence[int], dtype: np.dtype[Any], q: "Quantization") -> None:
    """Refuse malformed quantization parameters ``q`` of the integer tensor ``what``
    (``shape``, ``dtype``) with ModelFormatError; float tensors are not checked."""
    if dtype not in STORAGE_RANGES:
        return
    k = _first(q.scale, lambda a: ~(np.isfinite(a) & (a > 0)), lambda s: not (math.isfinite(s) and s > 0), np.float64)
    if k is not None:
        raise _error(f"{what}: quantization.scale[{k}] is {q.scale[k]!r}, expected a finite number > 0 "
                     f"(scale={_short(q.scale)})")
    if len(q.zero_point) != len(q.scale):
        raise _error(f"{what}: quantization.zero_point has {len(q.zero_point)} values, expected {len(q.scale)}, "
                     f"one per scale as TFLite requires (zero_point={_short(q.zero_point)}, scale={_short(q.scale)})")
    lo, hi = STORAGE_RANGES[dtype]
    k = _first(q.zero_point, lambda a: (a < lo) | (a > hi), lambda z: not lo <= z <= hi, np.int64)
    if k is not None:
        raise _error(f"{what}: quantization.zero_point[{k}] is {q.zero_point[k]}, expected a value in [{lo}, {hi}] "
                     f"that {dtype} can hold")
    rank = len(shape)
    if not 0 <= q.quantized_dimension < max(rank, 1):
        raise _error(f"{what}: quantization.quantized_dimension is {q.quantized_dimension}, expected an axis in "
                     f"[0, {max(rank, 1)}) of shape {list(shape)}")
    if len(q.scale) > 1 and (rank == 0 or len(q.scale) != shape[q.quantized_dimension]):
        size = shape[q.quantized_dimension] if rank else "(a scalar has no axis)"
        raise _error(f"{what}: quantization.scale has {len(q.scale)} values (per channel on quantized_dimension "
                     f"{q.quantized_dimension}), expected 1 or shape[{q.quantized_dimension}] = {size} for shape "
                     f"{list(shape)}")


_VECTORIZED_FROM = 16  # per-channel parameters are checked with numpy from this many values on


def _first(values: Sequence[Any], bad_array: Callable[[np.ndarray], np.ndarray], bad: Callable[[Any], bool],
           dtype: type, arrays: Optional[Dict[int, np.ndarray]] = None) -> Optional[int]:
    """The index of the first of ``values`` that is bad (``bad`` per value, or ``bad_array``
    over numpy's array of them where there are many: per-channel parameters), or None.
    ``arrays``: numpy's arrays of the sequences seen in one check, by identity (a model's
    tensors share their parameters' tuples where a cache kept them once)."""
    if len(values) >= _VECTORIZED_FROM:
        try:
            array = _array(values, dtype, arrays)
        except (OverflowError, TypeError, ValueError):
            pass  # a value numpy cannot hold as dtype: checked one by one below
        else:
            flags = bad_array(array)
            return int(np.argmax(flags)) if flags.any() else None
    return next((k for k, v in enumerate(values) if bad(v)), None)


def _array(values: Sequence[Any], dtype: type, arrays: Optional[Dict[int, np.ndarray]]) -> np.ndarray:
    """``np.asarray(values, dtype)``, once per sequence object and dtype within one check."""
    if arrays is None:
        return np.asarray(values, dtype)
    key = id(values) * 2 + (dtype is np.float64)
    a = arrays.get(key)
    if a is None:
        a = arrays[key] = np.asarray(values, dtype)
    return a


def _short(values: Sequence[Any], n: int = 4) -> str:
    shown = ", ".join(repr(v) for v in values[:n])
    return f"[{shown}{', ...' if len(values) > n else ''}] ({len(values)} values)" if len(values) > n else f"[{shown}]"


# ---------------------------------------------------------------------------- the graph
def check_quantization(model: "ModelSpec", arrays: Optional[Dict[int, np.ndarray]] = None) -> None:
    """Refuse, with ModelFormatError naming the operator, tensor, field, value and expectation,
    quantization parameters that contradict what the operators using them require (see the
    module's docstring). Float operators are not concerned. ``arrays``: numpy's arrays of the
    parameters' tuples where the caller has them already (by ``id(values) * 2 + is_float``:
    a cache decoder's views of its file), else made here once per tuple. The per-channel bias
    scales of every operator are compared in one pass at the end; where one fails, each
    operator is checked again alone, so that the message names the first."""
    arrays = {} if arrays is None else arrays
    if _graph_holds(model, arrays):
        return
    biases: List[Tuple[Any, ...]] = []  # the operators whose per-channel bias scales are compared at the end
    for op in model.operators:
        for check in QUANTIZATION_CONTRACTS.get(op.opcode, ()):
            check(model, op, arrays, biases)
    if biases and not _bias_scales_hold(biases):
        for where, x, w, b, *_ in biases:
            _check_bias(where, x, w, b, arrays, None)  # raises for the first that fails


_INT8, _UINT8, _INT32 = np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int32)
_CHECK_FAILURES = (IndexError, OverflowError, TypeError, ValueError)


def _graph_holds(model: "ModelSpec", arrays: Dict[int, np.ndarray]) -> bool:
    """Whether every rule :func:`check_quantization` enforces holds, found at once: one pass
    over the operators in plain Python (each contract's ``holds``) that gathers the weights'
    and biases' zero points and the bias scales, then the zero points read off their bytes
    (:func:`_all_zero`) and every bias scale compared with its product in one comparison
    (:func:`_products_hold`; no numpy reduction: :func:`all_true`). True only where each rule
    holds; False where one fails or this pass cannot tell (a value numpy cannot hold, a
    malformed spec): the per-operator checks then say which, in the same words."""
    found = _Gathered(model.tensors, arrays)
    try:
        for op in model.operators:
            for check in QUANTIZATION_CONTRACTS.get(op.opcode, ()):
                if not check.holds(op, found):
                    return False
        if not all(map(_all_zero, found.zero_points)):
            return False
        return not found.biases or _products_hold(found.biases)
    except _CHECK_FAILURES:
        return False


def all_true(flags: np.ndarray) -> bool:
    """``bool(flags.all())`` for a bool array, read off its bytes (0 or 1 each) instead of by
    numpy's reduction, whose first call in a process costs 4-5 ms under emulation (its machinery
    translated; docs/performance.md Part 14)."""
    return 0 not in flags.tobytes()


def values_hold(scales: np.ndarray, zero_points: np.ndarray, lo: Any, hi: Any) -> bool:
    """Whether every scale is finite and > 0 and every zero point within [``lo``, ``hi``]
    (numbers or arrays that broadcast), without numpy's reductions (:func:`all_true`): the
    reader's check of a tensor's many per-channel values, and a kept file's of all of them."""
    return all_true(np.isfinite(scales) & (scales > 0)) and all_true((zero_points >= lo) & (zero_points <= hi))


def _all_zero(values: Any) -> bool:
    """Whether every one of ``values`` (a tuple of ints, an integer array) is 0; TypeError for
    an array of another kind (what numpy's safe cast to int64 refused before)."""
    if type(values) is tuple:
        return not any(values)
    if values.dtype.kind not in "iu":
        raise TypeError(f"zero points of {values.dtype}, expected integers")
    data: bytes = values.tobytes()
    return data.count(0) == len(data)


class _Gathered:
    """What the contracts' ``holds`` gather for :func:`_graph_holds`'s checks at once: the
    sequences that must be all 0 and the (input scale, weight scales, bias scales) triples."""

    def __init__(self, tensors: Sequence["TensorSpec"], arrays: Dict[int, np.ndarray]) -> None:
        self.tensors, self.n, self.arrays = tensors, len(tensors), arrays
        self.zero_points: List[Any] = []
        self.biases: List[Tuple[float, Any, Any]] = []


def _products_hold(biases: List[Tuple[float, Any, Any]]) -> bool:
    """Whether each bias's scales are its input scale x weight scales within TFLite's tolerance
    (float64, as :func:`_check_bias` compares them), channel by channel, every operator's in
    one pass (a single weight or bias scale stands for every channel)."""
    if all(type(ws) is tuple and type(bs) is tuple for _, ws, bs in biases):
        products, scales = _per_channel(biases)
    else:  # arrays (the reader's, a cache decoder's): a multiplication per operator, joined
        per_product, per_scale = [], []
        for x, ws, bs in biases:
            w, b = np.asarray(ws), np.asarray(bs)
            nw, nb = len(w), len(b)
            n = max(nw, nb)
            if (nw != n and nw != 1) or (nb != n and nb != 1) or w.dtype not in _TO_FLOAT64 \
                    or b.dtype not in _TO_FLOAT64:
                return False  # counts neither equal nor one, or a type left to the per-operator checks
            per_product.append(x * w if nw == n else np.full(n, x * w[0]))
            per_scale.append(b if nb == n else np.full(n, b[0]))
        products, scales = np.concatenate(per_product), np.concatenate(per_scale)
    return all_true(np.abs(products - scales) <= BIAS_SCALE_RELATIVE_TOLERANCE * np.minimum(products, scales))


# the native types numpy casts to float64 safely (a set lookup: np.can_cast costs a process
# 0.7 ms the first time under emulation); any other type of scale goes to the per-operator checks
_TO_FLOAT64 = frozenset(np.dtype(c) for c in "?bhilqBHILQefd")


def _per_channel(biases: List[Tuple[float, Tuple[Any, ...], Tuple[Any, ...]]]) -> Tuple[np.ndarray, np.ndarray]:
    """(input scale x weight scale, bias scale) per channel of every operator, float64, for
    :func:`_products_hold` where every scale is a tuple: the channels laid out in Python (a
    single scale repeated over its operator's channels) and each column made one array in one
    call. ValueError where an operator's weight and bias scales differ in number and neither
    is one (what the numpy layout's lengths refuse)."""
    xs: List[float] = []
    weights: List[Any] = []
    scales: List[Any] = []
    for x, ws, bs in biases:
        nw, nb = len(ws), len(bs)
        channels = nw if nw > nb else nb
        if nw != channels:
            if nw != 1:
                raise ValueError(f"{nw} weight scales for {channels} channels")
            ws = ws * channels
        if nb != channels:
            if nb != 1:
                raise ValueError(f"{nb} bias scales for {channels} channels")
            bs = bs * channels
        xs += (x,) * channels
        weights += ws
        scales += bs
    return (np.array(xs, np.float64) * np.array(weights).astype(np.float64, casting="safe"),
            np.array(scales).astype(np.float64, casting="safe"))


def _bias_scales_hold(biases: List[Tuple[Any, ...]]) -> bool:
    """Whether every deferred operator's bias scales are its input scale x weight scales
    within TFLite's tolerance (float64, as :func:`_check_bias` compares them one by one)."""
    counts = [c for *_, c in biases]
    products = np.concatenate([np.broadcast_to(x_scale * ws, (c,)) for *_, x_scale, ws, _, c in biases])
    scales = np.concatenate([np.broadcast_to(bs, (c,)) for *_, bs, c in biases])
    assert len(products) == len(scales) == sum(counts), (len(products), len(scales))
    return bool((np.abs(products - scales) <= BIAS_SCALE_RELATIVE_TOLERANCE * np.minimum(products, scales)).all())


def _where(op: "OperatorSpec") -> str:
    return f"operator #{op.index} {op.opcode}"


def _tensor(model: "ModelSpec", index: int) -> Optional["TensorSpec"]:
    return model.tensors[index] if 0 <= index < len(model.tensors) else None


def _check_present(model: "ModelSpec", op: "OperatorSpec", indices: Sequence[int], role: str) -> None:
    for i in indices:
        t = _tensor(model, i)
        if t is not None and t.dtype in _ACTIVATION_TYPES and t.quantization is None:
            raise _error(f"{_where(op)}: {role} {t!r} is {t.dtype} without quantization parameters, expected a "
                         f"scale and a zero point")


def _check_live_tensors(model: "ModelSpec", op: "OperatorSpec", params: AbstractSet[int]) -> None:
    """Quantized inputs and outputs carry quantization, per tensor (the inputs ``params``,
    weights and bias, aside)."""
    roles = [(f"input {k}", i) for k, i in enumerate(op.inputs) if k not in params]
    roles += [(f"output {k}", i) for k, i in enumerate(op.outputs)]
    for role, i in roles:
        t = _tensor(model, i)
        if t is None or t.dtype not in _ACTIVATION_TYPES:
            continue
        if t.quantization is None:
            raise _error(f"{_where(op)}: {role} {t!r} is {t.dtype} without quantization parameters, expected a "
                         f"scale and a zero point")
        if len(t.quantization.scale) != 1:
            raise _error(f"{_where(op)}: {role} {t!r} has {len(t.quantization.scale)} scales (per channel on "
                         f"axis {t.quantization.quantized_dimension}), expected 1: only weights and bias are "
                         f"quantized per channel")


def _check_weighted(model: "ModelSpec", op: "OperatorSpec", arrays: Dict[int, np.ndarray],
                    biases: Optional[List[Tuple[Any, ...]]], axis: int, symmetric_per_tensor: bool) -> None:
    """Input 1 (weights, per channel on ``axis``; symmetric per tensor too where
    ``symmetric_per_tensor``) and input 2 (bias) against an int8 / uint8 input 0."""
    if len(op.inputs) < 2:
        return  # the lowering names a missing weights tensor
    x, w = _tensor(model, op.inputs[0]), _tensor(model, op.inputs[1])
    if x is None or w is None or x.dtype not in (np.dtype(np.int8), np.dtype(np.uint8)):
        return  # float (or hybrid: float input, int8 weights dequantized by the kernel)
    where = _where(op)
    if w.dtype != x.dtype:
        raise _error(f"{where}: weights {w!r} are {w.dtype}, expected {x.dtype} like the input {x!r}")
    wq = w.quantization
    if wq is None:
        raise _error(f"{where}: weights {w!r} are {w.dtype} without quantization parameters, expected a scale "
                     f"(or one per output channel) and a zero point")
    per_channel = len(wq.scale) > 1
    if per_channel and w.dtype != np.int8:
        raise _error(f"{where}: weights {w!r} are {w.dtype} with {len(wq.scale)} scales, expected int8: TFLite "
                     f"quantizes only int8 weights per channel")
    if per_channel and wq.quantized_dimension != axis:
        raise _error(f"{where}: weights {w!r}: quantization.quantized_dimension is {wq.quantized_dimension}, "
                     f"expected {axis}, the output-channel axis of {op.opcode} weights")
    symmetric = w.dtype == np.int8 and (per_channel or symmetric_per_tensor)
    k = _first(wq.zero_point, lambda a: a != 0, lambda z: z != 0, np.int64, arrays) if symmetric else None
    if k is not None:
        raise _error(f"{where}: weights {w!r}: quantization.zero_point[{k}] is {wq.zero_point[k]}, expected 0: "
                     f"int8 {'per-channel ' if per_channel else ''}{op.opcode} weights are symmetric")
    if len(op.inputs) > 2 and op.inputs[2] != -1:
        b = _tensor(model, op.inputs[2])
        if b is not None:
            _check_bias(where, x, w, b, arrays, biases)


def _check_bias(where: str, x: "TensorSpec", w: "TensorSpec", b: "TensorSpec",
                arrays: Dict[int, np.ndarray], biases: Optional[List[Tuple[Any, ...]]]) -> None:
    """The bias's dtype, zero points and scales against the input's and the weights'; with
    ``biases``, many per-channel scales are added there to be compared with every other
    operator's at once (:func:`check_quantization`) instead of here."""
    if b.dtype != np.int32:
        raise _error(f"{where}: bias {b!r} is {b.dtype}, expected int32 for a {x.dtype} input")
    bq = b.quantization
    if bq is None:
        return  # TFLite's int8 kernels never read it; the product is what they use
    k = _first(bq.zero_point, lambda a: a != 0, lambda z: z != 0, np.int64, arrays)
    if k is not None:
        raise _error(f"{where}: bias {b!r}: quantization.zero_point[{k}] is {bq.zero_point[k]}, expected 0")
    assert x.quantization is not None and w.quantization is not None, (x, w)  # _check_live_tensors, _check_weighted
    ws, bs = w.quantization.scale, bq.scale
    if len(ws) != len(bs) and 1 not in (len(ws), len(bs)):
        raise _error(f"{where}: bias {b!r} has {len(bs)} scales and weights {w!r} {len(ws)}, expected as many "
                     f"(one per output channel) or one")
    x_scale = float(x.quantization.scale[0])
    channels = max(len(ws), len(bs))
    if channels >= _VECTORIZED_FROM and biases is not None:
        biases.append((where, x, w, b, x_scale, _array(ws, np.float64, arrays), _array(bs, np.float64, arrays),
                       channels))
        return
    if channels >= _VECTORIZED_FROM:  # the same comparison in float64 over every channel, the first failure named
        products, scales = x_scale * _array(ws, np.float64, arrays), _array(bs, np.float64, arrays)
        ok = np.abs(products - scales) <= BIAS_SCALE_RELATIVE_TOLERANCE * np.minimum(products, scales)
        if bool(np.broadcast_to(ok, (channels,)).all()):
            return
        channels = int(np.argmax(~np.broadcast_to(ok, (channels,)))) + 1  # the loop below names it
    for c in range(channels):
        product = x_scale * float(ws[c if len(ws) > 1 else 0])
        bias_scale = float(bs[c if len(bs) > 1 else 0])
        if not abs(product - bias_scale) <= BIAS_SCALE_RELATIVE_TOLERANCE * min(product, bias_scale):
            raise _error(f"{where}: bias {b!r}: quantization.scale[{c}] is {bias_scale!r}, expected input scale "
                         f"{x_scale!r} x weight scale {float(ws[c if len(ws) > 1 else 0])!r} = {product!r} "
                         f"within a relative {BIAS_SCALE_RELATIVE_TOLERANCE:g} (TFLite's tolerance)")


def _check_softmax(model: "ModelSpec", op: "OperatorSpec") -> None:
    x = _tensor(model, op.inputs[0]) if op.inputs else None
    y = _tensor(model, op.outputs[0]) if op.outputs else None
    if x is None or y is None or y.quantization is None or x.dtype not in (np.dtype(np.int8), np.dtype(np.uint8)):
        return
    scale, zero_point = y.quantization.scale[0], y.quantization.zero_point[0]
    if y.dtype == np.int8 and (scale, zero_point) != SOFTMAX_INT8_OUTPUT:
        raise _error(f"{_where(op)}: output {y!r} has scale {scale!r} and zero point {zero_point}, expected "
                     f"{SOFTMAX_INT8_OUTPUT[0]!r} (1/256) and {SOFTMAX_INT8_OUTPUT[1]}, as TFLite's int8 softmax "
                     f"requires")
    if y.dtype == np.uint8 and zero_point != 0:
        raise _error(f"{_where(op)}: output {y!r} has zero point {zero_point}, expected 0, as TFLite's uint8 "
                     f"softmax requires")


# ---------------------------------------------------------------------------- the contracts
# One check of an operator's contract: called as check(model, op, arrays, biases) by
# check_quantization (``biases``: the per-channel bias scales it compares at the end).


@dataclass(frozen=True)
class LiveTensors:
    """Quantized inputs and outputs carry quantization, per tensor; the inputs ``params``
    (weights and bias) aside."""

    params: AbstractSet[int] = frozenset()

    def __call__(self, model: "ModelSpec", op: "OperatorSpec", arrays: Dict[int, np.ndarray],
                 biases: List[Tuple[Any, ...]]) -> None:
        _check_live_tensors(model, op, self.params)

    def holds(self, op: "OperatorSpec", found: _Gathered) -> bool:
        """Whether the check passes (:func:`_graph_holds`'s plain-Python pass)."""
        live = op.outputs + tuple(i for k, i in enumerate(op.inputs) if k not in self.params)
        for i in live:
            if 0 <= i < found.n:
                t = found.tensors[i]
                if t.dtype in _ACTIVATION_TYPES and (t.quantization is None or len(t.quantization.scale) != 1):
                    return False
        return True


@dataclass(frozen=True)
class WeightsAndBias:
    """Inputs 1 and 2 are weights (int8 per channel only on the output-channel ``axis``, the
    only axis TFLite quantizes them on) and an int32 bias; int8 weights are symmetric per
    channel, and per tensor too where ``symmetric_per_tensor``."""

    axis: int
    symmetric_per_tensor: bool

    def __call__(self, model: "ModelSpec", op: "OperatorSpec", arrays: Dict[int, np.ndarray],
                 biases: List[Tuple[Any, ...]]) -> None:
        _check_weighted(model, op, arrays, biases, self.axis, self.symmetric_per_tensor)

    def holds(self, op: "OperatorSpec", found: _Gathered) -> bool:
        """Whether the check passes so far; the zero points and bias scales it needs compared
        are added to ``found`` (:func:`_graph_holds`'s plain-Python pass)."""
        inputs, tensors, n, arrays = op.inputs, found.tensors, found.n, found.arrays
        if len(inputs) < 2 or not (0 <= inputs[0] < n and 0 <= inputs[1] < n):
            return True
        x, w = tensors[inputs[0]], tensors[inputs[1]]
        if x.dtype != _INT8 and x.dtype != _UINT8:
            return True
        wq = w.quantization
        if w.dtype != x.dtype or wq is None:
            return False
        per_channel = len(wq.scale) > 1
        if per_channel and (w.dtype != _INT8 or wq.quantized_dimension != self.axis):
            return False
        if w.dtype == _INT8 and (per_channel or self.symmetric_per_tensor):
            found.zero_points.append(arrays.get(id(wq.zero_point) * 2, wq.zero_point))
        if len(inputs) > 2 and 0 <= inputs[2] < n:
            b = tensors[inputs[2]]
            if b.dtype != _INT32:
                return False
            bq = b.quantization
            if bq is not None:
                ws, bs = wq.scale, bq.scale
                if len(ws) != len(bs) and len(ws) != 1 and len(bs) != 1:
                    return False
                found.zero_points.append(arrays.get(id(bq.zero_point) * 2, bq.zero_point))
                if x.quantization is None:
                    return False
                found.biases.append((float(x.quantization.scale[0]), arrays.get(id(ws) * 2 + 1, ws),
                                     arrays.get(id(bs) * 2 + 1, bs)))
        return True


@dataclass(frozen=True)
class SoftmaxOutput:
    """An int8 output has TFLite's softmax scale and zero point, a uint8 one zero point 0."""

    def __call__(self, model: "ModelSpec", op: "OperatorSpec", arrays: Dict[int, np.ndarray],
                 biases: List[Tuple[Any, ...]]) -> None:
        _check_softmax(model, op)

    def holds(self, op: "OperatorSpec", found: _Gathered) -> bool:
        """Whether the check passes (:func:`_graph_holds`'s plain-Python pass)."""
        inputs, n = op.inputs, found.n
        if not (inputs and op.outputs and 0 <= inputs[0] < n and 0 <= op.outputs[0] < n):
            return True
        x, y = found.tensors[inputs[0]], found.tensors[op.outputs[0]]
        if y.quantization is None or (x.dtype != _INT8 and x.dtype != _UINT8):
            return True
        scale, zero_point = y.quantization.scale[0], y.quantization.zero_point[0]
        return not ((y.dtype == _INT8 and (scale, zero_point) != SOFTMAX_INT8_OUTPUT)
                    or (y.dtype == _UINT8 and zero_point != 0))


@dataclass(frozen=True)
class CarriesQuantization:
    """The first ``role`` ("input" or "output") carries quantization where it is quantized."""

    role: str

    def __call__(self, model: "ModelSpec", op: "OperatorSpec", arrays: Dict[int, np.ndarray],
                 biases: List[Tuple[Any, ...]]) -> None:
        _check_present(model, op, (op.inputs if self.role == "input" else op.outputs)[:1], self.role)

    def holds(self, op: "OperatorSpec", found: _Gathered) -> bool:
        """Whether the check passes (:func:`_graph_holds`'s plain-Python pass)."""
        for i in (op.inputs if self.role == "input" else op.outputs)[:1]:
            if 0 <= i < found.n and found.tensors[i].dtype in _ACTIVATION_TYPES and found.tensors[i].quantization is None:
                return False
        return True


OperatorCheck = Union[LiveTensors, WeightsAndBias, SoftmaxOutput, CarriesQuantization]
_WEIGHTED = LiveTensors(frozenset({1, 2}))
_LIVE = LiveTensors()

# Each operator's quantization contract: opcode -> the checks, in order, that TFLite's kernel
# applies to its quantization parameters when it is prepared. An operator with a contract adds
# its row here, whether ACL or the fallback runs it; the file format checks it without the lowering.
QUANTIZATION_CONTRACTS: Dict[str, Tuple[OperatorCheck, ...]] = {
    "CONV_2D": (_WEIGHTED, WeightsAndBias(axis=0, symmetric_per_tensor=True)),  # OHWI
    "DEPTHWISE_CONV_2D": (_WEIGHTED, WeightsAndBias(axis=3, symmetric_per_tensor=True)),  # 1xHxWx(C*M)
    "FULLY_CONNECTED": (_WEIGHTED, WeightsAndBias(axis=0, symmetric_per_tensor=False)),  # (out, in)
    "ADD": (_LIVE,),
    "SOFTMAX": (_LIVE, SoftmaxOutput()),
    "CONCATENATION": (_LIVE,),
    "MEAN": (_LIVE,),
    "QUANTIZE": (CarriesQuantization("output"),),
    "DEQUANTIZE": (CarriesQuantization("input"),),
}

# the weights' output-channel axis of each weighted operator (from the contracts)
OUTPUT_CHANNEL_AXIS: Dict[str, int] = {opcode: check.axis for opcode, checks in QUANTIZATION_CONTRACTS.items()
                                       for check in checks if isinstance(check, WeightsAndBias)}


__all__ = ["check_tensor_quantization", "check_quantization", "STORAGE_RANGES", "OUTPUT_CHANNEL_AXIS",
           "BIAS_SCALE_RELATIVE_TOLERANCE", "QUANTIZATION_CONTRACTS", "LiveTensors", "WeightsAndBias",
           "SoftmaxOutput", "CarriesQuantization"]
