"""The options of TFLite's 3-D pooling operators, ``CUSTOM:AveragePool3D`` and
``CUSTOM:MaxPool3D`` (custom operators of TFLite's kernels/pooling3d.cc; the converter writes
them for tf.nn.avg_pool3d / max_pool3d): a flexbuffer map in ``custom_options`` (read with
the ``flatbuffers`` package's flexbuffers) holding ``ksize`` and ``strides`` ([1, d, h, w, 1]),
``padding`` ("SAME" / "VALID"), ``data_format`` ("NDHWC") and, in Arm NN's reading, an
``activation`` name (TFLite's kernel applies none).

:func:`pool3d_options` reads them (ModelFormatError naming the operator and the field where
TFLite's Init would stop), :func:`pool3d_geometry` gives the output shape and the padding per
axis as TFLite's ComputePadding3DValues does."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Dict, Tuple

from .tflite_reader import ModelFormatError, OperatorSpec

# opcode -> the pooling (the bridge's pool_type)
POOL_3D: Dict[str, str] = {"CUSTOM:AveragePool3D": "avg", "CUSTOM:MaxPool3D": "max"}
# Arm NN's names of the fused activations it reads from the map; TFLite's kernel applies none
NO_ACTIVATION = ("", "kTfLiteActNone")

Triple = Tuple[int, int, int]


@dataclass(frozen=True)
class Pool3DOptions:
    """One 3-D pooling operator's options: ``pool_type`` ("avg" / "max"), ``kernel`` and
    ``stride`` (d, h, w), ``padding`` ("SAME" / "VALID"), ``activation`` (the map's string,
    "" when absent)."""

    pool_type: str
    kernel: Triple
    stride: Triple
    padding: str
    activation: str = ""


def _where(op: OperatorSpec) -> str:
    return f"operator #{op.index} {op.opcode}"


def _window(op: OperatorSpec, m: dict, key: str) -> Triple:
    """``m[key]`` as (d, h, w): five integers, the first and last 1, the others >= 1."""
    v = m.get(key)
    if not isinstance(v, (list, tuple)) or len(v) != 5 or not all(isinstance(k, int) and not isinstance(k, bool)
                                                                 for k in v):
        raise ModelFormatError(f"{_where(op)}: custom option {key} is {v!r}, expected five integers [1, d, h, w, 1]")
    if v[0] != 1 or v[4] != 1 or min(v[1:4]) < 1:
        raise ModelFormatError(f"{_where(op)}: custom option {key} is {list(v)}, expected [1, d, h, w, 1] with "
                               f"d, h, w >= 1")
    return int(v[1]), int(v[2]), int(v[3])


def _string(op: OperatorSpec, m: dict, key: str, default: object = None) -> str:
    v = m.get(key, default)
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    if not isinstance(v, str):
        raise ModelFormatError(f"{_where(op)}: custom option {key} is {v!r}, expected a string")
    return v


def pool3d_options(op: OperatorSpec) -> Pool3DOptions:
    """The options of a ``CUSTOM:AveragePool3D`` / ``CUSTOM:MaxPool3D`` operator; ModelFormatError
    naming the operator and the field where the map is missing, unreadable or not what
    TFLite's kernel takes (data_format other than NDHWC, padding other than SAME / VALID)."""
    from flatbuffers import flexbuffers

    if op.opcode not in POOL_3D:
        raise ValueError(f"{op.opcode} is not a 3-D pooling operator ({sorted(POOL_3D)})")
    raw = bytes.fromhex(str(op.option("custom_options", "")))
    if not raw:
        raise ModelFormatError(f"{_where(op)}: no custom_options (a flexbuffer map with ksize, strides, padding)")
    try:
        m = flexbuffers.Loads(raw)
    except (ValueError, IndexError, KeyError, TypeError, OverflowError, struct.error, UnicodeDecodeError) as e:
        raise ModelFormatError(f"{_where(op)}: custom_options are no flexbuffer ({type(e).__name__}: {e})") from None
    if not isinstance(m, dict):
        raise ModelFormatError(f"{_where(op)}: custom_options hold {type(m).__name__}, expected a flexbuffer map")
    fmt = _string(op, m, "data_format", "NDHWC")
    if fmt != "NDHWC":
        raise ModelFormatError(f"{_where(op)}: custom option data_format is {fmt!r}, expected 'NDHWC'")
    padding = _string(op, m, "padding")
    if padding not in ("SAME", "VALID"):
        raise ModelFormatError(f"{_where(op)}: custom option padding is {padding!r}, expected 'SAME' or 'VALID'")
    return Pool3DOptions(POOL_3D[op.opcode], _window(op, m, "ksize"), _window(op, m, "strides"), padding,
                         _string(op, m, "activation", ""))


def pool3d_geometry(x: Tuple[int, ...], o: Pool3DOptions) -> Tuple[Tuple[int, ...], Tuple[Tuple[int, int], ...]]:
    """(output shape, ((front, back), (top, bottom), (left, right))) of pooling an NDHWC shape
    ``x``: SAME ceil(size / stride) with total padding max((out - 1) * stride + kernel - size,
    0), the smaller half before (TFLite's ComputePadding3DValues); VALID (size - kernel) //
    stride + 1 and none. An output extent below 1 is returned as computed (the caller refuses)."""
    out, pads = [], []
    for size, k, s in zip(x[1:4], o.kernel, o.stride):
        if o.padding == "SAME":
            n = -(-size // s)
            total = max((n - 1) * s + k - size, 0)
            pads.append((total // 2, total - total // 2))
        else:
            n = (size - k) // s + 1
            pads.append((0, 0))
        out.append(n)
    return (x[0], *out, x[4]), tuple(pads)


__all__ = ["POOL_3D", "NO_ACTIVATION", "Pool3DOptions", "pool3d_options", "pool3d_geometry"]
