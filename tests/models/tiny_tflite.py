"""One-operator TFLite models written with the ``tflite`` package's generated builders, so
TFLite's interpreter can be the oracle of each lowering rule (``test_one_operator.py``) and
of RESIZE_BILINEAR for every option combination (the published models use only
half_pixel_centers).

:func:`one_operator_model` takes the operator's inputs in order: :data:`X` for the graph
input, a numpy array for a constant (its dtype becomes the tensor type), None for an absent
optional input; and its options as (table, {field: value}) with the builder's names
(``("Conv2DOptions", {"Padding": "SAME", "StrideH": 2})``): an enum by its member name, a
vector as a tuple.

Quantized models (optional, keyword only): ``io_dtype`` is the type of the graph input and
output (``"int8"``); ``quantization`` maps a tensor's name (``"input"``, ``"output"``,
``"const0"``, ...) to its quantization parameters ``(scale, zero_point)`` or ``(scale,
zero_point, quantized_dimension)``, each a number or a sequence (per channel); the values
are written as given, so malformed ones can be built too."""

from __future__ import annotations

import importlib
from typing import Mapping, Optional, Sequence, Tuple, Union

import numpy as np

X = "x"  # the graph input, in an operator's input list
Input = Union[str, np.ndarray, None]
Options = Tuple[str, Mapping[str, object]]

# option fields whose values are enums of the schema: field -> enum class of the tflite package
_ENUMS = {"Padding": "Padding", "FusedActivationFunction": "ActivationFunctionType", "OutputType": "TensorType"}


def _m(name):
    return importlib.import_module(f"tflite.{name}")


def _int_vector(b, start, values):
    start(b, len(values))
    for v in reversed(values):
        b.PrependInt32(int(v))
    return b.EndVector()


def finish_model(b, tensors, inputs, outputs, operators, opcodes, buffers, version: int = 1) -> bytes:
    """The model's bytes: one subgraph of the built ``tensors``, ``inputs``, ``outputs`` and
    ``operators`` vectors, an operator code of ``version`` per name of ``opcodes`` ("CUSTOM:name"
    for a custom operator) and the ``buffers`` (every builder's common end)."""
    S = _m("SubGraph")
    S.SubGraphStart(b)
    S.SubGraphAddTensors(b, tensors)
    S.SubGraphAddInputs(b, inputs)
    S.SubGraphAddOutputs(b, outputs)
    S.SubGraphAddOperators(b, operators)
    return finish_graphs(b, [S.SubGraphEnd(b)], opcodes, buffers, version)


def finish_graphs(b, graphs, opcodes, buffers, version: int = 1) -> bytes:
    """The model's bytes from built subgraphs (the first is the main one): :func:`finish_model`
    for several subgraphs."""
    import tflite

    OC, M = (_m(n) for n in ("OperatorCode", "Model"))
    codes = []
    for opcode in opcodes:
        custom = b.CreateString(opcode[len("CUSTOM:"):]) if opcode.startswith("CUSTOM:") else None
        code = tflite.BuiltinOperator.CUSTOM if custom is not None else getattr(tflite.BuiltinOperator, opcode)
        OC.OperatorCodeStart(b)
        if custom is not None:
            OC.OperatorCodeAddCustomCode(b, custom)
        OC.OperatorCodeAddDeprecatedBuiltinCode(b, min(code, 127))  # 127: PLACEHOLDER_FOR_GREATER_OP_CODES
        OC.OperatorCodeAddBuiltinCode(b, code)
        OC.OperatorCodeAddVersion(b, version)
        codes.append(OC.OperatorCodeEnd(b))
    cvec = _offsets(b, M.ModelStartOperatorCodesVector, codes)
    graph_vector = _offsets(b, M.ModelStartSubgraphsVector, list(graphs))
    bufs = _offsets(b, M.ModelStartBuffersVector, buffers)
    M.ModelStart(b)
    M.ModelAddVersion(b, 3)
    M.ModelAddOperatorCodes(b, cvec)
    M.ModelAddSubgraphs(b, graph_vector)
    M.ModelAddBuffers(b, bufs)
    b.Finish(M.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def _offsets(b, start, offsets):
    start(b, len(offsets))
    for o in reversed(offsets):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def _options(b, options: Optional[Options]):
    """(BuiltinOptions type, offset of the table) or None."""
    import tflite

    if options is None:
        return None
    table, fields = options
    module = _m(table)
    vectors = {k: _int_vector(b, getattr(module, f"{table}Start{k}Vector"), v)
               for k, v in fields.items() if isinstance(v, (tuple, list))}
    getattr(module, f"{table}Start")(b)
    for k, v in fields.items():
        if k in vectors:
            v = vectors[k]
        elif isinstance(v, str):
            v = getattr(getattr(tflite, _ENUMS[k]), v)
        getattr(module, f"{table}Add{k}")(b, v)
    return getattr(tflite.BuiltinOptions, table), getattr(module, f"{table}End")(b)


def _quantization(b, q):
    """Offset of a QuantizationParameters table for ``q`` = (scale, zero_point[, axis])."""
    Q = _m("QuantizationParameters")
    scale, zero_point = (np.atleast_1d(np.asarray(v)) for v in q[:2])
    Q.QuantizationParametersStartScaleVector(b, len(scale))
    for v in reversed(scale):
        b.PrependFloat32(float(v))
    scale_vector = b.EndVector()
    Q.QuantizationParametersStartZeroPointVector(b, len(zero_point))
    for v in reversed(zero_point):
        b.PrependInt64(int(v))
    zero_point_vector = b.EndVector()
    Q.QuantizationParametersStart(b)
    Q.QuantizationParametersAddScale(b, scale_vector)
    Q.QuantizationParametersAddZeroPoint(b, zero_point_vector)
    Q.QuantizationParametersAddQuantizedDimension(b, int(q[2]) if len(q) > 2 else 0)
    return Q.QuantizationParametersEnd(b)


def one_operator_model(opcode: str, x_shape: Sequence[int], y_shape: Sequence[int], inputs: Sequence[Input] = (X,),
                       options: Optional[Options] = None, version: int = 1, *, io_dtype: str = "float32",
                       quantization: Optional[Mapping[str, Tuple]] = None,
                       output_dtype: Optional[str] = None) -> bytes:
    """Model bytes: ``io_dtype`` (float32) graph input ``input`` of ``x_shape`` -> ``opcode`` on
    ``inputs`` -> ``io_dtype`` graph output ``output`` of ``y_shape``; tensors named in
    ``quantization`` carry those parameters; ``output_dtype`` (default ``io_dtype``) the graph
    output's own type (QUANTIZE: float32 in, int8 out; DEQUANTIZE: the other way)."""
    import flatbuffers
    import tflite

    T, B, OC, O, S, M = (_m(n) for n in ("Tensor", "Buffer", "OperatorCode", "Operator", "SubGraph", "Model"))
    b = flatbuffers.Builder(1024)
    consts = [np.ascontiguousarray(v) for v in inputs if isinstance(v, np.ndarray)]
    data = [b.CreateByteVector(c.astype(c.dtype.newbyteorder("<")).tobytes()) for c in consts]
    buffers = []
    for d in [None] + data:  # buffer 0: empty (TFLite's convention); then one per constant
        B.BufferStart(b)
        if d is not None:
            B.BufferAddData(b, d)
        buffers.append(B.BufferEnd(b))
    specs = [("input", tuple(x_shape), io_dtype, 0)]
    specs += [(f"const{k}", c.shape, c.dtype.name, k + 1) for k, c in enumerate(consts)]
    specs.append(("output", tuple(y_shape), output_dtype or io_dtype, 0))
    tensors = []
    for name, shape, dtype, buf in specs:
        n = b.CreateString(name)
        sh = _int_vector(b, T.TensorStartShapeVector, shape)
        quant = _quantization(b, quantization[name]) if quantization and name in quantization else None
        T.TensorStart(b)
        if quant is not None:
            T.TensorAddQuantization(b, quant)
        T.TensorAddShape(b, sh)
        T.TensorAddType(b, getattr(tflite.TensorType, dtype.upper()))
        T.TensorAddBuffer(b, buf)
        T.TensorAddName(b, n)
        tensors.append(T.TensorEnd(b))
    ids, k = [], 0
    for v in inputs:
        if isinstance(v, np.ndarray):
            k += 1
            ids.append(k)
        else:
            ids.append(0 if v == X else -1)
    return finish_one_operator(b, tensors, ids, len(specs) - 1, options, opcode, buffers, version)


def finish_one_operator(b, tensors, ids, output: int, options: Optional[Options], opcode: str, buffers,
                        version: int = 1, intermediates: Sequence[int] = ()) -> bytes:
    """The model's bytes: the built ``tensors``, one ``opcode`` operator on tensor ``ids`` (-1:
    absent) writing tensor ``output`` with ``options`` (and the operator's ``intermediates``
    vector where given); tensor 0 the graph input, ``output`` the graph output."""
    O, S = _m("Operator"), _m("SubGraph")
    opts = _options(b, options)
    op_in = _int_vector(b, O.OperatorStartInputsVector, ids)
    op_out = _int_vector(b, O.OperatorStartOutputsVector, (output,))
    op_mid = _int_vector(b, O.OperatorStartIntermediatesVector, intermediates) if intermediates else None
    O.OperatorStart(b)
    O.OperatorAddOpcodeIndex(b, 0)
    O.OperatorAddInputs(b, op_in)
    O.OperatorAddOutputs(b, op_out)
    if op_mid is not None:
        O.OperatorAddIntermediates(b, op_mid)
    if opts is not None:
        O.OperatorAddBuiltinOptionsType(b, opts[0])
        O.OperatorAddBuiltinOptions(b, opts[1])
    op = O.OperatorEnd(b)
    tvec = _offsets(b, S.SubGraphStartTensorsVector, tensors)
    g_in = _int_vector(b, S.SubGraphStartInputsVector, (0,))
    g_out = _int_vector(b, S.SubGraphStartOutputsVector, (output,))
    ops = _offsets(b, S.SubGraphStartOperatorsVector, [op])
    return finish_model(b, tvec, g_in, g_out, ops, [opcode], buffers, version=version)


def resize_bilinear_model(in_shape, out_hw, align_corners=False, half_pixel_centers=False) -> bytes:
    """Model bytes: input float32 ``in_shape`` (NHWC) -> RESIZE_BILINEAR to ``out_hw``."""
    return one_operator_model("RESIZE_BILINEAR", in_shape, (in_shape[0], *out_hw, in_shape[3]),
                              (X, np.asarray(out_hw, np.int32)),
                              ("ResizeBilinearOptions", {"AlignCorners": bool(align_corners),
                                                         "HalfPixelCenters": bool(half_pixel_centers)}),
                              version=3 if half_pixel_centers else 1)
