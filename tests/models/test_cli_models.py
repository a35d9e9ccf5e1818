"""`python -m acl_bridge detect` and `run-tflite` (numpy backend on the host; the ACL backend
in the emulated images)."""

import json

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("PIL", reason="Pillow is not installed")

from acl_bridge.cli import main  # noqa: E402

from .conftest import host_only_under_emulation, model_file, photo_file  # noqa: E402


def run_cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _backends():
    from acl_bridge import native_available

    ok = native_available()
    return ["numpy", "acl"] if (ok[0] if isinstance(ok, tuple) else ok) else ["numpy"]


@pytest.mark.parametrize("backend", _backends())
def test_detect_json_finds_the_astronaut(backend, capsys, tmp_path):
    model_file("face_detection_front")
    out_png = tmp_path / "boxes.png"
    code, out, err = run_cli(["detect", str(photo_file()), "--json", "--out", str(out_png), "--backend", backend], capsys)
    assert code == 0, err
    faces = json.loads(out)
    assert len(faces) == 1 and set(faces[0]) == {"score", "box"} and faces[0]["score"] > 0.9
    x0, y0, x1, y1 = faces[0]["box"]
    assert 150 < x0 < 200 and 60 < y0 < 100 and 250 < x1 < 300 and 150 < y1 < 200
    from PIL import Image

    with Image.open(out_png) as im:
        assert im.size == (512, 512) and im.format == "PNG"


def test_detect_with_landmarks_lists_and_draws_the_face_mesh(capsys, tmp_path):
    """--landmarks: 468 points per face inside its box's region, drawn on the picture (numpy
    backend here; the mesh on ACL is compared with the interpreter in test_runner_acl)."""
    model_file("face_landmark")
    plain, meshed = tmp_path / "plain.png", tmp_path / "mesh.png"
    code, out, err = run_cli(["detect", str(photo_file()), "--json", "--landmarks", "--out", str(meshed),
                              "--backend", "numpy"], capsys)
    assert code == 0, err
    faces = json.loads(out)
    assert len(faces) == 1 and set(faces[0]) == {"score", "box", "face_score", "landmarks"}
    points = np.array(faces[0]["landmarks"])
    x0, y0, x1, y1 = faces[0]["box"]
    assert points.shape == (468, 3) and faces[0]["face_score"] > 0.5
    assert (x0 - 20 < points[:, 0]).all() and (points[:, 0] < x1 + 20).all() and (y0 - 40 < points[:, 1]).all()
    code, out, err = run_cli(["detect", str(photo_file()), "--out", str(plain), "--backend", "numpy"], capsys)
    from PIL import Image

    with Image.open(meshed) as a, Image.open(plain) as b:
        changed = np.any(np.asarray(a) != np.asarray(b), axis=-1)
    ys, xs = np.nonzero(changed)
    assert changed.sum() > 468 and x0 - 30 < xs.min() and xs.max() < x1 + 30  # the dots, on the face


@host_only_under_emulation
def test_detect_with_the_back_camera_model(capsys):
    model_file("face_detection_back")
    code, out, err = run_cli(["detect", str(photo_file()), "--model", "face_detection_back", "--backend", "numpy"], capsys)
    assert code == 0, err
    assert out.startswith("face 0.8")


# The full-range model on ACL (configure 147 functions: half a minute under emulation) is
# tested once, by tests/models/test_runner_acl.py on the same photograph; the command line's
# ACL path is tested with the front model above. Here: the command's wiring for the model.
def test_detect_with_the_full_range_model(capsys, backend="numpy"):
    """192x192, three RESIZE_BILINEAR; the same face."""
    model_file("face_detection_full_range")
    code, out, err = run_cli(["detect", str(photo_file()), "--model", "face_detection_full_range", "--json",
                              "--backend", backend], capsys)
    assert code == 0, err
    faces = json.loads(out)
    assert len(faces) == 1 and faces[0]["score"] > 0.9
    x0, y0, x1, y1 = faces[0]["box"]
    assert 150 < x0 < 200 and 50 < y0 < 100 and 250 < x1 < 300 and 150 < y1 < 200


@pytest.mark.parametrize("argv, match", [
    (["--model", "nope"], "model is 'nope', expected one of"),
])
def test_detect_refusals_are_one_line_errors(argv, match, capsys):
    model_file("face_detection_full_range")
    code, out, err = run_cli(["detect", str(photo_file()), "--backend", "numpy", *argv], capsys)
    assert code == 1 and match in err and len(err.strip().splitlines()) == 1


def test_detect_unreadable_image(tmp_path, capsys):
    model_file("face_detection_front")
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a picture")
    code, out, err = run_cli(["detect", str(bad), "--backend", "numpy"], capsys)
    assert code == 1 and "ImageError: cannot read image" in err


_RUN_TFLITE_CASES = [  # model, input side, every output by its tensor name in the model -> shape
    ("face_detection_front", 128, {"regressors": (1, 896, 16), "classificators": (1, 896, 1)}),
    ("face_detection_full_range", 192, {"reshaped_regressor_face_4": (1, 2304, 16),
                                        "reshaped_classifier_face_4": (1, 2304, 1)}),
]


@pytest.mark.parametrize("model, side, outputs, backend", [
    (*case, backend) for case in _RUN_TFLITE_CASES
    for backend in (_backends() if case[0] == "face_detection_front" else ["numpy"])])  # see the full-range note above
def test_run_tflite_writes_every_output_by_name(model, side, outputs, backend, tmp_path, capsys):
    path = model_file(model)
    x = np.random.default_rng(1).uniform(-1, 1, (1, side, side, 3)).astype(np.float32)
    np.save(tmp_path / "in.npy", x)
    code, out, err = run_cli(["run-tflite", str(path), str(tmp_path / "in.npy"), "--out", str(tmp_path / "o.npz"),
                              "--backend", backend], capsys)
    assert code == 0, err
    with np.load(tmp_path / "o.npz") as z:
        assert {k: z[k].shape for k in z.files} == outputs


def test_run_tflite_wrong_input_shape(tmp_path, capsys):
    path = model_file("face_detection_front")
    np.save(tmp_path / "in.npy", np.zeros((1, 64, 64, 3), np.float32))
    code, out, err = run_cli(["run-tflite", str(path), str(tmp_path / "in.npy"), "--out", str(tmp_path / "o.npz"),
                              "--backend", "numpy"], capsys)
    assert code == 1 and "the model's input is float32[1, 128, 128, 3]" in err
