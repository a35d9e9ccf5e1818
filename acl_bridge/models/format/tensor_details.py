"""What a TFLite file says about each tensor and signature, as it stands in the file: the
facts TFLite's interpreter reports (``get_tensor_details()``, ``get_signature_list()``) and
:class:`~.tflite_reader.ModelSpec` does not keep (the shape signature, the quantization
vectors as stored, the sparsity parameters of sparse constants, the SignatureDefs).

Read with the same bounds-checked access as :func:`.tflite_reader.read_model` (the first
subgraph, as the runner runs it); a malformed file is :class:`~.tflite_reader.ModelFormatError`.
No constant data is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

from .sparsity import SparsityParameters
from .tflite_reader import TENSOR_TYPES, ModelFormatError, UnsupportedModelError, _Reader, _sparsity


@dataclass(frozen=True)
class TensorDetails:
    """One tensor of the first subgraph as the file states it. ``shape_signature`` has -1
    where a size is left open (the file's ``shape`` otherwise); ``scales`` /
    ``zero_points`` are the quantization vectors (empty: not quantized)."""

    index: int
    name: str
    shape: Tuple[int, ...]
    shape_signature: Tuple[int, ...]
    dtype: np.dtype
    scales: Tuple[float, ...] = ()
    zero_points: Tuple[int, ...] = ()
    quantized_dimension: int = 0
    sparsity: Optional[SparsityParameters] = None


@dataclass(frozen=True)
class SignatureDetails:
    """One SignatureDef: its key, (name, tensor index) of its inputs and of its outputs."""

    key: str
    inputs: Tuple[Tuple[str, int], ...]
    outputs: Tuple[Tuple[str, int], ...]
    subgraph_index: int


@dataclass(frozen=True)
class ModelDetails:
    tensors: Tuple[TensorDetails, ...]
    inputs: Tuple[int, ...]
    outputs: Tuple[int, ...]
    signatures: Tuple[SignatureDetails, ...]


def _tensor(r: _Reader, sub: Any, i: int) -> TensorDetails:
    t = sub.Tensors(i)
    name = r.string(t.Name(), f"tensor #{i} name")
    what = f"tensor #{i} {name!r}"
    shape = r.ints(t, "Shape", f"{what} shape")
    signature = r.ints(t, "ShapeSignature", f"{what} shape_signature") or shape
    dtype = TENSOR_TYPES.get(t.Type())
    if dtype is None:
        raise UnsupportedModelError(f"{what} has TFLite type code {t.Type()}, expected one of "
                                    f"{ {k: str(v) for k, v in TENSOR_TYPES.items()} }")
    q = t.Quantization()
    scales: Tuple[float, ...] = ()
    zero_points: Tuple[int, ...] = ()
    axis = 0
    if q is not None and r.count(q.ScaleLength(), f"{what} quantization.scale"):
        scales = tuple(float(v) for v in q.ScaleAsNumpy())
        zero_points = r.ints(q, "ZeroPoint", f"{what} quantization.zero_point", 8)
        axis = int(q.QuantizedDimension())
    table = t.Sparsity()
    return TensorDetails(i, name, shape, signature, dtype, scales, zero_points, axis,
                         None if table is None else _sparsity(r, table, what))


def _signature(r: _Reader, model: Any, k: int, num_tensors: int) -> SignatureDetails:
    s = model.SignatureDefs(k)
    key = r.string(s.SignatureKey(), f"signature_defs[{k}].signature_key")

    def maps(kind: str) -> Tuple[Tuple[str, int], ...]:
        out = []
        for j in range(r.count(getattr(s, kind + "Length")(), f"signature {key!r} {kind.lower()}")):
            m = getattr(s, kind)(j)
            out.append((r.string(m.Name(), f"signature {key!r} {kind.lower()}[{j}] name"),
                        r.index(m.TensorIndex(), num_tensors, f"signature {key!r} {kind.lower()}[{j}] tensor_index")))
        return tuple(out)

    return SignatureDetails(key, maps("Inputs"), maps("Outputs"), int(s.SubgraphIndex()))


def read_details(data: bytes) -> ModelDetails:
    """The tensors, graph inputs and outputs and SignatureDefs of the file's first subgraph."""
    r = _Reader(bytes(data))
    try:
        model = r.tflite.Model.GetRootAsModel(r.buf, 0)
        if r.count(model.SubgraphsLength(), "subgraphs") == 0:
            raise ModelFormatError("the model has no subgraph")
        sub = model.Subgraphs(0)
        n = r.count(sub.TensorsLength(), "subgraph 0 tensors")
        tensors = tuple(_tensor(r, sub, i) for i in range(n))
        inputs = tuple(r.index(i, n, "graph input") for i in r.ints(sub, "Inputs", "subgraph 0 inputs"))
        outputs = tuple(r.index(i, n, "graph output") for i in r.ints(sub, "Outputs", "subgraph 0 outputs"))
        signatures = tuple(_signature(r, model, k, n)
                           for k in range(r.count(model.SignatureDefsLength(), "signature_defs")))
    except (ModelFormatError, UnsupportedModelError):
        raise
    except Exception as e:  # whatever the flatbuffer runtime raises on a damaged file
        raise ModelFormatError(f"reading the tensors' details: {type(e).__name__}: {e}") from None
    return ModelDetails(tensors, inputs, outputs, tuple(s for s in signatures if s.subgraph_index == 0))


__all__ = ["TensorDetails", "SignatureDetails", "ModelDetails", "read_details"]
