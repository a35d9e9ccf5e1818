"""Quantization parameters in the reader: kept on every quantized tensor, the same as TFLite's
interpreter reads them from the published int8 models, and malformed ones refused with a
ModelFormatError naming tensor (or operator), field, value and expectation
(acl_bridge/models/format/tflite_quantization.py)."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.apps import fetch  # noqa: E402
from acl_bridge.models.format.tflite_quantization import OUTPUT_CHANNEL_AXIS  # noqa: E402
from acl_bridge.models.format.tflite_reader import ModelFormatError, read_model  # noqa: E402

from .conftest import interpreter as _interpreter  # noqa: E402
from .conftest import host_only_under_emulation, model_file  # noqa: E402
from .tiny_tflite import X, one_operator_model  # noqa: E402

INT8_MODELS = ["visual_wake_words", "image_classification", "keyword_spotting", "keyword_spotting_alexa",
               "fingerprint_signature_generator"]
VALID = ("Conv2DOptions", {"Padding": "VALID", "StrideW": 1, "StrideH": 1})

# ---------------------------------------------------------------------------- hand-built models
# int8 CONV_2D: input 1x4x4x2 (scale 0.5, zero point -3), weights 3x1x1x2 per channel on axis 0,
# bias 3 int32 with scale = 0.5 x weight scale, output 1x4x4x3 (0.25, 5).
W_SCALES = (0.125, 0.25, 0.0625)
GOOD = {
    "input": (0.5, -3),
    "const0": (W_SCALES, (0, 0, 0), 0),
    "const1": (tuple(0.5 * s for s in W_SCALES), (0, 0, 0), 0),
    "output": (0.25, 5),
}


def conv(quantization=None, weights_dtype=np.int8, bias_dtype=np.int32, opcode="CONV_2D", **changes):
    """The int8 convolution above, with ``changes`` to its quantization (tensor name -> params,
    None: no parameters)."""
    q = dict(GOOD if quantization is None else quantization)
    for name, params in changes.items():
        if params is None:
            q.pop(name)
        else:
            q[name] = params
    w = np.arange(6, dtype=weights_dtype).reshape(3, 1, 1, 2)
    b = np.array([10, -20, 30], bias_dtype)
    return one_operator_model(opcode, (1, 4, 4, 2), (1, 4, 4, 3), (X, w, b), VALID, io_dtype="int8", quantization=q)


def test_a_well_formed_int8_convolution_keeps_its_quantization():
    m = read_model(conv())
    x, w, b, y = (m.tensors[i] for i in (*m.operators[0].inputs, m.operators[0].outputs[0]))
    assert (x.dtype, w.dtype, b.dtype, y.dtype) == (np.int8, np.int8, np.int32, np.int8)
    assert (x.quantization.scale, x.quantization.zero_point) == ((0.5,), (-3,))
    assert (w.quantization.scale, w.quantization.zero_point, w.quantization.quantized_dimension) == \
        (W_SCALES, (0, 0, 0), 0)
    assert w.quantization.per_channel and not x.quantization.per_channel
    assert b.quantization.scale == tuple(0.5 * s for s in W_SCALES)
    assert (y.quantization.scale, y.quantization.zero_point) == ((0.25,), (5,))


def _interpreter_quantization(details):
    """(scales, zero points, axis) of one of the interpreter's tensor details. Its Python
    wrapper reports a single zero point when they are all equal (the file has one per scale):
    that one is repeated."""
    qp = details["quantization_parameters"]
    scales, zero_points = tuple(float(s) for s in qp["scales"]), tuple(int(z) for z in qp["zero_points"])
    if len(zero_points) == 1:
        zero_points *= len(scales)
    return scales, zero_points, int(qp["quantized_dimension"])


@host_only_under_emulation  # the reader is pure Python; ai-edge-litert 2.x dies loading int8 models there
def test_the_hand_built_int8_convolution_is_one_tflite_runs():
    """The builder writes what TFLite's interpreter reads: same parameters, and it runs."""
    data = conv()
    it = _interpreter(data)
    details = sorted(it.get_tensor_details(), key=lambda d: d["index"])
    m = read_model(data)
    for d, t in zip(details, m.tensors):
        assert _interpreter_quantization(d) == \
            (t.quantization.scale, t.quantization.zero_point, t.quantization.quantized_dimension)
    it.set_tensor(it.get_input_details()[0]["index"], np.zeros((1, 4, 4, 2), np.int8))
    it.invoke()


# (changes to GOOD, what the error says): tensor-level checks first, then operator-level ones
REFUSED = [
    ({"input": (0.0, -3)}, r"tensor #0 'input': quantization.scale\[0\] is 0.0, expected a finite number > 0"),
    ({"output": (-0.25, 5)}, r"tensor #3 'output': quantization.scale\[0\] is -0.25, expected a finite number > 0"),
    ({"const0": ((0.125, float("nan"), 0.0625), (0, 0, 0), 0)},
     r"tensor #1 'const0': quantization.scale\[1\] is nan, expected a finite number > 0"),
    ({"const1": ((0.0625, 0.125, float("inf")), (0, 0, 0), 0)},
     r"tensor #2 'const1': quantization.scale\[2\] is inf, expected a finite number > 0"),
    ({"input": (0.5, 128)}, r"tensor #0 'input': quantization.zero_point\[0\] is 128, expected a value in "
                            r"\[-128, 127\] that int8 can hold"),
    ({"output": (0.25, -129)}, r"quantization.zero_point\[0\] is -129, expected a value in \[-128, 127\]"),
    ({"const1": (tuple(0.5 * s for s in W_SCALES), (0, 2 ** 31, 0), 0)},
     r"tensor #2 'const1': quantization.zero_point\[1\] is 2147483648, expected a value in "
     r"\[-2147483648, 2147483647\] that int32 can hold"),
    ({"const0": (W_SCALES, 0, 0)}, r"tensor #1 'const0': quantization.zero_point has 1 values, expected 3, one per "
                                   r"scale as TFLite requires"),
    ({"const0": (W_SCALES, (0, 0), 0)}, r"quantization.zero_point has 2 values, expected 3"),
    ({"input": ((0.5, 0.5), -3)}, r"tensor #0 'input': quantization.zero_point has 1 values, expected 2"),
    ({"const0": (W_SCALES[:2], (0, 0), 0)},
     r"tensor #1 'const0': quantization.scale has 2 values \(per channel on quantized_dimension 0\), expected 1 "
     r"or shape\[0\] = 3 for shape \[3, 1, 1, 2\]"),
    ({"const0": (W_SCALES, (0, 0, 0), 4)},
     r"tensor #1 'const0': quantization.quantized_dimension is 4, expected an axis in \[0, 4\) of shape "
     r"\[3, 1, 1, 2\]"),
    ({"const0": (W_SCALES, (0, 0, 0), -1)}, r"quantization.quantized_dimension is -1, expected an axis in \[0, 4\)"),
    # operator level
    ({"const0": ((0.125, 0.25), (0, 0), 3)},
     r"operator #0 CONV_2D: weights TensorSpec\(#1 'const0' int8\[3, 1, 1, 2\] const\): "
     r"quantization.quantized_dimension is 3, expected 0, the output-channel axis of CONV_2D weights"),
    ({"const0": (W_SCALES, (0, 1, 0), 0)},
     r"operator #0 CONV_2D: weights .*'const0'.*: quantization.zero_point\[1\] is 1, expected 0: int8 per-channel "
     r"CONV_2D weights are symmetric"),
    ({"const0": (0.125, 7)}, r"quantization.zero_point\[0\] is 7, expected 0: int8 CONV_2D weights are symmetric"),
    ({"const1": (tuple(0.5 * s for s in W_SCALES[:2]) + (0.5 * W_SCALES[2] * (1 + 3e-6),), (0, 0, 0), 0)},
     r"operator #0 CONV_2D: bias .*'const1'.*: quantization.scale\[2\] is 0.0312500\d+, expected input scale 0.5 x "
     r"weight scale 0.0625 = 0.03125 within a relative 1e-06 \(TFLite's tolerance\)"),
    ({"const1": (0.0625, 0, 0)}, r"bias .*: quantization.scale\[1\] is 0.0625, expected input scale 0.5 x weight "
                                 r"scale 0.25 = 0.125"),
    ({"const1": (tuple(0.5 * s for s in W_SCALES), (0, 0, 1), 0)},
     r"operator #0 CONV_2D: bias .*'const1'.*: quantization.zero_point\[2\] is 1, expected 0"),
    ({"input": None}, r"operator #0 CONV_2D: input 0 TensorSpec\(#0 'input' int8\[1, 4, 4, 2\]\) is int8 without "
                      r"quantization parameters, expected a scale and a zero point"),
    ({"const0": None}, r"operator #0 CONV_2D: weights .*'const0'.* are int8 without quantization parameters"),
    ({"output": ((0.25, 0.25, 0.25), (5, 5, 5), 3)},
     r"operator #0 CONV_2D: output 0 .*'output'.* has 3 scales \(per channel on axis 3\), expected 1: only "
     r"weights and bias are quantized per channel"),
]


@pytest.mark.parametrize("changes, match", REFUSED, ids=[m[:60] for _, m in REFUSED])
def test_malformed_quantization_is_refused_by_name(changes, match):
    with pytest.raises(ModelFormatError, match=match):
        read_model(conv(**changes))


def test_bias_scale_within_tflites_tolerance_is_accepted():
    """TFLite's check is relative 1e-6 of the smaller scale: 5e-7 passes, 3e-6 (above) fails."""
    scales = tuple(0.5 * s for s in W_SCALES[:2]) + (0.5 * W_SCALES[2] * (1 + 5e-7),)
    b = read_model(conv(const1=(scales, (0, 0, 0), 0))).tensors[2]
    assert b.quantization.scale[2] != 0.5 * W_SCALES[2]


def test_a_bias_without_quantization_is_accepted():
    """TFLite's int8 kernels never read the bias scale (they use input x weight scale)."""
    assert read_model(conv(const1=None)).tensors[2].quantization is None


@pytest.mark.parametrize("weights_dtype, bias_dtype, match", [
    (np.uint8, np.int32, r"operator #0 CONV_2D: weights .*'const0' uint8.* are uint8, expected int8 like the input"),
    (np.int8, np.int8, r"operator #0 CONV_2D: bias .*'const1' int8.* is int8, expected int32 for a int8 input"),
])
def test_weights_and_bias_of_the_wrong_type_are_refused(weights_dtype, bias_dtype, match):
    q = dict(GOOD, const0=(0.125, 0) if weights_dtype == np.uint8 else GOOD["const0"],
             const1=(0.0625, 0) if weights_dtype == np.uint8 else (0.0625, 0))
    with pytest.raises(ModelFormatError, match=match):
        read_model(conv(q, weights_dtype=weights_dtype, bias_dtype=bias_dtype))


def depthwise(**changes):
    """int8 DEPTHWISE_CONV_2D 1x4x4x3 -> 1x4x4x3, weights 1x1x1x3 per channel on axis 3."""
    q = {"input": (0.5, -3), "const0": (W_SCALES, (0, 0, 0), 3),
         "const1": (tuple(0.5 * s for s in W_SCALES), (0, 0, 0), 0), "output": (0.25, 5)}
    q.update(changes)
    w = np.array([1, -2, 3], np.int8).reshape(1, 1, 1, 3)
    return one_operator_model("DEPTHWISE_CONV_2D", (1, 4, 4, 3), (1, 4, 4, 3), (X, w, np.zeros(3, np.int32)),
                              ("DepthwiseConv2DOptions", {"Padding": "VALID", "StrideW": 1, "StrideH": 1,
                                                          "DepthMultiplier": 1}), io_dtype="int8", quantization=q)


def test_depthwise_weights_are_per_channel_on_axis_3():
    w = read_model(depthwise()).tensors[1]
    assert (w.quantization.scale, w.quantization.quantized_dimension) == (W_SCALES, 3)
    assert OUTPUT_CHANNEL_AXIS["DEPTHWISE_CONV_2D"] == 3
    with pytest.raises(ModelFormatError, match=r"operator #0 DEPTHWISE_CONV_2D: weights .*: quantization.zero_point"
                                               r"\[2\] is -1, expected 0: int8 per-channel DEPTHWISE_CONV_2D"):
        read_model(depthwise(const0=(W_SCALES, (0, 0, -1), 3)))


def fully_connected(**changes):
    """int8 FULLY_CONNECTED 1x4 -> 1x3, weights 3x4."""
    q = {"input": (0.5, -3), "const0": (0.125, 0), "const1": (0.0625, 0), "output": (0.25, 5)}
    q.update(changes)
    w = np.arange(12, dtype=np.int8).reshape(3, 4)
    return one_operator_model("FULLY_CONNECTED", (1, 4), (1, 3), (X, w, np.zeros(3, np.int32)),
                              ("FullyConnectedOptions", {}), io_dtype="int8", quantization=q)


def test_fully_connected_weights_per_tensor_may_have_a_zero_point_per_channel_not():
    """TFLite's int8 FULLY_CONNECTED applies a per-tensor weight offset; per channel it is symmetric."""
    assert read_model(fully_connected(const0=(0.125, 4))).tensors[1].quantization.zero_point == (4,)
    w = read_model(fully_connected(const0=((0.125, 0.25, 0.125), (0, 0, 0), 0),
                                   const1=((0.0625, 0.125, 0.0625), (0, 0, 0), 0))).tensors[1]
    assert w.quantization.per_channel
    with pytest.raises(ModelFormatError, match=r"operator #0 FULLY_CONNECTED: weights .*: quantization.zero_point"
                                               r"\[0\] is 1, expected 0: int8 per-channel FULLY_CONNECTED"):
        read_model(fully_connected(const0=((0.125, 0.25, 0.125), (1, 0, 0), 0)))


def softmax(output):
    return one_operator_model("SOFTMAX", (1, 10), (1, 10), (X,), ("SoftmaxOptions", {"Beta": 1.0}),
                              io_dtype="int8", quantization={"input": (0.1, 3), "output": output})


def test_int8_softmax_output_is_one_256th_and_minus_128():
    assert read_model(softmax((1 / 256, -128))).tensors[1].quantization.scale == (1 / 256,)
    for output, match in [((1 / 255, -128), r"scale 0.00392156\d+ and zero point -128, expected 0.00390625 "
                                            r"\(1/256\) and -128, as TFLite's int8 softmax requires"),
                          ((1 / 256, 0), r"scale 0.00390625 and zero point 0, expected 0.00390625")]:
        with pytest.raises(ModelFormatError, match=r"operator #0 SOFTMAX: output .*'output'.* has " + match):
            read_model(softmax(output))


def test_float_tensors_keep_quantization_parameters_unchecked():
    """Float tensors can carry leftovers of a converter: they are read, never refused."""
    data = one_operator_model("CONV_2D", (1, 4, 4, 2), (1, 4, 4, 3), (X, np.ones((3, 1, 1, 2), np.float32)), VALID,
                              quantization={"input": (0.0, 999), "const0": ((1.0, float("nan")), (0, 7, 1), 9),
                                            "output": (-1.0, -1000)})
    m = read_model(data)
    assert m.tensors[0].quantization.scale == (0.0,) and m.tensors[0].quantization.zero_point == (999,)
    assert m.tensors[1].quantization.quantized_dimension == 9 and np.isnan(m.tensors[1].quantization.scale[1])


def test_a_constant_int8_tensor_is_checked_whatever_uses_it():
    """Tensor-level checks do not depend on the operator (here a constant DEQUANTIZE)."""
    bad = one_operator_model("DEQUANTIZE", (1,), (4,), (np.arange(4, dtype=np.int8),),
                             quantization={"const0": (0.0, 0)})
    with pytest.raises(ModelFormatError, match=r"tensor #1 'const0': quantization.scale\[0\] is 0.0"):
        read_model(bad)


# ---------------------------------------------------------------------------- published models
@host_only_under_emulation  # the reader is pure Python; ai-edge-litert 2.x dies loading int8 models there
@pytest.mark.parametrize("name", INT8_MODELS + ["keyword_spotting_alexa_float32"])
def test_quantization_matches_the_interpreter(name):
    """Every tensor's scales, zero points and axis as TFLite's interpreter reads them."""
    path = model_file(name)
    m = read_model(path)
    details = sorted(_interpreter(path).get_tensor_details(), key=lambda d: d["index"])
    assert len(details) == len(m.tensors)
    for d, t in zip(details, m.tensors):
        qp = d["quantization_parameters"]
        if t.quantization is None:
            assert len(qp["scales"]) == 0, t
            continue
        assert _interpreter_quantization(d) == \
            (t.quantization.scale, t.quantization.zero_point, t.quantization.quantized_dimension), t


def _weighted(m):
    for op in m.operators:
        if op.opcode in OUTPUT_CHANNEL_AXIS:
            yield op, *(m.tensors[i] for i in op.inputs[:3]), m.tensors[op.outputs[0]]


@pytest.mark.parametrize("name", INT8_MODELS)
def test_published_int8_models_follow_the_conventions(name):
    """acl-facts.md, "Quantized int8 models": conv weights int8 per channel on axis 0, depthwise
    on axis 3, symmetric; fully-connected weights per tensor; int32 bias with scale input x
    weight; softmax output 1/256 and -128; every live tensor int8 per tensor (float32 only at
    QUANTIZE's input and DEQUANTIZE's output)."""
    m = read_model(model_file(name))
    counts = {"CONV_2D": 0, "DEPTHWISE_CONV_2D": 0, "FULLY_CONNECTED": 0}
    for op, x, w, b, y in _weighted(m):
        counts[op.opcode] += 1
        assert (x.dtype, w.dtype, b.dtype, y.dtype) == (np.int8, np.int8, np.int32, np.int8), op
        wq, bq = w.quantization, b.quantization
        assert set(wq.zero_point) == {0} and set(bq.zero_point) == {0}, op
        if op.opcode == "FULLY_CONNECTED":
            assert not wq.per_channel, op
        else:
            axis = OUTPUT_CHANNEL_AXIS[op.opcode]
            assert wq.per_channel and wq.quantized_dimension == axis and len(wq.scale) == w.shape[axis], op
        product = x.quantization.scale[0] * np.asarray(wq.scale, np.float64)
        np.testing.assert_allclose(bq.scale, product, rtol=1e-6)
    assert counts["CONV_2D"] > 0 and counts["FULLY_CONNECTED"] == 1
    for softmax_op in [op for op in m.operators if op.opcode == "SOFTMAX"]:  # all but the fingerprint model's
        q = m.tensors[softmax_op.outputs[0]].quantization
        assert (q.scale, q.zero_point) == ((1 / 256,), (-128,))
    for t in m.tensors:
        if not t.is_constant and t.dtype == np.int8:
            assert t.quantization is not None and not t.quantization.per_channel, t
    floats = {i for i, t in enumerate(m.tensors) if t.dtype == np.float32}
    edges = {i for op in m.operators if op.opcode in ("QUANTIZE", "DEQUANTIZE") for i in op.inputs + op.outputs}
    assert floats <= edges


# Facts of the published models (sizes and sha256 pinned in acl_bridge/models/apps/fetch.py)
PUBLISHED = {
    "visual_wake_words": (("float32", (1, 96, 96, 3)), ("float32", (1, 2)),
                          {"QUANTIZE": 1, "CONV_2D": 14, "DEPTHWISE_CONV_2D": 13, "AVERAGE_POOL_2D": 1,
                           "RESHAPE": 1, "FULLY_CONNECTED": 1, "SOFTMAX": 1, "DEQUANTIZE": 1}),
    "image_classification": (("int8", (1, 32, 32, 3)), ("int8", (1, 10)),
                             {"CONV_2D": 9, "ADD": 3, "AVERAGE_POOL_2D": 1, "RESHAPE": 1, "FULLY_CONNECTED": 1,
                              "SOFTMAX": 1}),
    "keyword_spotting": (("float32", (1, 50, 10, 1)), ("float32", (1, 12)),
                         {"QUANTIZE": 1, "CONV_2D": 5, "DEPTHWISE_CONV_2D": 4, "AVERAGE_POOL_2D": 1, "RESHAPE": 1,
                          "FULLY_CONNECTED": 1, "SOFTMAX": 1, "DEQUANTIZE": 1}),
    "keyword_spotting_alexa": (("int8", (1, 118, 1, 108)), ("int8", (1, 2)),
                               {"CONV_2D": 28, "DEPTHWISE_CONV_2D": 12, "ADD": 12, "AVERAGE_POOL_2D": 1,
                                "RESHAPE": 1, "FULLY_CONNECTED": 1, "SOFTMAX": 1}),
    "fingerprint_signature_generator": (("int8", (1, 180, 180, 1)), ("int8", (1, 16)),
                                        {"DEPTHWISE_CONV_2D": 1, "AVERAGE_POOL_2D": 1, "CONV_2D": 1, "MEAN": 1,
                                         "FULLY_CONNECTED": 1}),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_models_inputs_outputs_and_operators(name):
    m = read_model(model_file(name))
    (x_dtype, x_shape), (y_dtype, y_shape), counts = PUBLISHED[name]
    assert [(m.tensors[i].dtype.name, m.tensors[i].shape) for i in m.inputs] == [(x_dtype, x_shape)]
    assert [(m.tensors[i].dtype.name, m.tensors[i].shape) for i in m.outputs] == [(y_dtype, y_shape)]
    assert m.opcode_counts() == counts


def test_image_classification_input_is_one_128th_zero_point_0():
    m = read_model(model_file("image_classification"))
    q = m.tensors[m.inputs[0]].quantization
    assert (q.scale, q.zero_point) == ((1 / 128,), (0,))


def test_the_float32_twin_is_the_same_network():
    """keyword_spotting_alexa_float32: the int8 model's operators, in order, with the same
    options and shapes, every tensor float32 but the RESHAPE's shape."""
    q, f = read_model(model_file("keyword_spotting_alexa")), read_model(model_file("keyword_spotting_alexa_float32"))
    assert [(o.opcode, o.options) for o in q.operators] == [(o.opcode, o.options) for o in f.operators]
    assert [q.tensors[o.outputs[0]].shape for o in q.operators] == [f.tensors[o.outputs[0]].shape for o in f.operators]
    assert {t.dtype.name for t in f.tensors} == {"float32", "int32"}
    assert all(t.quantization is None for t in f.tensors)


def test_model_names_are_documented_in_fetch():
    assert fetch.QUANTIZED_MODELS == ("visual_wake_words", "image_classification", "keyword_spotting",
                                      "keyword_spotting_alexa", "keyword_spotting_alexa_float32",
                                      "fingerprint_signature_generator")
    for name in fetch.QUANTIZED_MODELS:
        assert name in (fetch.model_path.__doc__ or "")


def test_fingerprint_depthwise_multiplier_8_is_per_channel_over_c_times_m():
    """One input channel, depth multiplier 8: 8 weight scales on axis 3 (C x M); MEAN over H
    and W without keep_dims."""
    m = read_model(model_file("fingerprint_signature_generator"))
    dw, mean = m.operators[0], m.operators[3]
    assert (dw.opcode, dw.option("depth_multiplier"), m.tensors[dw.inputs[0]].shape[3]) == ("DEPTHWISE_CONV_2D", 8, 1)
    w = m.tensors[dw.inputs[1]]
    assert w.shape == (1, 5, 5, 8) and len(w.quantization.scale) == 8 and w.quantization.quantized_dimension == 3
    assert mean.opcode == "MEAN" and mean.option("keep_dims") is False
    assert m.tensors[mean.inputs[1]].data.tolist() == [1, 2]


# ---------------------------------------------------------------------------- TFLite's own verdicts
def _tflite(data, reference):
    """TFLite's interpreter on ``data`` (default kernels, XNNPACK included, or reference kernels)
    with a zero input: its output, or the first line of why it refused the model."""
    litert = pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter is not installed")
    kwargs = {"experimental_op_resolver_type": litert.OpResolverType.BUILTIN_REF} if reference else {}
    try:
        it = litert.Interpreter(model_content=data, num_threads=1, **kwargs)
        it.allocate_tensors()
        x = it.get_input_details()[0]
        it.set_tensor(x["index"], np.zeros(x["shape"], x["dtype"]))
        it.invoke()
        return it.get_tensor(it.get_output_details()[0]["index"]).copy()
    except (RuntimeError, ValueError) as e:
        return " ".join(str(e).split())


# REFUSED rows that TFLite refuses too, with its default and its reference kernels
# (InterpreterBuilder::ParseQuantization, conv.cc's Prepare): zero point vectors of the wrong
# length, per-channel vectors of the wrong length or axis, quantized_dimension out of range,
# int8 weights with a nonzero zero point, missing parameters. The other rows at least one of
# its kernel sets runs (the reference kernels compute with a zero or negative scale, an int8
# zero point of 128, a bias zero point or scale they ignore; both with NaN and infinite scales).
TFLITE_REFUSES_TOO = (7, 8, 9, 10, 11, 12, 13, 14, 15, 19, 20)


@host_only_under_emulation
@host_only_under_emulation  # TFLite's behaviour, not ours; 2.x crashes on such models under emulation
@pytest.mark.parametrize("row", range(len(REFUSED)))
def test_tflite_refuses_the_same_malformed_models_or_runs_them_with_one_kernel_set(row):
    changes, _ = REFUSED[row]
    verdicts = [_tflite(conv(**changes), reference) for reference in (False, True)]
    refused = [isinstance(v, str) for v in verdicts]
    assert refused == [row in TFLITE_REFUSES_TOO] * 2 or (row not in TFLITE_REFUSES_TOO and not all(refused)), \
        (changes, verdicts)



def test_every_quantization_contract_is_a_row_keyed_by_a_builtin_opcode():
    """The contracts are a table (opcode -> checks) that check_quantization iterates: a row
    keyed by a misspelled opcode would check nothing, so every key is one of TFLite's builtins."""
    import tflite

    from acl_bridge.models.format.tflite_quantization import QUANTIZATION_CONTRACTS, WeightsAndBias

    assert set(QUANTIZATION_CONTRACTS) <= set(tflite.BUILTIN_OPCODE2NAME.values()), sorted(QUANTIZATION_CONTRACTS)
    assert OUTPUT_CHANNEL_AXIS == {"CONV_2D": 0, "DEPTHWISE_CONV_2D": 3, "FULLY_CONNECTED": 0}
    assert [c for c in QUANTIZATION_CONTRACTS["FULLY_CONNECTED"] if isinstance(c, WeightsAndBias)] == [
        WeightsAndBias(axis=0, symmetric_per_tensor=False)]
