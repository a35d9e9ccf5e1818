"""The TFLite runner on ACL (emulated arm64): BlazeFace's outputs against TFLite's
interpreter (where ai-edge-litert installs: Python 3.11, the bookworm image) or else the plan
run by numpy (itself checked against the interpreter on the host), zero copies beyond the
input, the face box on the astronaut photograph, and Arm NN's TfLite parser on CpuAcc."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.apps import blazeface as bf  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402

from .conftest import model_file, photo_file, tolerance  # noqa: E402

pytestmark = pytest.mark.acl


def reference(path, plan, x):
    """(outputs, oracle name): TFLite's interpreter where it installs, else the numpy plan."""
    try:
        import ai_edge_litert.interpreter  # noqa: F401
    except ImportError:
        return run_plan(plan, x), "numpy plan (no TFLite interpreter for this Python)"
    from .conftest import interpreter_outputs

    return interpreter_outputs(path, x), "TFLite interpreter (ai-edge-litert)"


@pytest.fixture(scope="module")
def front(front_path):
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    r = TfliteRunner(front_path)
    yield r
    r.close()


def test_front_model_matches_the_reference_with_no_copy_beyond_the_input(front, front_path, astronaut_input):
    _, x, _ = astronaut_input
    rng = np.random.default_rng(3)
    for inp in (x, rng.uniform(-1, 1, x.shape).astype(np.float32)):
        got = {k: v.copy() for k, v in front.run(inp).items()}
        ref, oracle = reference(front_path, front.plan, inp)
        for k in ("regressors", "classificators"):
            err = float(np.abs(got[k] - ref[k]).max())
            assert err <= tolerance(ref[k]), f"{k}: max difference {err} from the {oracle}"
    print(f"oracle: {oracle}; {front.summary()}")
    assert front.staged() == []
    c = front.copied_bytes_per_inference
    assert c == {"input": 128 * 128 * 3 * 4, "staged": 0, "copy_steps": 0, "total": 128 * 128 * 3 * 4}


def test_buffers_have_the_union_of_the_padding_every_function_asked_for(front):
    for f in front.functions:
        for role, a in f.arrays.items():
            if a is not None and role not in ("weights", "bias"):
                from acl_bridge.mapping import acl_layout_padding, tensor_info

                need = f.padding[role]
                if any(need.as_tuple()):
                    have = acl_layout_padding(a, tensor_info(a, "NHWC"))
                    assert have is not None and have.covers(need), (f, role, need, have)


def test_run_many_on_the_same_buffers(front, astronaut_input):
    _, x, _ = astronaut_input
    first = {k: v.copy() for k, v in front.run(x).items()}
    front.run(np.zeros_like(x))
    again = front.run(x)
    for k in first:
        assert np.array_equal(first[k], again[k])


def test_astronaut_face_matches_the_reference_box(front, front_path, astronaut_input):
    img, x, box = astronaut_input
    o = bf.MODELS["face_detection_front"]
    got = front.run(x)
    dets = bf.detect(got["regressors"], got["classificators"], o)
    ref, oracle = reference(front_path, front.plan, x)
    want = bf.detect(ref["regressors"], ref["classificators"], o)
    assert len(dets) == len(want) == 1
    assert bf.iou(dets[0].box, want[0].box) >= 0.9, oracle


def test_input_written_in_place_needs_no_copy(front, astronaut_input):
    _, x, _ = astronaut_input
    want = {k: v.copy() for k, v in front.run(x).items()}
    front.input_array.numpy()[...] = 0
    front.input_array.numpy()[...] = x
    got = front.run()
    assert all(np.array_equal(want[k], got[k]) for k in want)


def test_arm_nn_tflite_parser_on_cpuacc(front, front_path, astronaut_input):
    from acl_bridge import armnn

    ok, why = armnn.armnn_available()
    if not ok:
        pytest.skip(why)
    from acl_bridge.models.oracles.armnn_tflite import ArmnnTfliteModel

    _, x, _ = astronaut_input
    try:
        model = ArmnnTfliteModel(front_path)
    except armnn.ArmnnError as e:  # recorded: the exact message of Arm NN's refusal
        pytest.skip(f"Arm NN {armnn.release()} refuses the model: {e}")
    got = model.run(x)
    ours = front.run(x)
    for k in ("regressors", "classificators"):
        ref = got[k].reshape(ours[k].shape)
        assert np.abs(ref - ours[k]).max() <= tolerance(ref), k


@pytest.mark.parametrize("threads, error", [(0, "UnsupportedOptionError"), (65, "UnsupportedOptionError"),
                                            (True, "ArgumentTypeError"), (2.0, "ArgumentTypeError")])
def test_armnn_model_refuses_a_bad_thread_count_or_rounds_with_an_argument_error(front_path, threads, error):
    """Arm NN's options are checked by the library's integer rule: a count outside Arm NN's
    1..64 is an UnsupportedOptionError, a bool or a float an ArgumentTypeError (the integer
    rule), never an ArmnnError (which says Arm NN failed), the field named."""
    from acl_bridge import armnn
    from ndarray import errors

    ok, why = armnn.armnn_available()
    if not ok:
        pytest.skip(why)
    from acl_bridge.models.oracles.armnn_tflite import ArmnnTfliteModel, thread_option_support

    if thread_option_support() is not None:
        pytest.skip(thread_option_support())
    with pytest.raises(getattr(errors, error), match=rf"number_of_threads is {threads!r}"):
        ArmnnTfliteModel(front_path, number_of_threads=threads)
    try:
        model = ArmnnTfliteModel(front_path)
    except armnn.ArmnnError as e:
        pytest.skip(f"Arm NN {armnn.release()} refuses the model: {e}")
    with pytest.raises(ValueError, match="rounds is 0"):
        model.profile(rounds=0)


def test_damaged_models_load_to_our_exception_or_run(front_path):
    """A sample of the host fuzz cases, loaded all the way onto ACL."""
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner
    from ndarray.errors import AclNdarrayError

    from .test_fuzz_reader import mutations

    data = front_path.read_bytes()
    seen = {"ran": 0, "error": 0}
    for what, damaged in list(mutations(data, 300, seed=5))[::25]:
        try:
            with TfliteRunner(damaged) as r:
                r.run(np.zeros(r.input_shape, np.float32))
            seen["ran"] += 1
        except AclNdarrayError:
            seen["error"] += 1
    assert sum(seen.values()) == 12
    print(f"damaged models on ACL: {seen}")


# name: (input side, output names). The back-camera model (256x256) uses the front model's
# operators only; on ACL it cost 53 s of the emulated suite (configure 136 functions, and the
# interpreter's reference kernels), so it is checked on the host (the plan run by numpy
# against the interpreter, tests/models/test_plan.py) and by the detect command on numpy.
OTHER_MODELS = {
    "face_detection_full_range": (192, ("reshaped_regressor_face_4", "reshaped_classifier_face_4")),
    "face_landmark": (192, ("conv2d_20", "conv2d_30")),  # 1404 landmark coordinates, face flag
}


@pytest.fixture(scope="module")
def other_runners():
    """One configured runner per model, shared by this module's tests (configuring a model
    is most of a test's time under emulation); closed at the end."""
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    runners = {}

    def get(name):
        if name not in runners:
            runners[name] = TfliteRunner(model_file(name))
        return runners[name]

    yield get
    for r in runners.values():
        r.close()


@pytest.mark.parametrize("name", sorted(OTHER_MODELS))
def test_other_models_match_the_reference_with_no_copy(name, other_runners):
    """The full-range model (its three RESIZE_BILINEAR on ACL's scale) and the face-landmark
    model (23 PRELU on ACL's PReluLayer)."""
    side, outputs = OTHER_MODELS[name]
    path = model_file(name)
    x = np.random.default_rng(11).uniform(-1, 1, (1, side, side, 3)).astype(np.float32)
    r = other_runners(name)
    got = {k: v.copy() for k, v in r.run(x).items()}
    ref, oracle = reference(path, r.plan, x)
    for k in outputs:
        err = float(np.abs(got[k] - ref[k]).max())
        assert err <= tolerance(ref[k]), f"{k}: max difference {err} from the {oracle}"
        print(f"{name} {k}: max difference {err:.3g} from the {oracle}")
    c = r.copied_bytes_per_inference
    assert (c["staged"], c["copy_steps"]) == (0, 0), r.staged()
    print(r.summary())


def test_face_mesh_on_acl_matches_the_interpreter_on_the_astronaut(front, other_runners):
    """BlazeFace on ACL finds the face, the face mesh on ACL runs on MediaPipe's crop of it:
    the same outputs as TFLite's interpreter on that crop, the nose tip where BlazeFace's is."""
    pytest.importorskip("PIL", reason="Pillow is not installed")
    from .test_face_mesh import check_mesh_on_the_astronaut

    err, nose = check_mesh_on_the_astronaut(other_runners("face_landmark").run, front.run)
    print(f"face mesh on ACL: max difference {err:.3g} from the interpreter; nose tip {nose:.1f} px from BlazeFace's")


def test_full_range_model_finds_the_astronaut_as_the_reference_does(other_runners):
    pytest.importorskip("PIL", reason="Pillow is not installed")
    from acl_bridge.models.apps import images

    name = "face_detection_full_range"
    path = model_file(name)
    o = bf.MODELS[name]
    x, _ = images.model_input(images.load_rgb(photo_file()), o.anchors.input_size)
    regressor, classifier = OTHER_MODELS[name][1]
    r = other_runners(name)
    got = r.run(x)
    dets = bf.detect(got[regressor], got[classifier], o)
    ref, oracle = reference(path, r.plan, x)
    want = bf.detect(ref[regressor], ref[classifier], o)
    assert len(dets) == len(want) == 1, (dets, want)
    score = bf.iou(dets[0].box, want[0].box)
    print(f"full range: score {dets[0].score:.3f}, IoU {score:.4f} with the {oracle}")
    assert score >= 0.9, oracle
