"""``classify``: pixels to model input (float and int8), scores from float and int8 outputs,
and the published classifiers on the astronaut photograph through TFLite's own interpreter
(the oracle) and through the bridge's plan."""

import json

import numpy as np
import pytest

from acl_bridge.models.apps import classify as C
from ndarray.errors import UnsupportedOptionError

from .conftest import interpreter_outputs, model_file, photo_file


def test_quantize_rounds_half_away_from_zero_and_clamps_like_tflite():
    real = np.array([-1.5, -0.5, 0.5, 1.5, 2.5, 1000.0, -1000.0])
    assert C.quantize(real, 1.0, 0, np.dtype(np.int8)).tolist() == [-2, -1, 1, 2, 3, 127, -128]
    assert C.quantize(real, 0.5, -128, np.dtype(np.int8)).tolist() == [-128, -128, -127, -125, -123, 127, -128]
    assert C.quantize(np.array([0.25]), 0.5, 3, np.dtype(np.uint8)).tolist() == [4]


def test_scores_dequantize_int8_outputs_and_sort_best_first():
    s = C.scores(np.array([[-128, 127, 0]], np.int8), (1 / 256, -128), ("a", "b", "c"))
    assert [x.label for x in s] == ["b", "c", "a"]
    assert [x.score for x in s] == [255 / 256, 128 / 256, 0.0]
    s = C.scores(np.array([[0.25, 0.75]], np.float32), None, ("x", "y"))
    assert [(x.label, x.score) for x in s] == [("y", 0.75), ("x", 0.25)]


def test_scores_refuse_a_label_count_other_than_the_output_size():
    with pytest.raises(UnsupportedOptionError, match="gives 3 scores, the classifier has 2 labels"):
        C.scores(np.zeros((1, 3), np.float32), None, ("a", "b"))
    with pytest.raises(UnsupportedOptionError, match="without quantization"):
        C.scores(np.zeros((1, 2), np.int8), None, ("a", "b"))


def test_model_input_scales_and_quantizes_pixels():
    Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
    img = Image.new("RGB", (8, 8), (0, 128, 255))
    cifar = C.CLASSIFIERS["image_classification"]
    x = C.model_input(img, (1, 4, 4, 3), np.dtype(np.int8), (1 / 128, 0), cifar)
    assert x.dtype == np.int8 and x.shape == (1, 4, 4, 3)
    assert (x[..., 0] == -128).all() and (x[..., 1] == 0).all() and (x[..., 2] == 127).all()
    f = C.model_input(img, (1, 2, 2, 3), np.dtype(np.float32), None, C.CLASSIFIERS["visual_wake_words"])
    assert f.dtype == np.float32 and (f[..., 2] == 255).all()
    with pytest.raises(UnsupportedOptionError, match=r"1xHxWx3 image input, this one has \[1, 4, 4\]"):
        C.model_input(img, (1, 4, 4), np.dtype(np.float32), None, cifar)


def test_classifier_names_are_checked():
    with pytest.raises(UnsupportedOptionError, match="expected one of"):
        C.classifier_named("mobilenet")


def _interpreter_run(path, reference=False):
    return lambda x: interpreter_outputs(path, x, reference=reference)


@pytest.mark.parametrize("name,top", [("visual_wake_words", "person")])
def test_published_classifier_on_the_astronaut_through_tflite(name, top):
    pytest.importorskip("PIL", reason="Pillow is not installed")
    from acl_bridge.models.apps import images
    from acl_bridge.models.format.tflite_reader import read_model

    path = model_file(name)

    class _Plan:  # classify needs only the model's tensors
        model = read_model(path)

    s = C.classify(images.load_rgb(photo_file()), _interpreter_run(path), _Plan, C.CLASSIFIERS[name])
    assert s[0].label == top and s[0].score > 0.6
    assert abs(sum(x.score for x in s) - 1.0) < 0.02  # softmax, dequantized (1/256 steps)


def test_classify_command_on_the_numpy_plan_agrees_with_tflite(capsys):
    """The command on the bridge's plan run by numpy: the same scores as TFLite's reference
    kernels, bit for bit; the same top class as its default kernels (which round some int8
    products differently: 10 output steps apart from its own reference kernels here)."""
    pytest.importorskip("PIL", reason="Pillow is not installed")
    from acl_bridge.cli import main
    from acl_bridge.models.apps import images
    from acl_bridge.models.format.tflite_reader import read_model

    path, photo = model_file("visual_wake_words"), photo_file()
    assert main(["classify", str(photo), "--backend", "numpy", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)

    class _Plan:
        model = read_model(path)

    picture, vww = images.load_rgb(photo), C.CLASSIFIERS["visual_wake_words"]
    exact = C.classify(picture, _interpreter_run(path, reference=True), _Plan, vww)
    assert [(r["label"], r["score"]) for r in got] == [(r.label, r.score) for r in exact]
    default = C.classify(picture, _interpreter_run(path), _Plan, vww)
    assert got[0]["label"] == default[0].label == "person"
