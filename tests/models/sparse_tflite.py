"""TFLite models with sparse constants, written with the ``tflite`` package's builders (the
helpers of :mod:`.tiny_tflite` for vectors, options and quantization), so the reader's
densification can be checked against TFLite's own interpreter.

A sparse constant is given as (dense shape, stored values, traversal order, block map,
levels): each level ``("DENSE", size)`` or ``("CSR", segments, indices)``, in traversal
order, as TFLite's schema stores them; ``index_type`` is the union member that holds the CSR
vectors ("int32", "uint16" or "uint8"). Values and vectors are written as given, so
malformed ones can be built too.

:func:`graph_model` writes any small graph: tensors (name, shape, dtype, constant bytes or
None, sparsity or None, quantization or None) and operators (opcode, input indices, output
indices, options as :func:`.tiny_tflite.one_operator_model` takes them)."""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence, Tuple

import numpy as np

from .tiny_tflite import _int_vector, _m, _offsets, _options, _quantization, finish_model

Level = Tuple  # ("DENSE", size) | ("CSR", segments, indices)


class Sparsity(NamedTuple):
    traversal_order: Sequence[int]
    block_map: Sequence[int]
    levels: Sequence[Level]
    index_type: str = "int32"


class Tensor(NamedTuple):
    name: str
    shape: Sequence[int]
    dtype: str
    data: Optional[bytes] = None
    sparsity: Optional[Sparsity] = None
    quantization: Optional[Tuple] = None


class Op(NamedTuple):
    opcode: str
    inputs: Sequence[int]
    outputs: Sequence[int]
    options: Optional[Tuple] = None


_INDEX_VECTORS = {"int32": ("Int32Vector", "PrependInt32"), "uint16": ("Uint16Vector", "PrependUint16"),
                  "uint8": ("Uint8Vector", "PrependUint8")}


def _index_vector(b, index_type: str, values) -> Tuple[int, int]:
    """(SparseIndexVector union type, offset of the table) holding ``values``."""
    import tflite

    name, prepend = _INDEX_VECTORS[index_type]
    module = _m(name)
    getattr(module, f"{name}StartValuesVector")(b, len(values))
    for v in reversed(list(values)):
        getattr(b, prepend)(int(v))
    vec = b.EndVector()
    getattr(module, f"{name}Start")(b)
    getattr(module, f"{name}AddValues")(b, vec)
    return getattr(tflite.SparseIndexVector, name), getattr(module, f"{name}End")(b)


def _sparsity(b, sp: Sparsity) -> int:
    SP, DM = _m("SparsityParameters"), _m("DimensionMetadata")
    metadata = []
    for level in sp.levels:
        if level[0] == "DENSE":
            DM.DimensionMetadataStart(b)
            DM.DimensionMetadataAddFormat(b, 0)
            DM.DimensionMetadataAddDenseSize(b, int(level[1]))
        else:
            seg = _index_vector(b, sp.index_type, level[1])
            idx = _index_vector(b, sp.index_type, level[2])
            DM.DimensionMetadataStart(b)
            DM.DimensionMetadataAddFormat(b, 1)
            DM.DimensionMetadataAddArraySegmentsType(b, seg[0])
            DM.DimensionMetadataAddArraySegments(b, seg[1])
            DM.DimensionMetadataAddArrayIndicesType(b, idx[0])
            DM.DimensionMetadataAddArrayIndices(b, idx[1])
        metadata.append(DM.DimensionMetadataEnd(b))
    order = _int_vector(b, SP.SparsityParametersStartTraversalOrderVector, sp.traversal_order)
    block_map = _int_vector(b, SP.SparsityParametersStartBlockMapVector, sp.block_map) if sp.block_map else None
    dims = _offsets(b, SP.SparsityParametersStartDimMetadataVector, metadata)
    SP.SparsityParametersStart(b)
    SP.SparsityParametersAddTraversalOrder(b, order)
    if block_map is not None:
        SP.SparsityParametersAddBlockMap(b, block_map)
    SP.SparsityParametersAddDimMetadata(b, dims)
    return SP.SparsityParametersEnd(b)


def graph_model(tensors: Sequence[Tensor], operators: Sequence[Op], inputs: Sequence[int],
                outputs: Sequence[int]) -> bytes:
    """Model bytes of one subgraph with these tensors and operators."""
    import flatbuffers
    import tflite

    T, B, O, S = (_m(n) for n in ("Tensor", "Buffer", "Operator", "SubGraph"))
    b = flatbuffers.Builder(1024)
    buffers, buffer_of = [], []
    B.BufferStart(b)
    buffers.append(B.BufferEnd(b))  # buffer 0: empty (TFLite's convention)
    for t in tensors:
        if t.data is None:
            buffer_of.append(0)
            continue
        d = b.CreateByteVector(bytes(t.data))
        B.BufferStart(b)
        B.BufferAddData(b, d)
        buffer_of.append(len(buffers))
        buffers.append(B.BufferEnd(b))
    offsets = []
    for t, buf in zip(tensors, buffer_of):
        n = b.CreateString(t.name)
        sh = _int_vector(b, T.TensorStartShapeVector, t.shape)
        sp = _sparsity(b, t.sparsity) if t.sparsity is not None else None
        quant = _quantization(b, t.quantization) if t.quantization is not None else None
        T.TensorStart(b)
        if quant is not None:
            T.TensorAddQuantization(b, quant)
        if sp is not None:
            T.TensorAddSparsity(b, sp)
        T.TensorAddShape(b, sh)
        T.TensorAddType(b, getattr(tflite.TensorType, t.dtype.upper()))
        T.TensorAddBuffer(b, buf)
        T.TensorAddName(b, n)
        offsets.append(T.TensorEnd(b))
    opcodes = sorted({op.opcode for op in operators})
    ops = []
    for op in operators:
        opts = _options(b, op.options)
        op_in = _int_vector(b, O.OperatorStartInputsVector, op.inputs)
        op_out = _int_vector(b, O.OperatorStartOutputsVector, op.outputs)
        O.OperatorStart(b)
        O.OperatorAddOpcodeIndex(b, opcodes.index(op.opcode))
        O.OperatorAddInputs(b, op_in)
        O.OperatorAddOutputs(b, op_out)
        if opts is not None:
            O.OperatorAddBuiltinOptionsType(b, opts[0])
            O.OperatorAddBuiltinOptions(b, opts[1])
        ops.append(O.OperatorEnd(b))
    tvec = _offsets(b, S.SubGraphStartTensorsVector, offsets)
    g_in = _int_vector(b, S.SubGraphStartInputsVector, inputs)
    g_out = _int_vector(b, S.SubGraphStartOutputsVector, outputs)
    ovec = _offsets(b, S.SubGraphStartOperatorsVector, ops)
    return finish_model(b, tvec, g_in, g_out, ovec, opcodes, buffers)


def values_bytes(values, dtype: str) -> bytes:
    return np.asarray(values, dtype=np.dtype(dtype).newbyteorder("<")).tobytes()


def densify_add_model(shape: Sequence[int], values, sparsity: Sparsity, dtype: str = "float32",
                      quantization: Optional[Tuple] = None) -> bytes:
    """input x (float32, ``shape``) -> ADD(x, DENSIFY(sparse constant)) -> output: tensor 2
    is the densified constant; with x = 0 the output is its value. A constant of another
    ``dtype`` (float16; int8 with ``quantization``) is dequantized to float32 (tensor 4)
    before the ADD."""
    tensors = [Tensor("input", shape, "float32"),
               Tensor("sparse", shape, dtype, values_bytes(values, dtype), sparsity, quantization),
               Tensor("dense", shape, dtype, quantization=quantization), Tensor("output", shape, "float32")]
    ops = [Op("DENSIFY", (1,), (2,))]
    operand = 2
    if dtype != "float32":
        tensors.append(Tensor("dequantized", shape, "float32"))
        ops.append(Op("DEQUANTIZE", (2,), (4,)))
        operand = 4
    ops.append(Op("ADD", (0, operand), (3,), ("AddOptions", {})))
    return graph_model(tensors, ops, (0,), (3,))


def sparse_fully_connected_model(batch: int, weights_shape: Sequence[int], values, sparsity: Sparsity,
                                 bias: np.ndarray, float16: bool = False) -> bytes:
    """input (batch, in) -> FULLY_CONNECTED(x, DENSIFY(sparse weights (out, in)), bias) ->
    output (batch, out); ``float16``: the weights are float16, then DEQUANTIZE (what TFLite's
    converter writes for float16 sparse weights)."""
    out, n_in = weights_shape
    wtype = "float16" if float16 else "float32"
    tensors = [Tensor("input", (batch, n_in), "float32"),
               Tensor("weights_sparse", weights_shape, wtype, values_bytes(values, wtype), sparsity),
               Tensor("weights_dense", weights_shape, wtype),
               Tensor("bias", (out,), "float32", values_bytes(bias, "float32")),
               Tensor("output", (batch, out), "float32")]
    ops = [Op("DENSIFY", (1,), (2,))]
    weights = 2
    if float16:
        tensors.append(Tensor("weights", weights_shape, "float32"))
        ops.append(Op("DEQUANTIZE", (2,), (5,)))
        weights = 5
    ops.append(Op("FULLY_CONNECTED", (0, weights, 3), (4,),
                  ("FullyConnectedOptions", {"FusedActivationFunction": "RELU"})))
    return graph_model(tensors, ops, (0,), (4,))
