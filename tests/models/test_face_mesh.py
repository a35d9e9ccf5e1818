"""MediaPipe's face mesh after BlazeFace (acl_bridge.models.apps.face_mesh): the region-of-interest
geometry against exact cases, and on the astronaut the plan against TFLite's interpreter on
the same crop, with the mesh's nose tip where BlazeFace put its nose keypoint."""

import math

import numpy as np
import pytest

from acl_bridge.models.apps import blazeface as bf
from acl_bridge.models.apps import face_mesh as fm
from acl_bridge.models.apps.images import ImageError

from .conftest import model_file, photo_file, tolerance


def _image(array):
    Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
    return Image.fromarray(array)


def _pattern(size=fm.INPUT_SIZE):
    return np.random.default_rng(5).integers(0, 256, (size, size, 3), dtype=np.uint8)


def test_unrotated_roi_over_the_whole_picture_is_the_picture():
    a = _pattern()
    roi = fm.Roi(cx=96.0, cy=96.0, side=192.0, rotation=0.0)
    x = fm.model_input(_image(a), roi)
    assert x.shape == (1, 192, 192, 3) and x.dtype == np.float32
    np.testing.assert_allclose(x[0] * 255.0, a, atol=1e-3)


def test_quarter_turn_roi_is_numpys_rot90():
    """rotation pi/2: the input's x axis runs down the picture, so the crop is np.rot90
    (within one level: cos(pi/2) is 6e-17, and Pillow rounds its 8-bit result)."""
    a = _pattern()
    x = fm.model_input(_image(a), fm.Roi(96.0, 96.0, 192.0, math.pi / 2))
    np.testing.assert_allclose(x[0] * 255.0, np.rot90(a), atol=1.0 + 1e-3)


def test_points_go_back_through_the_same_map():
    roi = fm.Roi(cx=100.0, cy=50.0, side=60.0, rotation=math.pi / 6)
    corners = np.array([[0, 0, 0], [192, 0, 0], [0, 192, 0], [96, 96, 19.2]], np.float64)
    got = roi.to_picture(corners)
    c, s = math.cos(roi.rotation), math.sin(roi.rotation)
    for (u, v, _), (x, y, _) in zip(corners, got):
        a, b = (u / 192 - 0.5) * 60, (v / 192 - 0.5) * 60
        assert (x, y) == pytest.approx((100 + a * c - b * s, 50 + a * s + b * c))
    assert got[3, :2] == pytest.approx((100.0, 50.0)) and got[3, 2] == pytest.approx(6.0)


def test_roi_is_mediapipes_square_turned_to_the_eyes():
    d = bf.Detection(0.9, (10.0, 20.0, 50.0, 100.0), ((20.0, 40.0), (40.0, 60.0)))
    roi = fm.roi_from_detection(d)
    assert (roi.cx, roi.cy, roi.side) == (30.0, 60.0, 120.0)  # 1.5 x the longer side (80)
    assert roi.rotation == pytest.approx(math.pi / 4)  # left eye 20 px lower: turned 45 degrees


@pytest.mark.parametrize("d, match", [
    (bf.Detection(0.9, (50.0, 20.0, 10.0, 100.0), ((0, 0), (1, 0))), r"detection box is \[50.0, 20.0, 10.0, 100.0\]"),
    (bf.Detection(0.9, (10.0, 20.0, 50.0, 100.0), ()), r"detection has 0 keypoints"),
])
def test_bad_detections_are_refused(d, match):
    with pytest.raises(ImageError, match=match):
        fm.roi_from_detection(d)


def test_wrong_outputs_are_refused():
    roi = fm.Roi(0.0, 0.0, 1.0, 0.0)
    with pytest.raises(ImageError, match="expected 'conv2d_20' and 'conv2d_30'"):
        fm.from_outputs({"regressors": np.zeros(3)}, roi)
    with pytest.raises(ImageError, match="hold 3 and 1 values, expected 1404 and 1"):
        fm.from_outputs({"conv2d_20": np.zeros(3), "conv2d_30": np.zeros(1)}, roi)


def astronaut_face(detector_run):
    """(picture, the one detection in picture pixels) with BlazeFace front run by ``detector_run``."""
    from acl_bridge.models.apps import images

    img = images.load_rgb(photo_file())
    x, box = images.model_input(img, (128, 128))
    found = bf.detect(*bf.split_outputs(detector_run(x)), bf.MODELS["face_detection_front"])
    assert len(found) == 1
    return img, found[0].scaled(img.size[0], img.size[1], box.as_tuple())


def check_mesh_on_the_astronaut(mesh_run, detector_run):
    """The mesh from ``mesh_run`` against the interpreter on the same crop, and its nose
    tip against BlazeFace's nose keypoint; returns the largest difference."""
    from .conftest import interpreter_outputs

    img, d = astronaut_face(detector_run)
    roi = fm.roi_from_detection(d)
    x = fm.model_input(img, roi)
    got = {k: np.array(v) for k, v in mesh_run(x).items()}
    ref = interpreter_outputs(model_file("face_landmark"), x)
    err = 0.0
    for k in (fm.LANDMARKS_OUTPUT, fm.FLAG_OUTPUT):
        err = max(err, float(np.abs(got[k] - ref[k]).max()))
        assert np.abs(got[k] - ref[k]).max() <= tolerance(ref[k]), k
    mesh = fm.from_outputs(got, roi)
    assert mesh.is_face and mesh.points.shape == (468, 3)
    width = d.box[2] - d.box[0]
    nose = fm.nose_offset_px(mesh, d)
    assert nose < 0.1 * width, f"mesh nose tip {mesh.points[fm.MESH_NOSE_TIP, :2]} is {nose:.1f} px from BlazeFace's"
    inside = np.abs(mesh.points[:, :2] - (roi.cx, roi.cy)).max()
    assert inside <= roi.side / math.sqrt(2), "a point outside the region of interest"
    return err, nose


def test_plan_on_the_astronaut_matches_the_interpreter():
    pytest.importorskip("PIL", reason="Pillow is not installed")
    pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
    from acl_bridge.models.apps.cli_commands import make_executor

    mesh_run, _ = make_executor(model_file("face_landmark"), "numpy")
    detector_run, _ = make_executor(model_file("face_detection_front"), "numpy")
    check_mesh_on_the_astronaut(mesh_run, detector_run)
