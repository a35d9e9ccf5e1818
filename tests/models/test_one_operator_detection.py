"""``TFLite_Detection_PostProcess`` (SSD models' custom operator) on the CPU fallback (host):
one-operator models written with the ``tflite`` builders (tests/models/detection_tflite.py),
their flexbuffer options read by acl_bridge.models.format.detection_options, run by the
numpy kernel (acl_bridge/models/fallback/detection.py) and compared element by element with
TFLite's interpreter (ai-edge-litert registers the operator): fast NMS with one and several
classes per detection, regular NMS, without a background column, uint8 and int8 inputs, heavy
suppression, fewer boxes than max_detections above the threshold. The rows TFLite writes are
compared (its fast NMS leaves the rest unwritten; ours are zero); options TFLite's kernel
cannot take are refused at load naming the field."""

import dataclasses

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")
pytest.importorskip("flatbuffers.flexbuffers", reason="the flatbuffers package is not installed")

from acl_bridge.models.format.detection_options import detection_options  # noqa: E402
from acl_bridge.models.format.tflite_reader import ModelFormatError, UnsupportedModelError, read_model  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402

from . import detection_tflite as D  # noqa: E402
from .conftest import host_only_under_emulation, interpreter  # noqa: E402

pytestmark = host_only_under_emulation

CASES = {  # id: (anchors, classes, options, background column, seed)
    "fast-1class": (12, 3, dict(), True, 0),
    "fast-2classes": (12, 3, dict(max_classes_per_detection=2), True, 1),
    "fast-more_classes_than_there_are": (9, 1, dict(max_classes_per_detection=2, num_classes=1), True, 2),
    "fast-no_background": (12, 3, dict(), False, 3),
    "fast-heavy_suppression": (16, 2, dict(max_detections=8, nms_iou_threshold=0.05, num_classes=2), True, 4),
    "fast-few_above_threshold": (12, 3, dict(max_detections=6, nms_score_threshold=0.9), True, 5),
    "regular": (12, 3, dict(use_regular_nms=True), True, 6),
    "regular-2_per_class": (16, 3, dict(use_regular_nms=True, detections_per_class=2, max_detections=5), True, 7),
    "regular-no_background": (10, 2, dict(use_regular_nms=True, num_classes=2, max_detections=6), False, 8),
}
OPCODES = (D.OPCODE,)  # the opcodes whose one-operator cases are here (test_one_operator's coverage)
# what the lowering rule leaves to the fallback (ACL's function differs there)
ON_FALLBACK = {"fast-2classes", "fast-more_classes_than_there_are", "fast-no_background", "regular-no_background"}


def tflite_run(data: bytes, values):
    it = interpreter(data)
    for d, v in zip(it.get_input_details(), values):
        it.set_tensor(d["index"], v)
    it.invoke()
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]


def fallback_run(data: bytes, values):
    """The fallback kernel's outputs (the operator refused as ACL would refuse it)."""
    plan = plan_model(read_model(data), fallback=True, acl_refused={0: "refused here to run the fallback"})
    assert [f.opcode for f in plan.fallbacks] == [D.OPCODE]
    return list(run_plan(plan, list(values)).values())


def lowered_run(data: bytes, values):
    """The lowered plan's outputs (its ``detection_post_process`` step on numpy), or None where
    the rule leaves the operator to the fallback."""
    plan = plan_model(read_model(data), fallback=True)
    if plan.fallbacks:
        return None
    assert [s.kind for s in plan.steps] == ["detection_post_process"]
    return list(run_plan(plan, list(values)).values())


def written_rows(outputs, per_detection: int, classes: int = 1):
    """The rows TFLite writes: per detection the first min(max_classes_per_detection,
    num_classes) of its max_classes_per_detection rows."""
    rows = [k * per_detection + c for k in range(int(outputs[3][0])) for c in range(min(per_detection, classes))]
    return [outputs[0][:, rows], outputs[1][:, rows], outputs[2][:, rows], outputs[3]]


@pytest.mark.parametrize("name", sorted(CASES))
def test_fallback_kernel_equals_tflite(name):
    n, classes, kw, background, seed = CASES[name]
    kw = dict(dict(num_classes=classes), **kw)
    per = kw.get("max_classes_per_detection", 1)
    m = kw.get("max_detections", 4) * per
    data = D.model(n, classes, D.options(**kw), m, background)
    values = D.inputs(n, classes, seed, background)
    ref = tflite_run(data, values)
    assert ref[3][0] >= 1
    lowered = lowered_run(data, values)
    assert (lowered is None) == (name in ON_FALLBACK)
    for got in (fallback_run(data, values), lowered):
        if got is None:
            continue
        for r, g in zip(written_rows(ref, per, kw["num_classes"]), written_rows(got, per, kw["num_classes"])):
            np.testing.assert_array_equal(g, r)
        written = {k * per + c for k in range(int(got[3][0])) for c in range(min(per, kw["num_classes"]))}
        for g in got[:3]:  # every other row: zero
            assert not g[:, [r for r in range(m) if r not in written]].any()


def test_the_lowered_step_binds_to_the_bridge_function(monkeypatch):
    """The step's four outputs and options reach DetectionPostProcess in its role order."""
    from acl_bridge.models.runtime.step_calls import tensor_ids

    from .test_plan import assert_steps_bind

    data = D.model(12, 3, D.options(use_regular_nms=True, detections_per_class=3), 4)
    plan = plan_model(read_model(data))
    (step,) = plan.steps
    assert list(tensor_ids(step)) == [0, 1, None, 3, 4, 5, 6] and step.written == (3, 4, 5, 6)
    assert dict(step.params)["scales"] == (10.0, 10.0, 5.0, 5.0) and dict(step.constants)["anchors"].shape == (12, 4)
    assert_steps_bind(plan, monkeypatch)
    # the plan cache keeps the step's four outputs
    from acl_bridge.models.planning import plan_cache

    kept = plan_cache.decode(plan_cache.encode(plan, {"model": "detection"}), {"model": "detection"})
    assert plan_cache.same_plan(plan, kept) and kept.steps[0].written == (3, 4, 5, 6)


# uint8 models (quantized SSDs: box encodings, class scores and anchors uint8, outputs float32):
# id: (anchors, classes, options, seed); the quantization of every row: Q. "uint8-tail": 13 x 4
# class scores, 52 = 6 x 8 + 4: TFLite's vectorised Dequantize rounds the last 4 (the last
# anchor's) as (q - zero point) x scale, the blocks of 8 as q x scale - zero point x scale
UINT8_CASES = {
    "uint8-fast": (12, 3, dict(), 9),
    "uint8-regular": (16, 3, dict(use_regular_nms=True, detections_per_class=2, max_detections=5), 10),
    "uint8-tail": (13, 3, dict(max_detections=13, nms_iou_threshold=1.0, nms_score_threshold=0.0), 9),
}
Q = {"boxes": ([0.05], [128]), "scores": ([1 / 250], [2]), "anchors": ([1 / 128], [0])}
# measured: the lowered step's output scores one float32 step from TFLite's (its dequantization)
UINT8_SCORES_ONE_STEP_APART = {"uint8-fast": 1, "uint8-regular": 3, "uint8-tail": 5}
# int8 models (QASYMM8_SIGNED), every zero point nonzero; "int8-regular" has 13 x 4 scores too
INT8_CASES = {
    "int8-fast": (12, 3, dict(), 0),
    "int8-regular": (13, 3, dict(use_regular_nms=True, detections_per_class=2, max_detections=5), 1),
}
QI = {"boxes": ([0.05], [-3]), "scores": ([1 / 250], [-126]), "anchors": ([1 / 128], [-128])}


def quantized_case(name: str, dequantize_first: bool = False):
    """(model, quantized inputs, options) of a UINT8_CASES (quantized by Q) or INT8_CASES (by
    QI) row: the float inputs of detection_tflite.inputs quantized (distinct scores stay
    distinct: 250 / (n x (classes + 1)) > 1 step apart); ``dequantize_first``: the model with
    DEQUANTIZE operators before a float32 detection operator."""
    dtype, q, (n, classes, kw, seed) = (("uint8", Q, UINT8_CASES[name]) if name in UINT8_CASES
                                        else ("int8", QI, INT8_CASES[name]))
    kw = dict(dict(num_classes=classes), **kw)
    data = D.model(n, classes, D.options(**kw), kw.get("max_detections", 4), quantization=q, dtype=dtype,
                   dequantize_first=dequantize_first)
    codes, scores = D.inputs(n, classes, seed)
    info = np.iinfo(dtype)
    quantized = [np.clip(np.round(v / q[k][0][0]) + q[k][1][0], info.min, info.max).astype(dtype)
                 for k, v in (("boxes", codes), ("scores", scores))]
    assert len(np.unique(quantized[1])) == quantized[1].size
    return data, quantized, kw


@pytest.mark.parametrize("name", sorted(UINT8_CASES))
def test_uint8_inputs_lowered_and_on_the_fallback_equal_tflite(name):
    """The rule lowers uint8 models (ACL's QASYMM8 detection post-process). The fallback kernel
    equals TFLite's interpreter on the rows it writes; the lowered step (ACL's dequantization
    of the scores, (q - zero point) x scale, where TFLite computes q x scale - zero point x
    scale in blocks of 8) too, its scores within one float32 step: the same detections,
    classes and boxes."""
    data, values, kw = quantized_case(name)
    plan = plan_model(read_model(data), fallback=True)
    assert plan.fallbacks == () and [s.kind for s in plan.steps] == ["detection_post_process"]
    (step,) = plan.steps
    assert dict(dict(step.params)["quantization"]) == {
        "box_encodings": (float(np.float32(0.05)), 128), "class_scores": (float(np.float32(1 / 250)), 2),
        "anchors": (float(np.float32(1 / 128)), 0)}
    assert dict(step.constants)["anchors"].dtype == np.uint8  # as stored: ACL dequantizes it
    ref = tflite_run(data, values)
    assert ref[3][0] >= 2
    lowered, fallback = list(run_plan(plan, list(values)).values()), fallback_run(data, values)
    for r, g in zip(written_rows(ref, 1), written_rows(fallback, 1)):
        np.testing.assert_array_equal(g, r)
    want, got = written_rows(ref, 1), written_rows(lowered, 1)
    for k in (0, 1, 3):
        np.testing.assert_array_equal(got[k], want[k])
    np.testing.assert_array_max_ulp(got[2], want[2], maxulp=1)
    assert (got[2] != want[2]).sum() == UINT8_SCORES_ONE_STEP_APART[name]
    for out in (lowered, fallback):
        assert not out[0][:, int(out[3][0]):].any() and not out[2][:, int(out[3][0]):].any()


def test_the_uint8_tail_of_the_class_scores_is_dequantized_as_tflite_does():
    """Where the flattened scores' size is no multiple of 8, TFLite dequantizes their last
    size % 8 values as (q - zero point) x scale, the rest as q x scale - zero point x scale:
    the fallback's dequantization of the 13 x 4 scores of "uint8-tail" equals neither formula
    alone, and the case above shows the detection's scores equal TFLite's."""
    from acl_bridge.models.fallback.detection import dequantized

    _, (_, scores), _ = quantized_case("uint8-tail")
    q = (Q["scores"][0][0], Q["scores"][1][0])
    got = dequantized(scores, q, vectorised=True).reshape(-1)
    s, z = np.float32(q[0]), np.float32(q[1])
    flat = scores.reshape(-1).astype(np.float32)
    np.testing.assert_array_equal(got[:48], flat[:48] * s - z * s)
    np.testing.assert_array_equal(got[48:], (flat[48:] - z) * s)
    assert (got != flat * s - z * s).any() and (got != (flat - z) * s).any()


@pytest.mark.parametrize("name", sorted(INT8_CASES))
def test_int8_inputs_lowered_and_on_the_fallback_equal_tflite_dequantizing_first(name):
    """int8 inputs (ACL's QASYMM8_SIGNED): TFLite's detection kernel refuses them at invoke, so
    the reference is the converter's form of the same model, DEQUANTIZE (int8 -> float32,
    (q - zero point) x scale on TFLite's default and reference kernels) into the float32
    operator. The fallback kernel and the lowered step (ACL's dequantization, the same formula)
    equal it bit for bit on the rows TFLite writes; every other row zero."""
    data, values, kw = quantized_case(name)
    with pytest.raises(RuntimeError, match=r"TFLite_Detection_PostProcess\) failed to invoke"):
        tflite_run(data, values)
    ref = tflite_run(quantized_case(name, dequantize_first=True)[0], values)
    assert ref[3][0] >= 2
    plan = plan_model(read_model(data), fallback=True)
    assert plan.fallbacks == () and [s.kind for s in plan.steps] == ["detection_post_process"]
    (step,) = plan.steps
    assert dict(dict(step.params)["quantization"]) == {
        r: (float(np.float32(QI[k][0][0])), QI[k][1][0])
        for r, k in (("box_encodings", "boxes"), ("class_scores", "scores"), ("anchors", "anchors"))}
    assert dict(step.constants)["anchors"].dtype == np.int8  # as stored: ACL dequantizes it
    m = kw.get("max_detections", 4)
    for got in (list(run_plan(plan, list(values)).values()), fallback_run(data, values)):
        for r, g in zip(written_rows(ref, 1), written_rows(got, 1)):
            np.testing.assert_array_equal(g, r)
        count = int(got[3][0])
        assert not got[0][:, count:m].any() and not got[1][:, count:m].any() and not got[2][:, count:m].any()


def test_mixed_input_types_are_refused_naming_them():
    from acl_bridge.models.lowering.rules.table import rule_for

    gate = rule_for(D.OPCODE).tensors
    # uint8 codes with float32 scores: mixed types
    model = read_model(D.model(6, 3, D.options(), 4, quantization=Q, dtype="uint8"))
    scores = dataclasses.replace(model.tensors[1], dtype=np.dtype(np.float32), quantization=None)
    model = dataclasses.replace(model, tensors=(model.tensors[0], scores) + tuple(model.tensors[2:]))
    with pytest.raises(UnsupportedModelError, match=r"tensor types #0 uint8, #1 float32, #2 uint8"):
        gate(model.operators[0], model)
    # int8 codes and scores with uint8 anchors
    model = read_model(D.model(6, 3, D.options(), 4, quantization=QI, dtype="int8"))
    anchors = dataclasses.replace(model.tensors[2], dtype=np.dtype(np.uint8))
    model = dataclasses.replace(model, tensors=tuple(model.tensors[:2]) + (anchors,) + tuple(model.tensors[3:]))
    with pytest.raises(UnsupportedModelError, match=r"tensor types #0 int8, #1 int8, #2 uint8"):
        gate(model.operators[0], model)


def test_options_are_read_from_the_flexbuffer_map():
    data = D.model(4, 2, D.options(max_detections=2, num_classes=2, use_regular_nms=True, detections_per_class=7,
                                   nms_iou_threshold=0.25, y_scale=8.0), 2)
    opts = detection_options(read_model(data).operators[0])
    assert (opts.max_detections, opts.num_classes, opts.use_regular_nms, opts.detections_per_class) == (2, 2, True, 7)
    assert (opts.nms_iou_threshold, opts.y_scale, opts.x_scale, opts.h_scale, opts.w_scale) == (0.25, 8.0, 10.0, 5.0, 5.0)
    # TFLite's defaults where the map has no entry
    opts = detection_options(read_model(D.model(4, 2, D.options(num_classes=2), 4)).operators[0])
    assert (opts.use_regular_nms, opts.detections_per_class) == (False, 100)


@pytest.mark.parametrize("kw, m, message", [
    (dict(nms_iou_threshold=0.0), 4, r"custom option 'nms_iou_threshold' is 0.0, expected a value in \(0, 1\]"),
    (dict(max_detections=0), 0, r"custom option 'max_detections' is 0, expected >= 1"),
    (dict(h_scale=0.0), 4, r"custom option 'h_scale' is 0, expected a non-zero scale"),
    (dict(num_classes=5), 4, r"class scores \[1, 6, 4\], expected \[1, 6, 5 or 6\]"),
    (dict(), 3, r"output shapes .*, expected \[\[1, 4, 4\], \[1, 4\], \[1, 4\], \[1\]\]"),
], ids=["iou", "max_detections", "h_scale", "num_classes", "output_shape"])
def test_options_and_shapes_tflite_cannot_take_are_refused_at_load(kw, m, message):
    """Malformed for the rule (ModelFormatError, never a fallback); the fallback kernel refuses
    them too (UnsupportedModelError at load)."""
    data = D.model(6, 3, D.options(**kw), m)
    with pytest.raises(ModelFormatError, match=message):
        plan_model(read_model(data), fallback=True)
    with pytest.raises(UnsupportedModelError, match=message):
        plan_model(read_model(data), fallback=True, acl_refused={0: "refused here to run the fallback"})


def test_custom_options_that_are_no_flexbuffer_map_are_refused():
    data = D.model(6, 3, b"\x01\x02\x03", 4)
    with pytest.raises(ModelFormatError, match=r"custom_options \(3 bytes\) are not a flexbuffer map"):
        plan_model(read_model(data), fallback=True)
