"""A one-operator TFLite model written with the ``tflite`` package's generated builders, so
TFLite's interpreter can be the oracle of RESIZE_BILINEAR for every option combination
(the published models use only half_pixel_centers)."""

from __future__ import annotations

import importlib

import numpy as np


def _m(name):
    return importlib.import_module(f"tflite.{name}")


def _int_vector(b, start, values):
    start(b, len(values))
    for v in reversed(values):
        b.PrependInt32(int(v))
    return b.EndVector()


def resize_bilinear_model(in_shape, out_hw, align_corners=False, half_pixel_centers=False) -> bytes:
    """Model bytes: input float32 ``in_shape`` (NHWC) -> RESIZE_BILINEAR to ``out_hw``."""
    import flatbuffers
    import tflite

    T, B, OC, O, S, M, R = (_m(n) for n in ("Tensor", "Buffer", "OperatorCode", "Operator", "SubGraph", "Model",
                                            "ResizeBilinearOptions"))
    b = flatbuffers.Builder(1024)
    size = np.asarray(out_hw, np.int32).tobytes()
    size_data = b.CreateByteVector(size)
    buffers = []
    for data in (None, size_data):  # buffer 0: empty (TFLite's convention); 1: the size constant
        B.BufferStart(b)
        if data is not None:
            B.BufferAddData(b, data)
        buffers.append(B.BufferEnd(b))
    out_shape = (in_shape[0], *out_hw, in_shape[3])
    tensors = []
    for name, shape, ttype, buf in (("input", in_shape, tflite.TensorType.FLOAT32, 0),
                                    ("size", (2,), tflite.TensorType.INT32, 1),
                                    ("output", out_shape, tflite.TensorType.FLOAT32, 0)):
        n = b.CreateString(name)
        sh = _int_vector(b, T.TensorStartShapeVector, shape)
        T.TensorStart(b)
        T.TensorAddShape(b, sh)
        T.TensorAddType(b, ttype)
        T.TensorAddBuffer(b, buf)
        T.TensorAddName(b, n)
        tensors.append(T.TensorEnd(b))
    R.ResizeBilinearOptionsStart(b)
    R.ResizeBilinearOptionsAddAlignCorners(b, bool(align_corners))
    R.ResizeBilinearOptionsAddHalfPixelCenters(b, bool(half_pixel_centers))
    options = R.ResizeBilinearOptionsEnd(b)
    op_in = _int_vector(b, O.OperatorStartInputsVector, (0, 1))
    op_out = _int_vector(b, O.OperatorStartOutputsVector, (2,))
    O.OperatorStart(b)
    O.OperatorAddOpcodeIndex(b, 0)
    O.OperatorAddInputs(b, op_in)
    O.OperatorAddOutputs(b, op_out)
    O.OperatorAddBuiltinOptionsType(b, tflite.BuiltinOptions.ResizeBilinearOptions)
    O.OperatorAddBuiltinOptions(b, options)
    op = O.OperatorEnd(b)
    S.SubGraphStartTensorsVector(b, len(tensors))
    for t in reversed(tensors):
        b.PrependUOffsetTRelative(t)
    tvec = b.EndVector()
    g_in = _int_vector(b, S.SubGraphStartInputsVector, (0,))
    g_out = _int_vector(b, S.SubGraphStartOutputsVector, (2,))
    S.SubGraphStartOperatorsVector(b, 1)
    b.PrependUOffsetTRelative(op)
    ops = b.EndVector()
    S.SubGraphStart(b)
    S.SubGraphAddTensors(b, tvec)
    S.SubGraphAddInputs(b, g_in)
    S.SubGraphAddOutputs(b, g_out)
    S.SubGraphAddOperators(b, ops)
    graph = S.SubGraphEnd(b)
    OC.OperatorCodeStart(b)
    OC.OperatorCodeAddDeprecatedBuiltinCode(b, tflite.BuiltinOperator.RESIZE_BILINEAR)
    OC.OperatorCodeAddBuiltinCode(b, tflite.BuiltinOperator.RESIZE_BILINEAR)
    OC.OperatorCodeAddVersion(b, 3 if half_pixel_centers else 1)
    code = OC.OperatorCodeEnd(b)
    M.ModelStartOperatorCodesVector(b, 1)
    b.PrependUOffsetTRelative(code)
    codes = b.EndVector()
    M.ModelStartSubgraphsVector(b, 1)
    b.PrependUOffsetTRelative(graph)
    graphs = b.EndVector()
    M.ModelStartBuffersVector(b, len(buffers))
    for x in reversed(buffers):
        b.PrependUOffsetTRelative(x)
    bufs = b.EndVector()
    M.ModelStart(b)
    M.ModelAddVersion(b, 3)
    M.ModelAddOperatorCodes(b, codes)
    M.ModelAddSubgraphs(b, graphs)
    M.ModelAddBuffers(b, bufs)
    b.Finish(M.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())
