"""TFLite's integer LSTM (8x8_16: int8 input, output and weights, int16 cell state, peephole
and layer-norm weights, int32 biases) on numpy, bit for bit as TFLite's kernel computes it
(``lstm.cc``'s PopulateQuantizedLstmParams8x8_16 and precomputed zero-point biases,
``lstm_eval.cc``'s LstmStepInteger8x8_16, the portable tensor utilities): per gate two
int8 matrix products rescaled to the gate's intermediate scale (Q3.12 without layer
normalization) and saturated to int16, the peephole, the integer layer norm, gemmlowp's
fixed-point sigmoid and tanh to Q0.15; the cell update in Q0.15 products shifted to the
cell's 2^n scale; the hidden state requantized to intermediate 4, the projection, and the
clips truncated to the integer grid. The scales come from the operator's ``intermediates``
(0-3 with layer normalization, 4 always), which the reader keeps for these operators."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ..format.tflite_reader import ModelSpec, OperatorSpec, TensorSpec, UnsupportedModelError
from ..lowering.helpers import refuse
from ..lowering.lstm_operands import BIASES, CELL_STATE, INPUT, INPUT_WEIGHTS, LAYER_NORM, OUTPUT_STATE, \
    PEEPHOLES, PROJECTION_BIAS, PROJECTION_WEIGHTS, RECURRENT_WEIGHTS, LstmOperands, read_lstm
from .int8_reference import div_trunc, multiply_by_quantized_multiplier, quantize_multiplier, \
    rounding_divide_by_pot

_F32 = np.float32
_I16_MIN, _I16_MAX = -32768, 32767


def _multiplier(real: float) -> Tuple[int, int]:
    """TFLite's QuantizeMultiplier of ``real`` (a float32 value, widened as C++ does)."""
    q, shift = quantize_multiplier(float(real))
    return int(q[0]), int(shift[0])


def _rescale(x: np.ndarray, m: Tuple[int, int]) -> np.ndarray:
    return multiply_by_quantized_multiplier(x, np.int64(m[0]), np.int64(m[1]))


# ---------------------------------------------------------------------------- gemmlowp, int16
def _wrap(v: np.ndarray) -> np.ndarray:
    """int16 two's-complement wrap of int64 values (C++'s cast back to int16)."""
    return ((v + 32768) & 0xFFFF) - 32768


def _mul(a: np.ndarray, b) -> np.ndarray:
    """SaturatingRoundingDoublingHighMul on int16."""
    ab = a * b
    out = div_trunc(ab + np.where(ab >= 0, 1 << 14, 1 - (1 << 14)), 1 << 15)
    return np.where((a == b) & (a == _I16_MIN), _I16_MAX, _wrap(out))


def _shl_sat(x: np.ndarray, exponent: int) -> np.ndarray:
    """SaturatingRoundingMultiplyByPOT<exponent> on int16 (exponent >= 0: saturating shift)."""
    if exponent <= 0:
        return rounding_divide_by_pot(x, -exponent) if exponent else x
    threshold = (1 << (15 - exponent)) - 1
    return np.where(x > threshold, _I16_MAX, np.where(x < -threshold, _I16_MIN, _wrap(x << exponent)))


def _const(raw32: int) -> int:
    """GEMMLOWP_CHECKED_FIXEDPOINT_CONSTANT's int16 value of a 32-bit raw constant."""
    return int(rounding_divide_by_pot(np.int64(raw32), 16))


def _exp_quarter(a: np.ndarray) -> np.ndarray:
    """exp on [-1/4, 0), Q0.15."""
    c, third = _const(1895147668), _const(715827883)
    x = _wrap(a + (1 << 12))
    x2 = _mul(x, x)
    x3 = _mul(x2, x)
    x4 = _mul(x2, x2)
    t = rounding_divide_by_pot(_wrap(_mul(_wrap(rounding_divide_by_pot(x4, 2) + x3), third) + x2), 1)
    return np.clip(c + _mul(np.full_like(x, c), _wrap(x + t)), _I16_MIN, _I16_MAX)


_BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308), (2, 39332535), (3, 720401),
           (4, 242))


def _exp_negative(a: np.ndarray, bits: int) -> np.ndarray:
    """exp of a Q(bits) value < 0, Q0.15."""
    frac = 15 - bits
    quarter = 1 << (frac - 2)
    mod = _wrap((a & (quarter - 1)) - quarter)
    result = _exp_quarter(_shl_sat(mod, bits))
    remainder = _wrap(mod - a) & 0xFFFF
    for exponent, multiplier in _BARREL:
        if bits > exponent:
            result = np.where(remainder & (1 << (frac + exponent)), _mul(result, _const(multiplier)), result)
    if bits > 5:
        result = np.where(a < _const(-(1 << (36 - bits))), 0, result)
    return np.where(a == 0, _I16_MAX, result)


def _newton(a: np.ndarray) -> np.ndarray:
    """The Newton-Raphson reciprocal of (1 + a) / 2 for a in (0, 1), Q2.13."""
    s = a + _I16_MAX
    half = div_trunc(s + np.where(s >= 0, 1, -1), 2)
    x = _wrap(_const(1515870810) + _mul(half, _const(-1010580540)))
    for _ in range(3):
        x = _wrap(x + _shl_sat(_mul(x, _wrap((1 << 13) - _mul(half, x))), 2))
    return x


@functools.lru_cache(maxsize=None)
def sigmoid_table(bits: int) -> np.ndarray:
    """gemmlowp's logistic of every int16 value read as Q(bits), Q0.15 (int16), indexed by
    value + 32768."""
    a = np.arange(_I16_MIN, _I16_MAX + 1, dtype=np.int64)
    positive = a > 0
    absolute = np.where(positive, a, _wrap(-a))
    pos = _shl_sat(_newton(_exp_negative(_wrap(-absolute), bits)), 1)
    out = np.where(a == 0, _const(1 << 30), np.where(positive, pos, _wrap(_I16_MAX - pos)))
    return out.astype(np.int16)


@functools.lru_cache(maxsize=None)
def tanh_table(bits: int) -> np.ndarray:
    """gemmlowp's tanh of every int16 value read as Q(bits), Q0.15, as :func:`sigmoid_table`."""
    a = np.arange(_I16_MIN, _I16_MAX + 1, dtype=np.int64)
    negative = a < 0
    n = np.where(negative, a, _wrap(-a))
    t = _shl_sat(_wrap(_newton(_exp_negative(n, bits + 1)) - (1 << 13)), 2)
    return np.where(a == 0, 0, np.where(negative, _wrap(-t), t)).astype(np.int16)


def _lookup(table: np.ndarray, v: np.ndarray) -> np.ndarray:
    return table[v.astype(np.int64) + 32768].astype(np.int64)


# ---------------------------------------------------------------------------- TFLite's integer primitives
def _inv_sqrt(v: int) -> Tuple[int, int]:
    """GetInvSqrtQuantizedMultiplierExp(v, reverse_shift=-1): (multiplier, shift)."""
    if v <= 1:
        return 2 ** 31 - 1, 0
    shift = 11
    while v >= 1 << 29:
        v //= 4
        shift += 1
    pairs = ((32 - v.bit_length()) - 1) // 2 - 1
    shift -= pairs
    v <<= 2 * pairs

    def mul(a: int, b: int) -> int:  # SaturatingRoundingDoublingHighMul, int32
        if a == b == -2 ** 31:
            return 2 ** 31 - 1
        ab = a * b
        ab += (1 << 30) if ab >= 0 else 1 - (1 << 30)
        return -((-ab) >> 31) if ab < 0 else ab >> 31

    def rescale3(x: int, exponent: int) -> int:  # Rescale<3> from 3 + exponent: saturating shift left
        threshold = (1 << (31 - exponent)) - 1
        return 2 ** 31 - 1 if x > threshold else -2 ** 31 if x < -threshold else x << exponent

    half = int(rounding_divide_by_pot(np.int64(v >> 1), 1))
    x = 1 << 28
    for _ in range(5):
        x3 = rescale3(mul(mul(x, x), x), 6)
        x = rescale3(mul((1 << 28) + (1 << 27), x) - mul(half, x3), 3)
    x = mul(x, 1518500250)
    if shift < 0:
        x <<= -shift
        shift = 0
    return x, -shift


def _layer_norm(v: np.ndarray, weights: np.ndarray, bias: np.ndarray, scale: Tuple[int, int],
                guard: int) -> np.ndarray:
    """PortableApplyLayerNorm along the last axis: int16 in, int16 (Q3.12) out."""
    n = v.shape[-1]
    out = np.empty_like(v)
    for b in range(v.shape[0]):
        row = v[b]
        total, squares = int(row.sum()), int((row * row).sum())
        mean = _trunc_div(total * 1024, n)
        variance = _trunc_div(squares * (2 ** 20 // n) - mean * mean, 2 ** 20)
        a, s = _inv_sqrt(variance if variance >= 1 else guard)
        rescaled = multiply_by_quantized_multiplier(1024 * row - mean, np.int64(a), np.int64(s))
        val3 = _wrap32(rescaled * weights + bias)
        val4 = np.where(val3 > 0, div_trunc(val3 + 512, 1024), div_trunc(val3 - 512, 1024))
        out[b] = np.clip(multiply_by_quantized_multiplier(val4, np.int64(scale[0]), np.int64(scale[1] + 12)),
                         _I16_MIN, _I16_MAX)
    return out


def _trunc_div(a: int, b: int) -> int:
    """C++ integer division (toward zero)."""
    return -((-a) // b) if (a < 0) != (b < 0) else a // b


def _wrap32(v: np.ndarray) -> np.ndarray:
    return ((v + 2 ** 31) & 0xFFFFFFFF) - 2 ** 31


def _matmul(x: np.ndarray, w: np.ndarray, bias: np.ndarray, scale: Tuple[int, int], acc: np.ndarray,
            lo: int, hi: int, zero_point: int = 0) -> np.ndarray:
    """MatrixBatchVectorMultiplyAccumulate: ``acc`` + rescaled (``bias`` + x . w^T) + zero
    point, saturated to [lo, hi]."""
    return np.clip(_rescale(x @ w.T + bias, scale) + zero_point + acc, lo, hi)


def _cwise_mul(a: np.ndarray, b: np.ndarray, shift: int) -> np.ndarray:
    """CwiseMul of two int16 vectors, a rounding shift right, wrapped to int16."""
    return _wrap(rounding_divide_by_pot(a * b, shift))


# ---------------------------------------------------------------------------- the operator
@dataclass(frozen=True)
class IntegerLstm:
    """One integer LSTM operator, read and prepared as TFLite's Prepare does: the operands
    (int64 arrays; None where absent), the effective scales as (multiplier, shift), the
    precomputed biases, clips and guards."""

    lstm: LstmOperands
    weights: Tuple[Optional[np.ndarray], ...]
    input_scales: Tuple[Optional[Tuple[int, int]], ...]  # per gate i, f, c, o
    recurrent_scales: Tuple[Optional[Tuple[int, int]], ...]
    peephole_scales: Tuple[Optional[Tuple[int, int]], ...]  # gates i, f, o
    layer_norm_scales: Tuple[Optional[Tuple[int, int]], ...]
    variance_guards: Tuple[int, ...]
    input_biases: Tuple[Optional[np.ndarray], ...]
    recurrent_biases: Tuple[Optional[np.ndarray], ...]
    projection_bias: Optional[np.ndarray]
    hidden_scale: Tuple[int, int]
    projection_scale: Tuple[int, int]
    hidden_zero_point: int
    output_zero_point: int
    cell_shift: int  # the cell state's scale is 2^cell_shift
    cell_clip: int
    projection_clip: int
    output_state: np.ndarray
    cell_state: np.ndarray


def _scale(t: TensorSpec) -> float:
    return float(t.quantization.scale[0]) if t.quantization is not None and t.quantization.scale else 1.0


def _zero_point(t: TensorSpec) -> int:
    q = t.quantization
    return int(q.zero_point[0]) if q is not None and q.zero_point else 0


def read_integer_lstm(op: OperatorSpec, model: ModelSpec) -> IntegerLstm:
    """The operator's :class:`IntegerLstm`; refuses (UnsupportedModelError) what TFLite's
    8x8_16 kernel does not take: not 5 intermediates (12: the 8x8_8 kernel), a tensor
    without quantization, a cell state whose scale is not 2^n with n <= -9."""
    lstm = read_lstm(op, model, integer=True)
    t = model.tensors
    if len(op.intermediates) != 5:
        raise refuse(op, f"an integer LSTM with {len(op.intermediates)} intermediates (TFLite's 8x8_16 kernel "
                         f"reads 5: the four gates' matmul scales and the hidden state's)")
    for k, i in list(enumerate(op.inputs)) + [(f"intermediate {j}", m) for j, m in enumerate(op.intermediates)] \
            + [("output", op.outputs[0])]:
        if i >= 0 and k not in BIASES + (PROJECTION_BIAS,) and (t[i].quantization is None
                                                                 or t[i].quantization.per_channel):
            where = k if isinstance(k, str) else f"input {k}"
            raise refuse(op, f"{where} {t[i].name!r} without one scale (the integer LSTM's tensors are quantized "
                             f"per tensor)")
    tensor = {k: t[i] for k, i in enumerate(op.inputs) if i >= 0}
    mid = [t[i] for i in op.intermediates]
    cell_scale = _scale(tensor[CELL_STATE])
    cell_log2 = math.log2(cell_scale)
    if abs(cell_log2 - round(cell_log2)) >= 1e-3 or round(cell_log2) > -9:
        raise refuse(op, f"a cell state of scale {cell_scale} (TFLite's integer LSTM takes 2^n, n <= -9)")
    scales = {k: _scale(v) for k, v in tensor.items()}
    zero_points = {k: _zero_point(v) for k, v in tensor.items()}
    return prepare_integer_lstm(lstm, scales, zero_points, [_scale(m) for m in mid[:4]], _scale(mid[4]),
                                _zero_point(mid[4]), _scale(t[op.outputs[0]]))


def prepare_integer_lstm(lstm: LstmOperands, scales: Dict[int, float], zero_points: Dict[int, int],
                         gate_scales: Sequence[float], hidden_scale: float, hidden_zero_point: int,
                         output_scale: float) -> IntegerLstm:
    """TFLite's Prepare of an integer LSTM (PopulateQuantizedLstmParams8x8_16 and the
    precomputed zero-point biases) from its operands (``lstm``, integer values), each input's
    scale and zero point by TFLite input index, the intermediates' scales (``gate_scales``:
    0-3, read only with layer normalization; ``hidden_scale``, ``hidden_zero_point``: 4)
    and the output's scale."""
    w = tuple(None if v is None else np.asarray(v, np.int64) for v in lstm.operands)
    cell_shift = round(math.log2(scales[CELL_STATE]))
    x_scale, h_scale = _F32(scales[INPUT]), _F32(scales[OUTPUT_STATE])
    gates = [_F32(gate_scales[g]) if lstm.layer_norm else _F32(2.0 ** -12) for g in range(4)]
    hidden = _F32(hidden_scale)

    def present(k: int) -> bool:
        return w[k] is not None

    input_scales = tuple(_multiplier(_F32(scales[k]) * x_scale / gates[g]) if present(k) else None
                         for g, k in enumerate(INPUT_WEIGHTS))
    recurrent_scales = tuple(_multiplier(_F32(scales[k]) * h_scale / gates[g]) if present(k) else None
                             for g, k in enumerate(RECURRENT_WEIGHTS))
    peephole_scales = tuple(_multiplier(_F32(2.0 ** cell_shift * _F32(scales[k]) / float(gates[g])))
                            if present(k) else None for g, k in zip((0, 1, 3), PEEPHOLES))
    layer_norm_scales = tuple(_multiplier(_F32(scales[k])) if present(k) else None for k in LAYER_NORM)
    guards = tuple(max(1, int(_F32(10000) * _F32(scales[k]))) if present(k) else 1 for k in LAYER_NORM)
    x_zp, h_zp = zero_points.get(INPUT, 0), zero_points.get(OUTPUT_STATE, 0)
    input_biases = tuple(None if not present(k) else -x_zp * w[k].sum(axis=1)
                         + (0 if lstm.layer_norm else w[BIASES[g]]) for g, k in enumerate(INPUT_WEIGHTS))
    recurrent_biases = tuple(None if not present(k) else -h_zp * w[k].sum(axis=1) for k in RECURRENT_WEIGHTS)
    projection_bias = None
    if present(PROJECTION_WEIGHTS):
        projection_bias = hidden_zero_point * w[PROJECTION_WEIGHTS].sum(axis=1) \
            + (w[PROJECTION_BIAS] if present(PROJECTION_BIAS) else 0)
    y_scale = _F32(output_scale)
    cell_clip = int(np.clip(_F32(lstm.cell_clip) / _F32(scales[CELL_STATE]), -32768, 32767)) \
        if lstm.cell_clip > 0 else 0
    proj_clip = int(np.clip(_F32(lstm.proj_clip) / y_scale, -128, 127)) if lstm.proj_clip > 0 else 0
    proj_w_scale = _F32(scales[PROJECTION_WEIGHTS]) if present(PROJECTION_WEIGHTS) else _F32(1)
    return IntegerLstm(lstm, w, input_scales, recurrent_scales, peephole_scales, layer_norm_scales, guards,
                       input_biases, recurrent_biases, projection_bias,
                       _multiplier(_F32(2.0 ** -15 / float(hidden) * 2.0 ** -15)),
                       _multiplier(proj_w_scale * hidden / h_scale), int(hidden_zero_point), h_zp, cell_shift,
                       cell_clip, proj_clip, w[OUTPUT_STATE], w[CELL_STATE])


def integer_lstm_step(x: np.ndarray, h: np.ndarray, c: np.ndarray, p: IntegerLstm) -> Tuple[np.ndarray, np.ndarray]:
    """(output state int8, cell state int16) after one step (TFLite's LstmStepInteger8x8_16)
    on x (batch, n_input) int8 from h (batch, n_output) and c (batch, n_cell), as int64."""
    w = p.weights
    n_output = p.lstm.n_output

    def gate(g: int, peephole: Optional[int], table: np.ndarray) -> np.ndarray:
        v = _matmul(x, w[INPUT_WEIGHTS[g]], p.input_biases[g], p.input_scales[g], 0, _I16_MIN, _I16_MAX)
        v = _matmul(h, w[RECURRENT_WEIGHTS[g]], p.recurrent_biases[g], p.recurrent_scales[g], v, _I16_MIN, _I16_MAX)
        if peephole is not None and w[PEEPHOLES[peephole]] is not None:
            # TFLite's VectorBatchVectorCwiseProductAccumulate with n_output as the vector size
            # (lstm_eval.cc's CalculateLstmGateInteger8x8_16): over the batch's cells read flat,
            # the first batch x n_output get the peephole of weight index (flat index mod n_output)
            flat, cell = v.reshape(-1).copy(), c.reshape(-1)
            m = min(flat.size, c.shape[0] * n_output)
            prod = _rescale(np.resize(w[PEEPHOLES[peephole]][:n_output], m) * cell[:m], p.peephole_scales[peephole])
            flat[:m] = np.clip(prod + flat[:m], _I16_MIN, _I16_MAX)
            v = flat.reshape(v.shape)
        if w[LAYER_NORM[g]] is not None:
            v = _layer_norm(v, w[LAYER_NORM[g]], w[BIASES[g]], p.layer_norm_scales[g], p.variance_guards[g])
        return _lookup(table, v)

    sigmoid, tanh = sigmoid_table(3), tanh_table(3)
    forget = gate(1, 1, sigmoid)
    update = gate(2, None, tanh)
    inp = None if w[INPUT_WEIGHTS[0]] is None else gate(0, 0, sigmoid)
    c = _cwise_mul(forget, c, 15)
    scratch = _cwise_mul(_I16_MAX - forget if inp is None else inp, update, 30 + p.cell_shift)
    c = np.clip(c + scratch, _I16_MIN, _I16_MAX)
    if p.cell_clip > 0:
        c = np.clip(c, -p.cell_clip, p.cell_clip)
    out_gate = gate(3, 2, sigmoid)
    cell_tanh = _lookup(tanh_table(15 + p.cell_shift), c)
    hidden = _rescale(out_gate * cell_tanh, p.hidden_scale)
    if w[PROJECTION_WEIGHTS] is None:
        return np.clip(hidden + p.hidden_zero_point, -128, 127), c
    # before the projection TFLite stores the hidden state less its zero point (CwiseMul of
    # -hidden_zp), which the projection's precomputed bias adds back (measured: bit-exact)
    hidden = np.clip(hidden - p.hidden_zero_point, -128, 127)
    h = _matmul(hidden, w[PROJECTION_WEIGHTS], p.projection_bias, p.projection_scale, 0, -128, 127,
                p.output_zero_point)
    if p.projection_clip > 0:
        h = np.clip(h, -p.projection_clip, p.projection_clip)
    return h, c


def integer_lstm_sequence(x: np.ndarray, p: IntegerLstm) -> np.ndarray:
    """The operator's int8 output on int8 x (LSTM: (batch, n_input); the sequence operator:
    time-major or batch-major as ``p.lstm`` says), from the state operands."""
    lstm = p.lstm
    x = np.asarray(x, np.int64)
    h, c = p.output_state.reshape(lstm.batch, lstm.n_output), p.cell_state.reshape(lstm.batch, lstm.n_cell)
    if not lstm.sequence:
        return integer_lstm_step(x, h, c, p)[0].astype(np.int8)
    if lstm.time_major:
        outs = []
        for xt in x:
            h, c = integer_lstm_step(xt, h, c, p)
            outs.append(h)
        return np.stack(outs).astype(np.int8)
    # batch-major: TFLite runs each batch row on its own (batch 1), which its peephole's
    # n_output-long vectors make differ from running the rows together
    y = np.empty(x.shape[:2] + (lstm.n_output,), np.int8)
    for b in range(lstm.batch):
        hb, cb = h[b:b + 1], c[b:b + 1]
        for t in range(lstm.time):
            hb, cb = integer_lstm_step(x[b, t:t + 1], hb, cb, p)
            y[b, t] = hb[0]
    return y


def check_integer_lstm(op: OperatorSpec, model: ModelSpec) -> Optional[str]:
    """Why the fallback cannot run this integer LSTM (None: it can)."""
    try:
        read_integer_lstm(op, model)
    except UnsupportedModelError as e:
        return str(e)
    return None


__all__ = ["IntegerLstm", "read_integer_lstm", "prepare_integer_lstm", "integer_lstm_step", "integer_lstm_sequence", "check_integer_lstm",
           "sigmoid_table", "tanh_table"]
