"""Small multi-operator TFLite graphs written with the ``tflite`` package's builders (the
partition tests: an operator the lowering does not take first, last, in the middle...).

:func:`graph_model` takes tensors as ``(name, shape, dtype, value or None, quantization or
None)`` (a value makes a constant), operators as ``(opcode, input names, output names,
options)`` (options as in :mod:`tiny_tflite`: ``(table, {field: value})`` or None), and the
graph's input and output names."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence, Tuple

import numpy as np

from .tiny_tflite import _int_vector, _m, _offsets, _options, _quantization, finish_model

Tensor = Tuple[str, Sequence[int], str, Optional[np.ndarray], Optional[Tuple]]
Operator = Tuple[str, Sequence[str], Sequence[str], Optional[Tuple[str, Mapping[str, object]]]]


def graph_model(tensors: Sequence[Tensor], operators: Sequence[Operator], inputs: Sequence[str],
                outputs: Sequence[str]) -> bytes:
    import flatbuffers
    import tflite

    T, B, O, S = (_m(n) for n in ("Tensor", "Buffer", "Operator", "SubGraph"))
    b = flatbuffers.Builder(1024)
    index = {t[0]: k for k, t in enumerate(tensors)}
    datas = {t[0]: b.CreateByteVector(np.ascontiguousarray(t[3]).astype(np.dtype(t[2]).newbyteorder("<")).tobytes())
             for t in tensors if t[3] is not None}
    buffers, buffer_of = [], {}
    B.BufferStart(b)
    buffers.append(B.BufferEnd(b))  # buffer 0: empty
    for name, d in datas.items():
        B.BufferStart(b)
        B.BufferAddData(b, d)
        buffer_of[name] = len(buffers)
        buffers.append(B.BufferEnd(b))
    offsets = []
    for name, shape, dtype, _, q in tensors:
        n = b.CreateString(name)
        sh = _int_vector(b, T.TensorStartShapeVector, tuple(shape))
        quant = _quantization(b, q) if q is not None else None
        T.TensorStart(b)
        if quant is not None:
            T.TensorAddQuantization(b, quant)
        T.TensorAddShape(b, sh)
        T.TensorAddType(b, getattr(tflite.TensorType, dtype.upper()))
        T.TensorAddBuffer(b, buffer_of.get(name, 0))
        T.TensorAddName(b, n)
        offsets.append(T.TensorEnd(b))
    codes = sorted({op[0] for op in operators})
    ops = []
    for opcode, ins, outs, options in operators:
        custom = b.CreateByteVector(options[1]) if opcode.startswith("CUSTOM:") and options else None
        opts = None if opcode.startswith("CUSTOM:") else _options(b, options)
        op_in = _int_vector(b, O.OperatorStartInputsVector, [index[i] if i else -1 for i in ins])
        op_out = _int_vector(b, O.OperatorStartOutputsVector, [index[o] for o in outs])
        O.OperatorStart(b)
        O.OperatorAddOpcodeIndex(b, codes.index(opcode))
        O.OperatorAddInputs(b, op_in)
        O.OperatorAddOutputs(b, op_out)
        if custom is not None:
            O.OperatorAddCustomOptions(b, custom)
        if opts is not None:
            O.OperatorAddBuiltinOptionsType(b, opts[0])
            O.OperatorAddBuiltinOptions(b, opts[1])
        ops.append(O.OperatorEnd(b))
    tvec = _offsets(b, S.SubGraphStartTensorsVector, offsets)
    g_in = _int_vector(b, S.SubGraphStartInputsVector, [index[i] for i in inputs])
    g_out = _int_vector(b, S.SubGraphStartOutputsVector, [index[o] for o in outputs])
    opvec = _offsets(b, S.SubGraphStartOperatorsVector, ops)
    return finish_model(b, tvec, g_in, g_out, opvec, codes, buffers)


def chain(opcodes: Sequence[str], shape: Sequence[int] = (1, 4, 4, 3)) -> bytes:
    """float32 ``x`` -> opcodes[0] -> opcodes[1] -> ... -> ``y``: one-input unary operators in
    a row (e.g. RELU on ACL, ABS on the fallback)."""
    names = ["x"] + [f"t{k}" for k in range(len(opcodes) - 1)] + ["y"]
    tensors = [(n, shape, "float32", None, None) for n in names]
    ops = [(code, [names[k]], [names[k + 1]], None) for k, code in enumerate(opcodes)]
    return graph_model(tensors, ops, ["x"], ["y"])
