"""The TFLite runner on ACL's OpenCL backend: MediaPipe's face models (front, back, full range,
face mesh) against TFLite's interpreter (ai-edge-litert, where it is installed; else the numpy
executor of the same plan, which tests/models checks against the interpreter on the host),
with the same buffers as on NEON: every tensor the NdArray's own memory on the device, nothing
staged, only the input copied per inference; plus the CLI's ``--backend cl`` and the error on a
device ACL cannot use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from models.conftest import model_file, photo_file, tolerance  # noqa: E402
from models.test_runner_acl import reference  # noqa: E402  (the interpreter, else the numpy plan)

pytestmark = pytest.mark.cl

# name: (input side, outputs compared)
MODELS = {
    "face_detection_front": (128, ("regressors", "classificators")),
    "face_detection_back": (256, ("regressors", "classificators")),
    "face_detection_full_range": (192, ("reshaped_regressor_face_4", "reshaped_classifier_face_4")),
    "face_landmark": (192, ("conv2d_20", "conv2d_30")),
}


@pytest.fixture(scope="module")
def cl_runner():
    """One CL runner per model (program cache in its default place: warm on later runs)."""
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    runners = {}

    def get(name):
        if name not in runners:
            runners[name] = TfliteRunner(model_file(name), backend="cl")
        return runners[name]

    yield get
    for r in runners.values():
        r.close()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_on_cl_matches_the_reference_with_only_the_input_copied(name, cl_runner):
    from acl_bridge.opencl import memory_report

    side, outputs = MODELS[name]
    r = cl_runner(name)
    assert r.backend.name == "cl" and all(f.backend.name == "cl" for f in r.functions)
    rng = np.random.default_rng(17)
    for x in (rng.uniform(-1, 1, (1, side, side, 3)).astype(np.float32),
              rng.uniform(0, 1, (1, side, side, 3)).astype(np.float32)):
        got = r.run(x)
        # results are in the NdArrays when run() returns: the views are the buffers' bytes
        for i in r.plan.model.outputs:
            assert np.shares_memory(got[r.plan.model.tensors[i].name], r.arrays[i].numpy())
        got = {k: v.copy() for k, v in got.items()}
        ref, oracle = reference(model_file(name), r.plan, x)
        for k in outputs:
            err = float(np.abs(got[k] - ref[k]).max())
            assert err <= tolerance(ref[k]), f"{name} {k}: max difference {err} from the {oracle}"
            print(f"{name} {k}: max difference {err:.3g} from the {oracle} (|ref| <= {np.abs(ref[k]).max():.3g})")
    assert r.staged() == []
    c = r.copied_bytes_per_inference
    assert c == {"input": side * side * 3 * 4, "staged": 0, "copy_steps": 0, "total": side * side * 3 * 4}
    for f in r.functions:  # the device works on every NdArray's own bytes: 0 bytes staged
        for role, mem in memory_report(f).items():
            assert mem.backend == "cl" and mem.zero_copy and mem.bytes_staged_per_run == 0, (f, role, mem)
            assert mem.base_address == f.arrays[role].base_ptr, (f, role, mem)
    assert r.schedule.native_calls_per_run == 1
    print(f"{name} on {os.environ.get('ACL_NDARRAY_CL_DRIVER', 'OpenCL')}: {r.summary()}")


def test_cl_buffers_have_the_padding_the_cl_functions_asked_for(cl_runner):
    """Padding negotiation asked the CL functions (required_padding with backend="cl"): every
    buffer covers what each of its functions wants on this device."""
    from acl_bridge.mapping import acl_layout_padding, tensor_info

    r = cl_runner("face_detection_front")
    for b in r.buffer_plans.values():
        for _, _, pad in b.asked_by:
            assert b.padding.covers(pad) or b.has_views, b
    for s, f in zip(r.plan.steps, r.functions):
        for role, a in f.arrays.items():
            need = f.padding[role]
            if a is not None and any(need.as_tuple()):
                have = acl_layout_padding(a, tensor_info(a, "NHWC"))
                assert have is not None and have.covers(need), (s, role, need, have)


def test_astronaut_face_on_cl_matches_the_reference_box(cl_runner):
    pytest.importorskip("PIL", reason="Pillow is not installed")
    from acl_bridge.models.apps import blazeface as bf
    from acl_bridge.models.apps import images

    name = "face_detection_front"
    o = bf.MODELS[name]
    x, _ = images.model_input(images.load_rgb(photo_file()), o.anchors.input_size)
    r = cl_runner(name)
    got = r.run(x)
    dets = bf.detect(got["regressors"], got["classificators"], o)
    ref, oracle = reference(model_file(name), r.plan, x)
    want = bf.detect(ref["regressors"], ref["classificators"], o)
    assert len(dets) == len(want) == 1
    assert bf.iou(dets[0].box, want[0].box) >= 0.9, oracle


def test_face_mesh_on_cl_matches_the_interpreter_on_the_astronaut(cl_runner):
    pytest.importorskip("PIL", reason="Pillow is not installed")
    pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")
    from models.test_face_mesh import check_mesh_on_the_astronaut

    err, nose = check_mesh_on_the_astronaut(cl_runner("face_landmark").run, cl_runner("face_detection_front").run)
    print(f"face mesh on CL: max difference {err:.3g} from the interpreter; nose tip {nose:.1f} px from BlazeFace's")


def test_detect_and_run_tflite_take_backend_cl(capsys, tmp_path):
    pytest.importorskip("PIL", reason="Pillow is not installed")
    from acl_bridge.cli import main

    code = main(["detect", str(photo_file()), "--json", "--backend", "cl"])
    out, err = capsys.readouterr()
    assert code == 0, err
    faces = json.loads(out)
    assert len(faces) == 1 and faces[0]["score"] > 0.9
    x0, y0, x1, y1 = faces[0]["box"]
    assert 150 < x0 < 200 and 60 < y0 < 100 and 250 < x1 < 300 and 150 < y1 < 200
    x = np.random.default_rng(2).uniform(-1, 1, (1, 128, 128, 3)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    path = model_file("face_detection_front")
    outs = {}
    for backend in ("cl", "numpy"):
        code = main(["run-tflite", str(path), str(tmp_path / "x.npy"), "--out", str(tmp_path / f"{backend}.npz"),
                     "--backend", backend])
        out, err = capsys.readouterr()
        assert code == 0, err
        outs[backend] = np.load(tmp_path / f"{backend}.npz")
    for k in ("regressors", "classificators"):
        ref = outs["numpy"][k]
        assert np.abs(outs["cl"][k] - ref).max() <= tolerance(ref), k


NO_LAYER = textwrap.dedent("""
    import sys
    from acl_bridge import opencl
    from acl_bridge.errors import AclNoDeviceError
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner
    dev = opencl.cl_devices()[0]
    if dev.native_non_uniform_work_groups:
        print("NATIVE", dev.name)
        raise SystemExit(0)
    try:
        TfliteRunner(sys.argv[1], backend="cl")
    except AclNoDeviceError as e:
        print("ERROR", e)
    else:
        print("NO ERROR")
""")


def test_cl_model_without_a_usable_device_says_what_is_missing():
    """Without the layer (a fresh interpreter: the loader reads OPENCL_LAYERS once), a software
    device cannot run ACL's kernels: the runner fails before building anything, with the
    functions' error."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENCL_LAYERS", "ACL_NDARRAY_CL_LAYER")}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-c", NO_LAYER, str(model_file("face_detection_front"))], env=env, cwd=root,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    line = next(line for line in out.stdout.splitlines() if line.split(" ", 1)[0] in ("NATIVE", "ERROR", "NO"))
    if line.startswith("NATIVE"):
        pytest.skip(f"the device runs non-uniform work-groups itself: {line}")
    assert line.startswith("ERROR"), out.stdout
    assert "has no non-uniform work-group support" in line and "ACL_NDARRAY_CL_LAYER=1" in line
