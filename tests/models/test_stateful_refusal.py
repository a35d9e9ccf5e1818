"""A stateful model (a resource variable that CALL_ONCE initialises from a second subgraph
and each invocation reads and updates, as streaming wake-word models keep their context)
is refused at load naming every operator that needs what this library lacks; TFLite's own
interpreter runs the same bytes, so the model is valid and the refusal is the library's."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge.errors import AclNdarrayError  # noqa: E402
from acl_bridge.models.format.tflite_reader import UnsupportedModelError, read_model  # noqa: E402

from .conftest import host_only_under_emulation  # noqa: E402
from .tiny_tflite import _int_vector, _m, _offsets, finish_graphs  # noqa: E402

pytestmark = host_only_under_emulation


def _accumulator_model() -> bytes:
    """y = x + acc; acc = y (acc starts at zero, set by subgraph 1 through CALL_ONCE)."""
    import flatbuffers
    import tflite

    T, B, O, S = (_m(n) for n in ("Tensor", "Buffer", "Operator", "SubGraph"))
    b = flatbuffers.Builder(1024)
    zeros = b.CreateByteVector(np.zeros(4, "<f4").tobytes())
    buffers = []
    for data in (None, zeros):
        B.BufferStart(b)
        if data is not None:
            B.BufferAddData(b, data)
        buffers.append(B.BufferEnd(b))

    def tensor(name, shape, kind, buffer=0):
        n, sh = b.CreateString(name), _int_vector(b, T.TensorStartShapeVector, shape)
        T.TensorStart(b)
        T.TensorAddShape(b, sh)
        T.TensorAddType(b, getattr(tflite.TensorType, kind))
        T.TensorAddBuffer(b, buffer)
        T.TensorAddName(b, n)
        return T.TensorEnd(b)

    def options(table, **fields):
        module = _m(table)
        strings = {k: b.CreateString(v) for k, v in fields.items() if isinstance(v, str)}
        getattr(module, f"{table}Start")(b)
        for k, v in fields.items():
            getattr(module, f"{table}Add{k}")(b, strings.get(k, v))
        return getattr(tflite.BuiltinOptions, table), getattr(module, f"{table}End")(b)

    def operator(code, inputs, outputs, opts=None):
        ins = _int_vector(b, O.OperatorStartInputsVector, inputs)
        outs = _int_vector(b, O.OperatorStartOutputsVector, outputs)
        O.OperatorStart(b)
        O.OperatorAddOpcodeIndex(b, code)
        O.OperatorAddInputs(b, ins)
        O.OperatorAddOutputs(b, outs)
        if opts is not None:
            O.OperatorAddBuiltinOptionsType(b, opts[0])
            O.OperatorAddBuiltinOptions(b, opts[1])
        return O.OperatorEnd(b)

    def subgraph(tensors, inputs, outputs, operators):
        tv, iv = _offsets(b, S.SubGraphStartTensorsVector, tensors), _int_vector(b, S.SubGraphStartInputsVector, inputs)
        ov = _int_vector(b, S.SubGraphStartOutputsVector, outputs)
        opv = _offsets(b, S.SubGraphStartOperatorsVector, operators)
        S.SubGraphStart(b)
        S.SubGraphAddTensors(b, tv)
        S.SubGraphAddInputs(b, iv)
        S.SubGraphAddOutputs(b, ov)
        S.SubGraphAddOperators(b, opv)
        return S.SubGraphEnd(b)

    names = ["CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ADD", "ASSIGN_VARIABLE"]
    main = subgraph([tensor("input", [1, 4], "FLOAT32"), tensor("acc", [], "RESOURCE"),
                     tensor("previous", [1, 4], "FLOAT32"), tensor("output", [1, 4], "FLOAT32")], [0], [3], [
        operator(0, [], [], options("CallOnceOptions", InitSubgraphIndex=1)),
        operator(1, [], [1], options("VarHandleOptions", SharedName="acc")),
        operator(2, [1], [2]),
        operator(3, [0, 2], [3]),
        operator(4, [1, 3], []),
    ])
    init = subgraph([tensor("acc", [], "RESOURCE"), tensor("zeros", [1, 4], "FLOAT32", 1)], [], [], [
        operator(1, [], [0], options("VarHandleOptions", SharedName="acc")),
        operator(4, [0, 1], []),
    ])
    return finish_graphs(b, [main, init], names, buffers)


def test_tflite_runs_the_stateful_model():
    interp = pytest.importorskip("ai_edge_litert.interpreter",
                                 reason="TFLite's interpreter (ai-edge-litert) is not installed")
    it = interp.Interpreter(model_content=_accumulator_model())
    it.allocate_tensors()
    x = np.arange(4, dtype=np.float32).reshape(1, 4)
    seen = []
    for _ in range(3):
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        seen.append(it.get_tensor(it.get_output_details()[0]["index"]).copy())
    np.testing.assert_array_equal(seen, [x, 2 * x, 3 * x])  # the state is kept between invocations


def test_stateful_model_refused_naming_every_operator_and_what_is_missing():
    with pytest.raises(UnsupportedModelError) as e:
        read_model(_accumulator_model())
    text = str(e.value)
    assert isinstance(e.value, AclNdarrayError)
    for named in ("CALL_ONCE (operator #0)", "VAR_HANDLE (operator #1)", "READ_VARIABLE (operator #2)",
                  "ASSIGN_VARIABLE (operator #4)", "of its 2 subgraphs", "resource variables",
                  "CALL_ONCE's initialisation subgraph"):
        assert named in text, (named, text)
    assert "ADD" not in text
