"""``acl_bridge.interpreter.Interpreter`` on ACL (emulated arm64): the host test's call
sequence (tests/models/test_interpreter.py) with ``backend="neon"``, against the same class on
``backend="numpy"`` (the numpy kernels: TFLite's reference arithmetic, checked against TFLite
on the host): a face model within the float tolerance, an int8 model bit for bit (the alexa
spotter: bit for bit with TFLite's arithmetic on 20.08 and 24.11, test_int8_models_acl.py);
the same details, the same exception classes; ``tensor()`` a view of the ACL runner's own
(padded) buffer."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge import interpreter as ours  # noqa: E402

from .conftest import model_file  # noqa: E402
from .test_interpreter import _Spec, same_details, same_outputs, sequence  # noqa: E402
from .test_mltk_models import noise  # noqa: E402

pytestmark = pytest.mark.acl


@pytest.mark.parametrize("name", ["face_detection_front", "keyword_spotting_alexa"])
def test_the_same_calls_on_acl_give_what_numpy_gives(name):
    path = model_file(name)
    inputs = [noise(_Spec(d), seed) for seed, d in enumerate(ours.Interpreter(model_path=str(path)).get_input_details())]
    acl, it = sequence(ours.Interpreter, path, inputs, backend="neon")
    ref, _ = sequence(ours.Interpreter, path, inputs, backend="numpy")
    assert it.runner.backend.name == "neon" and type(it.runner).__name__ == "TfliteRunner"
    for key in ("input_details", "output_details", "tensor_details", "signatures"):
        same_details(ref[key], acl[key], key)
    assert {k: v[0] for k, v in acl["errors"].items()} == {k: v[0] for k, v in ref["errors"].items()}
    assert all(classes for classes, _ in acl["errors"].values()), acl["errors"]
    assert acl["get_tensor is a copy"]
    same_outputs(ref["outputs"], acl["outputs"], name)
    # tensor(): the elements of the runner's own buffer (padded or not), written in place, no copy
    i = acl["input_details"][0]["index"]
    buffer = it.runner.arrays[i]
    view = it.tensor(i)()
    assert np.shares_memory(view, buffer.allocation) and view.shape == tuple(acl["input_details"][0]["shape"])
    assert view.strides == buffer.numpy().strides
    view[...] = inputs[0]
    del view
    it.invoke()
    for d in acl["output_details"]:
        np.testing.assert_array_equal(it.get_tensor(d["index"]), acl["outputs"][d["name"]])
