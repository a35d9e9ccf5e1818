"""Anchors, decoding and NMS against MediaPipe's published scheme, and the face found on
scikit-image's astronaut photograph."""

import numpy as np
import pytest

from acl_bridge.models.apps import blazeface as bf


@pytest.mark.parametrize("name, count, per_cell", [
    ("face_detection_front", 896, (2, 6)), ("face_detection_back", 896, (2, 6)), ("face_detection_full_range", 2304, (1,)),
])
def test_anchor_counts_follow_the_published_options(name, count, per_cell):
    o = bf.MODELS[name].anchors
    a = bf.ssd_anchors(o)
    assert a.shape == (count, 4)
    assert np.all(a[:, 2:] == 1.0)  # fixed_anchor_size
    assert np.all((a[:, :2] > 0) & (a[:, :2] < 1))


def test_front_anchor_centres():
    a = bf.ssd_anchors(bf.MODELS["face_detection_front"].anchors)
    # stride 8 on 128: 16x16 cells, two anchors each, centre (x + 0.5) / 16, x fastest
    assert np.allclose(a[0, :2], [0.5 / 16, 0.5 / 16]) and np.allclose(a[1, :2], a[0, :2])
    assert np.allclose(a[2, :2], [1.5 / 16, 0.5 / 16])
    assert np.allclose(a[2 * 16, :2], [0.5 / 16, 1.5 / 16])
    # then stride 16 (three layers): 8x8 cells, six anchors each
    assert np.allclose(a[512:518, :2], [[0.5 / 8, 0.5 / 8]] * 6)
    assert np.allclose(a[-1, :2], [7.5 / 8, 7.5 / 8])


def test_decode_of_zero_regressors_is_the_anchor():
    o = bf.MODELS["face_detection_front"]
    a = bf.ssd_anchors(o.anchors)
    boxes, kp, s = bf.decode(np.zeros((1, 896, 16)), np.zeros((1, 896, 1)), o)
    assert np.allclose(boxes[:, 0], a[:, 0]) and np.allclose(boxes[:, 2], a[:, 0])
    assert np.allclose(kp[:, :, 0], a[:, :1]) and np.allclose(s, 0.5)
    raw = np.zeros((1, 896, 16))
    raw[0, 5, :4] = [12.8, -6.4, 32, 64]  # 0.1 and -0.05 of 128 px, width 0.25, height 0.5
    boxes, _, _ = bf.decode(raw, np.zeros((1, 896, 1)), o)
    cx, cy = a[5, 0] + 0.1, a[5, 1] - 0.05
    assert np.allclose(boxes[5], [cx - 0.125, cy - 0.25, cx + 0.125, cy + 0.25])


def test_scores_are_clipped_before_the_sigmoid():
    o = bf.MODELS["face_detection_front"]
    _, _, s = bf.decode(np.zeros((896, 16)), np.full(896, -1e6), o)
    assert np.all(s > 0) and np.all(np.isfinite(s))


def test_iou():
    assert bf.iou((0, 0, 2, 2), (1, 1, 3, 3)) == pytest.approx(1 / 7)
    assert bf.iou((0, 0, 1, 1), (2, 2, 3, 3)) == 0.0
    assert bf.iou((0, 0, 1, 1), (0, 0, 1, 1)) == 1.0


def test_weighted_nms_merges_a_cluster_plain_keeps_the_best():
    boxes = np.array([[0, 0, 1, 1], [0.1, 0, 1.1, 1], [5, 5, 6, 6]], float)
    kp = np.zeros((3, 6, 2))
    scores = np.array([0.6, 0.9, 0.7])
    w = bf.non_maximum_suppression(boxes, kp, scores, 0.3, weighted=True)
    assert [d.score for d in w] == [0.9, 0.7]
    assert w[0].box[0] == pytest.approx((0.6 * 0 + 0.9 * 0.1) / 1.5)
    p = bf.non_maximum_suppression(boxes, kp, scores, 0.3, weighted=False)
    assert [d.box for d in p] == [(0.1, 0, 1.1, 1), (5, 5, 6, 6)]


def test_scaled_undoes_the_letterbox():
    d = bf.Detection(1.0, (0.25, 0.5, 0.75, 0.75), ((0.5, 0.5),))
    s = d.scaled(200, 100, (0.0, 0.25, 0.0, 0.25))  # 200x100 picture in the middle half of the square
    assert s.box == pytest.approx((50, 50, 150, 100)) and s.keypoints[0] == pytest.approx((100, 50))


def test_the_astronaut_face_from_the_plan_agrees_with_the_interpreter(front_path, astronaut_input):
    pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
    from acl_bridge.models.planning.numpy_executor import run_plan
    from acl_bridge.models.planning.tflite_plan import plan_model
    from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model

    from .conftest import interpreter_outputs

    img, x, box = astronaut_input
    o = bf.MODELS["face_detection_front"]
    out = interpreter_outputs(front_path, x)
    ref = bf.detect(out["regressors"], out["classificators"], o)
    got = run_plan(plan_model(fold_constant_dequantize(read_model(front_path))), x)
    dets = bf.detect(got["regressors"], got["classificators"], o)
    assert len(ref) == len(dets) == 1
    assert bf.iou(ref[0].box, dets[0].box) >= 0.9 and abs(ref[0].score - dets[0].score) < 1e-3
    px = dets[0].scaled(*img.size, box.as_tuple()).box
    # the face of the astronaut (512x512): around x 177-272, y 80-175
    assert 150 < px[0] < 200 and 60 < px[1] < 100 and 250 < px[2] < 300 and 150 < px[3] < 200


def test_split_outputs_by_values_per_anchor_whatever_the_names():
    from acl_bridge.models.format.tflite_reader import UnsupportedModelError

    r, c = np.zeros((1, 2304, 16)), np.zeros((1, 2304, 1))
    got = bf.split_outputs({"reshaped_classifier_face_4": c, "reshaped_regressor_face_4": r})
    assert got[0] is r and got[1] is c
    with pytest.raises(UnsupportedModelError, match=r"a BlazeFace model has 2 outputs .* this one has \['a'\]"):
        bf.split_outputs({"a": r})
