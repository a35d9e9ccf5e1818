"""`python -m acl_bridge detect` and `run-tflite` (numpy backend on the host; the ACL backend
in the emulated images)."""

import importlib.util
import json
import re
import os

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("PIL", reason="Pillow is not installed")

from acl_bridge.cli import main  # noqa: E402

from .conftest import host_only_under_emulation, model_file, photo_file  # noqa: E402


@pytest.fixture(autouse=True)
def _own_cache_folders(tmp_path_factory, monkeypatch):
    """Each test its own empty parsed-model / plan, ACL-answer and OpenCL-program caches, so
    what a test sees does not depend on which tests ran before it in the session (issue 41)."""
    for var, name in (("ACL_NDARRAY_MODEL_CACHE", "parsed-models"), ("ACL_NDARRAY_FACTS_CACHE", "acl-facts"),
                      ("ACL_NDARRAY_CL_PROGRAM_CACHE", "cl-programs")):
        monkeypatch.setenv(var, str(tmp_path_factory.mktemp(name)))


def run_cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _backends():
    from acl_bridge import native_available

    ok = native_available()
    return ["numpy", "acl"] if (ok[0] if isinstance(ok, tuple) else ok) else ["numpy"]


def _numpy_on_the_host(backends):
    """The backends as parameters, the numpy one left to the host stage under emulation (it
    runs no ACL: the command's numpy path is the same Python there, at 1/20 of the time)."""
    return [pytest.param(b, marks=host_only_under_emulation) if b == "numpy" else b for b in backends]


@pytest.mark.parametrize("backend", _numpy_on_the_host(_backends()))
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


@host_only_under_emulation
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
@host_only_under_emulation
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


def one_error_line(err: str) -> str:
    """stderr of a failed command: exactly one line, no traceback."""
    assert err.count("\n") == 1 and err.startswith("acl-ndarray: error: ") and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("argv, match", [
    (["--model", "nope"], "UnsupportedOptionError: model is 'nope', expected one of"),
    (["--model", "face_detection_front", "--model-file", "BACK"],
     "face_detection_back.tflite's input is [1, 256, 256, 3], --model face_detection_front expects 128x128"),
])
def test_detect_refusals_are_one_line_exit_2(argv, match, capsys):
    """Bad input: exit 2, one line."""
    argv = [str(model_file("face_detection_back")) if a == "BACK" else a for a in argv]
    code, out, err = run_cli(["detect", str(photo_file()), "--backend", "numpy", *argv], capsys)
    assert (code, out) == (2, "") and match in one_error_line(err), err


@host_only_under_emulation
def test_detect_model_file_alone(capsys):
    """--model-file without --model: the anchors of the model whose input size the file has."""
    path = model_file("face_detection_back")
    by_file = run_cli(["detect", str(photo_file()), "--model-file", str(path), "--backend", "numpy", "--json"], capsys)
    by_name = run_cli(["detect", str(photo_file()), "--model", "face_detection_back", "--backend", "numpy", "--json"],
                      capsys)
    assert by_file[0] == 0 and by_file[:2] == by_name[:2] and len(json.loads(by_file[1])) == 1


@host_only_under_emulation
def test_detect_says_when_no_face_is_found(tmp_path, capsys):
    from PIL import Image

    model_file("face_detection_front")
    gray = tmp_path / "gray.png"
    Image.new("RGB", (200, 150), (128, 128, 128)).save(gray)
    code, out, err = run_cli(["detect", str(gray), "--backend", "numpy"], capsys)
    assert (code, out, err) == (0, f"no face found in {gray}\n", "")
    code, out, err = run_cli(["detect", str(gray), "--backend", "numpy", "--json"], capsys)
    assert (code, json.loads(out)) == (0, []) and err == f"acl-ndarray detect: no face found in {gray}\n"


def test_backend_auto_uses_what_the_machine_has(capsys):
    """--backend auto (the default): acl where the native module loads, else numpy, said on stderr."""
    model_file("face_detection_front")
    code, out, err = run_cli(["detect", str(photo_file())], capsys)
    assert code == 0 and out.startswith("face 0.9"), err
    expected = "acl" if "acl" in _backends() else "numpy"
    assert err.startswith(f"acl-ndarray: backend auto: {expected} (") and err.count("\n") == 1, err


def test_detect_unreadable_image(tmp_path, capsys):
    model_file("face_detection_front")
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a picture")
    code, out, err = run_cli(["detect", str(bad), "--backend", "numpy"], capsys)
    assert code == 2 and "ImageError: cannot read image" in one_error_line(err)


_RUN_TFLITE_CASES = [  # model, input side, every output by its tensor name in the model -> shape
    ("face_detection_front", 128, {"regressors": (1, 896, 16), "classificators": (1, 896, 1)}),
    ("face_detection_full_range", 192, {"reshaped_regressor_face_4": (1, 2304, 16),
                                        "reshaped_classifier_face_4": (1, 2304, 1)}),
]


@pytest.mark.parametrize("model, side, outputs, backend", [
    # one id in every stage; the numpy backend on the host (see _numpy_on_the_host)
    pytest.param(*case, backend, id=f"{case[0]}-{backend}", marks=host_only_under_emulation if backend == "numpy" else ())
    for case in _RUN_TFLITE_CASES
    for backend in (_backends() if case[0] == "face_detection_front" else ["numpy"])])  # see the full-range note above
def test_run_tflite_writes_every_output_by_name(model, side, outputs, backend, tmp_path, capsys):
    path = model_file(model)
    x = np.random.default_rng(1).uniform(-1, 1, (1, side, side, 3)).astype(np.float32)
    np.save(tmp_path / "in.npy", x)
    memory = ["--memory"] if backend != "numpy" else []
    code, out, err = run_cli(["run-tflite", str(path), str(tmp_path / "in.npy"), "--out", str(tmp_path / "o.npz"),
                              "--backend", backend, *memory], capsys)
    assert code == 0, err
    with np.load(tmp_path / "o.npz") as z:
        assert {k: z[k].shape for k in z.files} == outputs
        got = {k: z[k] for k in z.files}
    # the values, not only the shapes: TFLite's interpreter where it runs (the host), else the
    # numpy backend in this process (under emulation, for the ACL backends: another executor)
    if importlib.util.find_spec("ai_edge_litert") is not None and os.environ.get("HYPOTHESIS_PROFILE") != "emulated":
        from .conftest import interpreter_outputs

        want, tol = interpreter_outputs(path, x), 1e-4
    else:  # under emulation (TFLite's interpreter does not run there), the ACL backend only: the
        # numpy executor of a plan lowered here from the file
        from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model
        from acl_bridge.models.planning.numpy_executor import run_plan
        from acl_bridge.models.planning.tflite_plan import plan_model

        want, tol = run_plan(plan_model(fold_constant_dequantize(read_model(path)), fallback=True), x), 1e-4
    for k in outputs:
        assert np.abs(got[k]).max() > 0.1, k  # zeros of the right shape are no output
        np.testing.assert_allclose(got[k], want[k], rtol=tol, atol=tol * np.abs(want[k]).max(), err_msg=k)
    if memory:  # the arena's figures, and the process's resident memory
        assert "activations: " in out and "(arena; lower bound " in out and "resident memory" in out, out


def _profile(tmp_path, capsys):
    code, out, err = run_cli(["run-tflite", str(model_file("face_detection_front")), str(tmp_path / "in.npy"),
                              "--out", str(tmp_path / "o.npz"), "--backend", "acl", "--profile", "--json"], capsys)
    assert code == 0, err
    return json.loads(out)


def _check_profile_arithmetic(doc):
    """What the profile derives from its timings, recomputed here (never a timing itself)."""
    import statistics

    p, ops = doc["configure_profile"], doc["operator_profile"]
    assert all(isinstance(r["seconds"], float) and r["seconds"] >= 0 for r in p["phases"])
    assert abs(sum(r["seconds"] for r in p["phases"]) - p["configure_seconds"]) < 1e-3
    assert abs(p["first_result_seconds"] - (p["configure_seconds"] + p["first_run_seconds"])) < 2e-6
    assert ops["rounds"] == 5 and len(ops["functions"]) == len(p["steps"])
    assert [f["opcode"] for f in ops["functions"]] == [s["opcode"] for s in p["steps"]]
    for f in ops["functions"]:
        assert len(f["seconds"]) == 5 and abs(f["median_seconds"] - statistics.median(f["seconds"])) < 2e-9, f
    assert abs(sum(f["median_seconds"] for f in ops["functions"]) - ops["total_median_seconds"]) < 1e-6
    assert abs(sum(k["share"] for k in ops["by_kind"].values()) - 1) < 1e-3
    kinds = {}
    for f in ops["functions"]:
        kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
    assert {k: v["functions"] for k, v in ops["by_kind"].items()} == kinds


@pytest.mark.acl
def test_run_tflite_profile_json_says_where_the_start_up_time_went(tmp_path, capsys):
    """--profile --json, cold (this test's own empty caches) then warm (the same caches, a second
    start): the load's phases add up to its configure time, the operator profile's medians are
    the medians of its rounds; cold: the model is lowered after the read and every function
    negotiated once, decided, and all made in one native call (identical questions to ACL
    answered once); warm: the plan is read from the plan cache (no lowering) and every function
    made from its kept decision."""
    if "acl" not in _backends():
        pytest.skip("the native ACL module is not available here")
    np.save(tmp_path / "in.npy", np.random.default_rng(1).uniform(-1, 1, (1, 128, 128, 3)).astype(np.float32))
    cold = _profile(tmp_path, capsys)
    _check_profile_arithmetic(cold)
    p = cold["configure_profile"]
    phases = [r["phase"] for r in p["phases"]]
    assert phases[:2] == ["read", "lower"] and {"negotiation", "allocate", "configure", "schedule"} <= set(phases)
    native = {n["category"]: n for r in p["phases"] for n in r["native"] if r["phase"] == "configure"}
    # every function decided (its padding the negotiation's, asked nothing again, none recalled;
    # a function of a content decided before in the pass takes that decision), then made in
    # one native configure call, as a second start makes them (acl_bridge.configure_cold)
    assert p["functions_recalled"] == 0
    assert 1 <= native["configure"]["calls"] < len(p["steps"])
    assert native.get("negotiate", {}).get("calls", 0) == native.get("negotiate", {}).get("reused", 0) == 0
    warm = _profile(tmp_path, capsys)
    _check_profile_arithmetic(warm)
    w = warm["configure_profile"]
    assert "lower" not in [r["phase"] for r in w["phases"]]  # the plan kept by the cold start
    assert w["functions_recalled"] == len(w["steps"]) == len(p["steps"])
    wn = {n["category"]: n for r in w["phases"] for n in r["native"] if r["phase"] == "configure"}
    # every function made from its kept decision: one native configure call for all of them
    assert wn["configure"]["calls"] == 1 and wn.get("negotiate", {}).get("reused", 0) == 0


def test_run_tflite_memory_needs_an_acl_backend(tmp_path, capsys):
    np.save(tmp_path / "in.npy", np.zeros((1, 128, 128, 3), np.float32))
    code, out, err = run_tflite(tmp_path, capsys, "in.npy", "--memory")
    assert (code, out) == (2, "") and "--memory reports what a model holds on ACL" in one_error_line(err)


def test_run_tflite_profile_needs_an_acl_backend(tmp_path, capsys):
    np.save(tmp_path / "in.npy", np.zeros((1, 128, 128, 3), np.float32))
    code, out, err = run_tflite(tmp_path, capsys, "in.npy", "--profile")
    assert (code, out) == (2, "") and "--profile reports how a model is configured on ACL" in one_error_line(err)


def run_tflite(tmp_path, capsys, name, *extra):
    return run_cli(["run-tflite", str(model_file("face_detection_front")), str(tmp_path / name),
                    "--out", str(tmp_path / "o.npz"), "--backend", "numpy", *extra], capsys)


@pytest.mark.parametrize("x, match", [
    (np.zeros((1, 64, 64, 3), np.float32), "holds float32[1, 64, 64, 3], the model's input 'input' is "
                                           "float32[1, 128, 128, 3]"),
    (np.zeros((1, 128, 128, 3), np.int8), "holds int8[1, 128, 128, 3], the model's input 'input' is "
                                          "float32[1, 128, 128, 3]; nothing is cast"),
    (np.zeros((1, 128, 128, 3), np.complex64), "holds complex64[1, 128, 128, 3]"),
    (np.zeros((1, 128, 128, 3), np.float64), "holds float64[1, 128, 128, 3]"),
])
def test_run_tflite_refuses_another_dtype_or_shape(x, match, tmp_path, capsys):
    """The input must be the model's dtype and shape: nothing is cast (issue 26 cast complex
    and int8 inputs silently); bad input, exit 2, one line; nothing written."""
    np.save(tmp_path / "in.npy", x)
    code, out, err = run_tflite(tmp_path, capsys, "in.npy")
    assert (code, out) == (2, "") and match in one_error_line(err)
    assert "InputFileError" in err and not (tmp_path / "o.npz").exists()


def test_run_tflite_reads_npz_and_says_what_it_wrote(tmp_path, capsys):
    """A .npz with one array, or with the model's input by name; --json says what was written."""
    x = np.random.default_rng(2).uniform(-1, 1, (1, 128, 128, 3)).astype(np.float32)
    np.savez(tmp_path / "one.npz", x)
    np.savez(tmp_path / "named.npz", input=x, other=np.zeros(3))
    np.save(tmp_path / "in.npy", x)
    results = []
    for name in ("in.npy", "one.npz", "named.npz"):
        code, out, err = run_tflite(tmp_path, capsys, name, "--json")
        assert (code, err) == (0, ""), err
        assert json.loads(out) == {"out": str(tmp_path / "o.npz"), "outputs": {
            "regressors": {"shape": [1, 896, 16], "dtype": "float32"},
            "classificators": {"shape": [1, 896, 1], "dtype": "float32"}}}
        with np.load(tmp_path / "o.npz") as z:
            results.append({k: z[k] for k in z.files})
    for other in results[1:]:
        assert all(np.array_equal(results[0][k], other[k]) for k in results[0])


@pytest.mark.parametrize("content, match", [
    (b"hello, not numpy", "is neither a numpy .npy file nor a .npz archive"),
    ("TWO", "holds 2 arrays ['a', 'b'], expected one, or one named 'input'"),
    ("OBJECT", "holds Python objects (object); inputs are numeric arrays, never unpickled"),
])
def test_run_tflite_unreadable_input(content, match, tmp_path, capsys):
    """Input files are told apart by their first bytes; an .npz is never called pickled data."""
    path = tmp_path / "bad.npz"
    if content == "TWO":
        np.savez(path, a=np.zeros(2), b=np.zeros(2))
    elif content == "OBJECT":
        path = tmp_path / "bad.npy"
        np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    else:
        path.write_bytes(content)
    code, out, err = run_tflite(tmp_path, capsys, path.name)
    assert (code, out) == (2, "") and match in one_error_line(err)
    assert "pickled data" not in err


@pytest.mark.parametrize("backend", _backends())
def test_run_tflite_takes_and_writes_an_int8_models_own_dtypes(backend, tmp_path, capsys):
    """ResNet-8 (int8 in, int8 out): an int8 .npy in, int8 out, equal to the plan run by numpy
    (ACL: within the bound of test_int8_models_acl.py); a float32 input of
    the same shape is refused, not quantized."""
    from acl_bridge.models.planning.numpy_executor import run_plan
    from acl_bridge.models.planning.tflite_plan import plan_model
    from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model

    path = model_file("image_classification")
    x = np.random.default_rng(4).integers(-128, 128, (1, 32, 32, 3)).astype(np.int8)
    np.save(tmp_path / "in.npy", x)
    argv = ["run-tflite", str(path), str(tmp_path / "in.npy"), "--out", str(tmp_path / "o.npz"), "--backend", backend]
    code, out, err = run_cli(argv + ["--json"], capsys)
    assert code == 0, err
    (name, spec), = json.loads(out)["outputs"].items()
    assert spec == {"shape": [1, 10], "dtype": "int8"}
    ref = run_plan(plan_model(fold_constant_dequantize(read_model(path))), x)[name]
    with np.load(tmp_path / "o.npz") as z:
        got = z[name]
    assert got.dtype == np.int8
    from .test_int8_models_acl import RESNET8_BOUND_LSB, _acl_version

    assert np.abs(got.astype(int) - ref).max() <= (0 if backend == "numpy" else RESNET8_BOUND_LSB[_acl_version()])
    np.save(tmp_path / "f.npy", x.astype(np.float32))
    code, out, err = run_cli(argv[:2] + [str(tmp_path / "f.npy")] + argv[3:], capsys)
    assert (code, out) == (2, "") and "holds float32[1, 32, 32, 3], the model's input" in err and "nothing is cast" in err


def test_run_tflite_armnn_profile_needs_profile_on_acl(tmp_path, capsys):
    np.save(tmp_path / "in.npy", np.zeros((1, 128, 128, 3), np.float32))
    code, out, err = run_tflite(tmp_path, capsys, "in.npy", "--armnn-profile")
    assert (code, out) == (2, "") and "--armnn-profile sets Arm NN's CpuAcc profile beside" in one_error_line(err)
    assert "not no --profile" in one_error_line(err)


@pytest.mark.acl
def test_run_tflite_armnn_profile_matches_arm_nn_layer_by_layer(tmp_path, capsys):
    """--profile --armnn-profile --json: Arm NN's IProfiler rows matched to the bridge's
    functions by TFLite operator; every bridge function lands in a row that Arm NN also ran
    (the same file, the same kernels), and Arm NN's convolutions name the ACL kernel run."""
    if "acl" not in _backends():
        pytest.skip("the native ACL module is not available here")
    from acl_bridge.armnn import armnn_available

    ok, why = armnn_available()  # not importorskip: pyarmnn prints to stdout when imported plainly
    if not ok:
        pytest.skip(why)
    np.save(tmp_path / "in.npy", np.random.default_rng(1).uniform(-1, 1, (1, 128, 128, 3)).astype(np.float32))
    code, out, err = run_cli(["run-tflite", str(model_file("face_detection_front")), str(tmp_path / "in.npy"),
                              "--out", str(tmp_path / "o.npz"), "--backend", "acl", "--profile", "--armnn-profile",
                              "--json"], capsys)
    if code == 1 and "Arm NN's TfLite parser refused" in err:  # Arm NN 20.08 (bookworm): buffer #0 empty
        pytest.skip(f"this Arm NN refuses the model: {err.strip()[:300]}")
    assert code == 0, err
    assert out.startswith("{"), out[:500]
    report = json.loads(out)
    ops, versus = report["operator_profile"], report["armnn_profile"]
    rows = versus["operators"]
    covered = {i for r in rows for i in r["op_indices"]}
    assert {f["op_index"] for f in ops["functions"]} <= covered
    both = [r for r in rows if r["bridge"] and r["armnn"]]
    # counts, not timings (issue 41): nine in ten of the bridge's functions in a row Arm NN ran;
    # each function in one row, so the rows' bridge medians add up to the profile's total
    in_both = {i for r in both for i in r["op_indices"]}
    assert sum(f["op_index"] in in_both for f in ops["functions"]) >= 0.9 * len(ops["functions"])
    assert abs(sum(r["bridge_median_seconds"] for r in rows) - ops["total_median_seconds"]) < 1e-8 * (len(rows) + 1)
    for r in both:  # the ratio is the two medians' quotient (None where either is 0)
        if r["ratio"] is not None:
            quotient = r["bridge_median_seconds"] / r["armnn_median_seconds"]
            assert r["ratio"] == pytest.approx(quotient, rel=1e-2, abs=1e-4)
    convs = [r for r in rows if any("Conv2D" in a for a in r["armnn"])]
    assert convs and all(r["armnn_kernels"] for r in convs)
    # the PADs the bridge folded into their ADDs: Arm NN's PAD layer in the row of that ADD
    pads = [r for r in rows if any(a.startswith("Pad") for a in r["armnn"])]
    assert pads and all("PAD+ADD (add)" in r["bridge"] for r in pads), pads
    assert abs(versus["bridge_total_median_seconds"] - ops["total_median_seconds"]) < 1e-6
    assert all(isinstance(versus[k], float) for k in ("armnn_total_median_seconds", "armnn_inference_median_seconds"))


@host_only_under_emulation
def test_detect_plain_nms_keeps_the_best_anchor_as_decoded(capsys):
    """--plain-nms: the face is the highest-scoring anchor's box as the model gives it, not
    MediaPipe's weighted average of the anchors that overlap it (the default, a different
    box). Oracle: TFLite's interpreter on the same model input, decoded, the best anchor taken."""
    from acl_bridge.models.apps import blazeface, images

    from .conftest import interpreter

    options = blazeface.MODELS["face_detection_front"]
    it = interpreter(model_file("face_detection_front"))
    img = images.load_rgb(photo_file())
    x, _ = images.model_input(img, options.anchors.input_size)  # the photograph is square: no letterbox
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    outputs = {d["name"]: it.get_tensor(d["index"]) for d in it.get_output_details()}
    boxes, _, scores = blazeface.decode(*blazeface.split_outputs(outputs), options)
    best = np.argmax(scores)
    plain = run_cli(["detect", str(photo_file()), "--json", "--plain-nms", "--backend", "numpy"], capsys)
    weighted = run_cli(["detect", str(photo_file()), "--json", "--backend", "numpy"], capsys)
    assert plain[0] == weighted[0] == 0
    (face,), (merged,) = json.loads(plain[1]), json.loads(weighted[1])
    assert face["score"] == pytest.approx(scores[best], abs=1e-5)
    np.testing.assert_allclose(face["box"], boxes[best] * img.size[0], atol=0.02)
    assert np.max(np.abs(np.subtract(merged["box"], face["box"]))) > 0.5  # the flag changes the answer


@host_only_under_emulation
def test_classify_prints_every_class_with_its_score_best_first(capsys):
    """classify's text output: one 'label score' line per class, best first, the scores the
    model gives (TFLite's interpreter with its reference kernels, which the int8 lowering
    matches bit for bit, on the same model input; 3 decimals)."""
    pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")
    from acl_bridge.models.apps import classify, images
    from acl_bridge.models.oracles.tflite_oracle import interpreter

    it, _ = interpreter(model_file("visual_wake_words"), reference=True)
    inp, outp = it.get_input_details()[0], it.get_output_details()[0]
    classifier = classify.CLASSIFIERS["visual_wake_words"]
    x = classify.model_input(images.load_rgb(photo_file()), inp["shape"], inp["dtype"], None, classifier)
    it.set_tensor(inp["index"], x)
    it.invoke()
    want = it.get_tensor(outp["index"]).reshape(-1).astype(np.float64)
    code, out, err = run_cli(["classify", str(photo_file()), "--backend", "numpy"], capsys)
    assert code == 0, err
    lines = [line.rsplit(" ", 1) for line in out.splitlines()]
    assert [label for label, _ in lines] == [classifier.labels[k] for k in np.argsort(-want, kind="stable")]
    for label, score in lines:
        assert re.fullmatch(r"\d\.\d{3}", score)
        assert float(score) == pytest.approx(want[classifier.labels.index(label)], abs=0.0015)
