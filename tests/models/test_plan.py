"""The plan (lowering to bridge functions) carried out by numpy against TFLite's interpreter,
and the refusals of what the bridge cannot run."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.lowering.helpers import same_padding  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.format.tflite_reader import (  # noqa: E402
    ModelFormatError,
    UnsupportedModelError,
    fold_constant_dequantize,
    read_model,
)
from ndarray.errors import UnsupportedOptionError  # noqa: E402

from .conftest import host_only_under_emulation, interpreter_outputs, model_file, tolerance  # noqa: E402


def _plan(name):
    return plan_model(fold_constant_dequantize(read_model(model_file(name))))


OUTPUTS = {"face_detection_front": {"regressors", "classificators"},
           "face_detection_back": {"regressors", "classificators"},
           "face_detection_full_range": {"reshaped_regressor_face_4", "reshaped_classifier_face_4"},
           "face_landmark": {"conv2d_20", "conv2d_30"}}


@pytest.mark.parametrize("name", [pytest.param(n, marks=host_only_under_emulation) if n in ("face_detection_back", "face_detection_full_range") else n
                                  for n in sorted(OUTPUTS)])
def test_plan_run_by_numpy_matches_the_interpreter(name):
    plan = _plan(name)
    shape = plan.model.tensors[plan.model.inputs[0]].shape
    x = np.random.default_rng(7).uniform(-1, 1, shape).astype(np.float32)
    ref = interpreter_outputs(model_file(name), x)
    got = run_plan(plan, x)
    assert set(got) == set(ref) == OUTPUTS[name]
    for k in ref:
        assert got[k].shape == ref[k].shape
        assert np.abs(got[k] - ref[k]).max() <= tolerance(ref[k]), k


def _kinds(plan):
    """Bridge functions per kind in a plan."""
    return dict(Counter(s.kind for s in plan.steps))


def test_front_plan_facts():
    plan = _plan("face_detection_front")
    kinds = _kinds(plan)
    # RELU after the first convolution fused into it; of the 16 after an ADD, the 5 on an ADD's
    # own output are its fused activation, the 11 on a folded ADD's (over all of y's channels,
    # wider than the ADD writes) run in place; RESHAPE/CONCATENATION are views; the 11
    # channel-widening PADs folded into their ADDs (no pad step left)
    assert kinds == {"convolution": 21, "depthwise": 16, "add": 16, "activation": 11, "pooling": 3}
    assert len(plan.fused) == 1 + 5 and len(plan.folded_pads) == 11
    in_place = [s for s in plan.steps if s.kind == "activation"]
    assert all(s.inputs == (s.output,) and s.param("in_place") for s in in_place)
    adds = [s for s in plan.steps if s.kind == "add"]
    assert sorted((s.opcode, s.param("activation")) for s in adds) == [("ADD+RELU", "relu")] * 5 + [("PAD+ADD", None)] * 11
    assert sorted(v.how[0] for v in plan.views) == ["alias"] * (16 + 11) + ["reshape"] * 4 + ["slice"] * (4 + 11)
    outputs = set(plan.model.outputs)
    # the four head convolutions write straight into the concatenated outputs
    assert {plan.root(s.output) for s in plan.steps if plan.root(s.output) in outputs} == outputs
    # SAME padding of the first convolution (5x5, stride 2, 128 -> 64): 1 before, 2 after
    assert plan.steps[0].param("padding") == (1, 2, 1, 2) and plan.steps[0].param("stride") == (2, 2)


def test_a_channel_widening_pad_is_folded_into_its_add():
    """o = pad(x) + y (zeros after x's channels) is made in y's own buffer: the ADD adds x to
    the view of y's first channels in place, o is y (an alias), and the PAD is gone."""
    plan = _plan("face_detection_front")
    views, t = plan.view_of(), plan.model.tensors
    producers = {s.output: s for s in plan.steps}
    folded = [s for s in plan.steps if s.opcode == "PAD+ADD"]
    assert len(folded) == 11
    # each folded PAD is named with the ADD it went into (the profiles match Arm NN's PAD there)
    assert sorted(add for _, add in plan.folded_pads) == sorted(s.op_index for s in folded)
    opcodes = {op.index: op.opcode for op in plan.model.operators}
    assert all(opcodes[pad] == "PAD" and opcodes[add] == "ADD" for pad, add in plan.folded_pads)
    for s in folded:
        x, ys = s.inputs
        assert s.output == ys and views[ys].how == ("slice", 3, 0)
        y = views[ys].parent
        assert producers[y].kind == "convolution" and y not in views
        assert t[ys].shape == t[x].shape and t[ys].shape[:3] == t[y].shape[:3] and t[ys].shape[3] < t[y].shape[3]
        # the ADD's own output: an alias of y, read by the in-place RELU over all channels
        o = next(v.tensor for v in plan.views if v.parent == y and v.how == ("alias",))
        assert any(r.inputs == (o,) and r.param("in_place") for r in plan.steps)


@pytest.mark.parametrize("size, kernel, stride, out, expect", [
    (128, 5, 2, 64, (1, 2)), (64, 3, 2, 32, (0, 1)), (64, 3, 1, 64, (1, 1)), (16, 1, 1, 16, (0, 0)), (5, 7, 1, 5, (3, 3)),
])
def test_same_padding_is_tflites(size, kernel, stride, out, expect):
    assert same_padding(size, kernel, stride, out) == expect


def test_landmark_plan_runs_prelu_with_per_channel_slopes():
    plan = _plan("face_landmark")
    assert _kinds(plan) == {"convolution": 25, "prelu": 23, "depthwise": 20, "add": 20, "pooling": 6}
    for s in plan.steps:
        if s.kind == "prelu":  # TFLite's (1, 1, C) slopes broadcast to NHWC: one per channel
            alpha = dict(s.constants)["alpha"]
            assert alpha.shape == (1, 1, 1, plan.model.tensors[s.output].shape[-1]), s


def test_unsupported_operator_is_refused_at_load_time_by_name():
    import dataclasses

    m = fold_constant_dequantize(read_model(model_file("face_landmark")))
    bad = dataclasses.replace(m.operators[1], opcode="CUMSUM")
    m2 = dataclasses.replace(m, operators=m.operators[:1] + (bad,) + m.operators[2:])
    with pytest.raises(UnsupportedModelError, match=r"operator #1 CUMSUM: the operator \(supported operators: "
                                                     r"ABS, ADD, .*CONV_2D, .*PRELU, .*TANH, TILE, TRANSPOSE, TRANSPOSE_CONV, UNIDIRECTIONAL_SEQUENCE_LSTM, "
                                                     r"UNPACK\)") as e:
        plan_model(m2)
    assert isinstance(e.value, UnsupportedOptionError)


def test_prelu_alpha_that_does_not_broadcast_is_a_format_error():
    import dataclasses

    m = fold_constant_dequantize(read_model(model_file("face_landmark")))
    op = next(o for o in m.operators if o.opcode == "PRELU")
    a = m.tensors[op.inputs[1]]
    wrong = dataclasses.replace(a, shape=(1, 1, 2, a.shape[-1]), data=np.concatenate([a.data, a.data], axis=1))
    tensors = tuple(wrong if t.index == a.index else t for t in m.tensors)
    with pytest.raises(ModelFormatError, match=rf"operator #{op.index} PRELU: alpha \[1, 1, 2, {a.shape[-1]}\] "
                                               r"does not broadcast to input"):
        plan_model(dataclasses.replace(m, tensors=tensors))


def test_unsupported_option_is_refused_naming_it():
    import dataclasses

    m = fold_constant_dequantize(read_model(model_file("face_detection_front")))
    op = m.operators[0]
    bad = dataclasses.replace(op, options=tuple((k, 2 if k == "dilation_h" else v) for k, v in op.options))
    m2 = dataclasses.replace(m, operators=(bad,) + m.operators[1:])
    with pytest.raises(UnsupportedModelError, match=r"operator #2 CONV_2D: option dilation_h_factor=2"):
        plan_model(m2)


class _Params:
    """Stand-in for the native acl_shim_params struct (attributes and the fixed arrays)."""

    def __init__(self):
        self.pad_before, self.pad_after, self.perm = [0] * 6, [0] * 6, [0] * 6
        self.slice_begin, self.slice_end, self.slice_stride, self.multiples = [0] * 6, [0] * 6, [0] * 6, [0] * 6
        self.box_scales = [0.0] * 4  # the detection post-process's y, x, h, w
        self.gather_nd_strides = [0] * 6  # gather_nd: rows per step of each index component


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_every_step_binds_to_the_bridge_function_signature(name, monkeypatch):
    assert_steps_bind(_plan(name), monkeypatch)


def assert_steps_bind(plan, monkeypatch):
    """The runner's arguments for each step pass the bridge's own argument binding (pure
    Python: only the native parameter struct is stubbed), so the ACL run fails on nothing
    but ACL."""
    from acl_bridge import functions as F
    from acl_bridge.models.runtime import step_calls as R
    from ndarray import ShapeDescriptor

    monkeypatch.setattr(F, "default_params", _Params)
    shapes = {t.index: ShapeDescriptor.create(tuple(t.shape), t.dtype if np.dtype(t.dtype).kind == "i" and
                                              np.dtype(t.dtype).itemsize >= 4 else "float32")
              for t in plan.model.tensors}  # index tensors as they are (int32 / int64), the rest float32
    for s in plan.steps:
        consts = {role: ShapeDescriptor.create(v.shape, v.dtype) for role, v in s.constants}
        cls = R.ROLES[s.kind]
        arrays, kind, params, _ = cls._call(R.step_operands(s, shapes, consts), dict(R.call_kwargs(s)), None)
        assert len(arrays) == len(cls.roles) and kind == s.kind  # Softmax: "softmax" or "log_softmax"
        if s.kind in ("convolution", "depthwise", "pooling", "deconvolution"):
            top, bottom, left, right = s.param("padding")
            assert (params.pad_top, params.pad_bottom, params.pad_left, params.pad_right) == (top, bottom, left, right)
            assert (params.stride_y, params.stride_x) == s.param("stride")
        if s.kind == "resize" and s.param("half_pixel_centers"):  # TFLite's half-pixel grid: ACL's CENTER sampling
            from acl_bridge import abi

            interpolation = abi.INTERPOLATIONS[s.param("interpolation") or "bilinear"]
            assert (params.interpolation, params.sampling, params.align_corners) == (interpolation, 0, 0)


def test_a_steps_parameters_by_name_are_its_params_and_no_field():
    """Step.params_by_name (made once per step) answers what dict(params) answers, a later
    duplicate name winning; it is not a field: equality, hashing, repr and dataclasses.replace
    see ``params`` only, and a replaced step has its own."""
    import dataclasses

    from acl_bridge.models.lowering.step import Step

    s = Step(3, "CONV_2D", "convolution", (0, 1), 2, (("stride", (1, 1)), ("activation", None), ("stride", (2, 2))))
    assert s.params_by_name == dict(s.params) == {"stride": (2, 2), "activation": None}
    assert s.param("stride") == (2, 2) and s.param("absent", ()) == () and s.params_by_name is s.params_by_name
    twin = Step(3, "CONV_2D", "convolution", (0, 1), 2, s.params)
    assert s == twin and hash(s) == hash(twin) and repr(s) == repr(twin)
    other = dataclasses.replace(s, params=(("stride", (1, 1)),))
    assert other.param("stride") == (1, 1) and other.params_by_name is not s.params_by_name
    assert [f.name for f in dataclasses.fields(s)] == ["op_index", "opcode", "kind", "inputs", "output", "params",
                                                       "constants"]


@given(st.lists(st.integers(0, 3), max_size=5), st.lists(st.integers(0, 3), max_size=5))
def test_broadcast_shape_is_numpys(a, b):
    """The lowering's broadcast of two shapes (in Python) is np.broadcast_shapes', or None where
    numpy refuses."""
    from acl_bridge.models.lowering.helpers import broadcast_shape

    try:
        expected = np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        expected = None
    assert broadcast_shape(tuple(a), tuple(b)) == expected
