"""Fixtures of the model tests: the cached models and photograph (fetched by
``python -m acl_bridge.models.apps.fetch``; absent: the tests skip saying so), TFLite's
interpreter (ai-edge-litert; absent, e.g. on Python 3.13: the tests that need it skip)."""

import os

import numpy as np
import pytest

from acl_bridge.models.apps import fetch


# Under emulation (docker/inside.sh sets HYPOTHESIS_PROFILE=emulated) checks that run no ACL
# and are costly there are left to the host: numpy against TFLite's interpreter on the larger
# models and one-operator models, the int8 checks (ai-edge-litert 2.x dies loading int8
# models under emulation), the fuzzing of the larger model; the front model keeps its
# pure checks under emulation, and every operator's ACL binding runs there.
host_only_under_emulation = pytest.mark.skipif(
    os.environ.get("HYPOTHESIS_PROFILE") == "emulated",
    reason="no ACL in it: checked by the host stage (numpy and TFLite there; ACL in the acl tests here)")


def model_file(name: str):
    try:
        return fetch.model_path(name)
    except fetch.FetchError as e:
        pytest.skip(str(e))


def photo_file():
    try:
        return fetch.photo_path()
    except fetch.FetchError as e:
        pytest.skip(str(e))


def interpreter(model):
    """TFLite's own interpreter for ``model`` (path or bytes), tensors allocated
    (``acl_bridge.models.oracles.tflite_oracle``: reference kernels on ai-edge-litert 2.x)."""
    pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")
    from acl_bridge.models.oracles.tflite_oracle import InterpreterUnavailable, interpreter as make

    try:
        return make(model)[0]
    except InterpreterUnavailable as e:
        pytest.skip(str(e))


def interpreter_outputs(model, x: np.ndarray, reference: bool = False):
    """TFLite's own interpreter on ``x``: outputs by tensor name (``reference``: its
    reference kernels on every version)."""
    pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")
    from acl_bridge.models.oracles.tflite_oracle import InterpreterUnavailable, runner

    try:
        return runner(model, reference=reference)[0](x)
    except InterpreterUnavailable as e:
        pytest.skip(str(e))


def tolerance(ref: np.ndarray) -> float:
    """Stated tolerance for float32 runtimes against each other: 1e-4 + 1e-5 x max|ref|
    (BlazeFace's raw outputs reach ~150; float32 sums of ~2000 products differ by order)."""
    return 1e-4 + 1e-5 * float(np.abs(ref).max())


@pytest.fixture(scope="session")
def front_path():
    return model_file("face_detection_front")


@pytest.fixture(scope="session")
def astronaut_input():
    pytest.importorskip("PIL", reason="Pillow is not installed")
    from acl_bridge.models.apps import images

    img = images.load_rgb(photo_file())
    x, box = images.model_input(img, (128, 128))
    return img, x, box
