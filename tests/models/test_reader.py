"""The TFLite reader against TFLite's own interpreter: same tensors, constants, operators."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.format.tflite_reader import (  # noqa: E402
    ModelFormatError, fold_constant_dequantize, read_model,
)

from .conftest import interpreter as _interpreter  # noqa: E402
from .conftest import model_file  # noqa: E402

MODELS = ["face_detection_front", "face_detection_back", "face_detection_full_range", "face_landmark"]


@pytest.mark.parametrize("name", MODELS)
def test_tensors_match_the_interpreter(name):
    path = model_file(name)
    m = read_model(path)
    it = _interpreter(path)
    details = sorted(it.get_tensor_details(), key=lambda d: d["index"])
    assert len(details) == len(m.tensors)
    for d, t in zip(details, m.tensors):
        assert (d["index"], d["name"], tuple(d["shape"]), np.dtype(d["dtype"])) == (t.index, t.name, t.shape, t.dtype)
        if t.is_constant:
            assert np.array_equal(it.get_tensor(t.index), t.data), t
    assert m.inputs == tuple(d["index"] for d in it.get_input_details())
    assert m.outputs == tuple(d["index"] for d in it.get_output_details())


@pytest.mark.parametrize("name", MODELS)
def test_operators_match_the_interpreter(name):
    path = model_file(name)
    m = read_model(path)
    ops = [o for o in _interpreter(path)._get_ops_details() if o["op_name"] != "DELEGATE"]  # XNNPACK's node
    assert [(o["op_name"], tuple(o["inputs"]), tuple(o["outputs"])) for o in ops] == \
        [(o.opcode, o.inputs, o.outputs) for o in m.operators]


def test_front_model_operator_counts_as_published():
    m = read_model(model_file("face_detection_front"))
    assert m.opcode_counts() == {"DEQUANTIZE": 74, "CONV_2D": 21, "RELU": 17, "DEPTHWISE_CONV_2D": 16, "ADD": 16,
                                 "PAD": 11, "MAX_POOL_2D": 3, "RESHAPE": 4, "CONCATENATION": 2}
    assert [m.tensors[i].shape for i in m.outputs] == [(1, 896, 16), (1, 896, 1)]


def test_constant_dequantize_is_expanded_at_load_time():
    m = read_model(model_file("face_detection_front"))
    f = fold_constant_dequantize(m)
    assert "DEQUANTIZE" not in f.opcode_counts() and len(f.operators) == len(m.operators) - 74
    for op in m.operators:
        if op.opcode == "DEQUANTIZE":
            src, dst = m.tensors[op.inputs[0]], f.tensors[op.outputs[0]]
            assert src.dtype == np.float16 and dst.dtype == np.float32
            assert np.array_equal(dst.data, src.data.astype(np.float32))
            assert not dst.data.flags.writeable


def test_operator_options_are_read():
    m = read_model(model_file("face_detection_front"))
    conv = m.operators[2]
    assert conv.opcode == "CONV_2D"
    assert dict(conv.options) == {"padding": "SAME", "stride_w": 2, "stride_h": 2, "fused_activation_function": None,
                                  "dilation_w": 1, "dilation_h": 1}
    concat = [o for o in m.operators if o.opcode == "CONCATENATION"]
    assert [o.option("axis") for o in concat] == [1, 1]


@pytest.mark.parametrize("data, match", [
    (b"", "at least 8 bytes"),
    (b"\x10\x00\x00\x00TFL3", "root table offset 16 lies past the end"),
    (b"\x00" * 64, "file identifier is b'\\\\x00"),
    (b"\x08\x00\x00\x00XXXX" + b"\x00" * 32, "expected b'TFL3'"),
])
def test_not_a_model_is_a_clear_error(data, match):
    with pytest.raises(ModelFormatError, match=match):
        read_model(data)


def test_truncated_model_is_a_clear_error():
    data = model_file("face_detection_front").read_bytes()
    with pytest.raises(ModelFormatError, match="malformed TFLite flatbuffer|cannot fit|past the end"):
        read_model(data[: len(data) // 2])


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        read_model(tmp_path / "none.tflite")
