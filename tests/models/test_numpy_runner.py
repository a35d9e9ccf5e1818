"""``TfliteRunner(model, backend="numpy")`` (and ``"auto"`` without ACL): the ACL runner's
surface on numpy kernels, on every fetched model, against the numpy executor's own run of the
same plan (bit for bit: the same kernels) and TFLite's interpreter (reference kernels)."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from ndarray.errors import ArgumentTypeError, InvalidLayoutError, UnsupportedOptionError  # noqa: E402

from acl_bridge.models.apps import fetch  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.runtime.numpy_backend import NumpyRunner, resolve_backend  # noqa: E402
from acl_bridge.models.runtime.tflite_runner import TfliteRunner  # noqa: E402

from .conftest import host_only_under_emulation, interpreter_outputs, model_file, tolerance  # noqa: E402
from .test_mltk_models import noise  # noqa: E402


@host_only_under_emulation
@pytest.mark.parametrize("name", sorted(fetch.MODELS))
def test_numpy_runner_matches_the_plan_and_tflite(name):
    path = model_file(name)
    with TfliteRunner(path, backend="numpy") as r:
        assert isinstance(r, NumpyRunner) and r.backend.name == "numpy"
        assert r.padded_buffers() == "" and r.copied_bytes_per_inference["staged"] == 0
        spec = r.plan.model.tensors[r.input_index]
        for seed in range(2):
            x = noise(spec, seed)
            got = r.run(x)
            assert set(got) == set(r.output_names)
            plan_out = run_plan(r.plan, x)
            ref = interpreter_outputs(path, x, reference=True)
            for k, v in got.items():
                assert not v.flags.writeable  # views of the runner's buffers, as on ACL
                np.testing.assert_array_equal(v, plan_out[k], err_msg=f"{name} {k}")
                if ref[k].dtype.kind == "f":
                    np.testing.assert_allclose(v, ref[k], atol=tolerance(ref[k]), err_msg=f"{name} {k}")
                else:
                    np.testing.assert_array_equal(v, ref[k], err_msg=f"{name} {k}")
        # the input buffer written in place, then run(None)
        r.input_array.numpy()[...] = x
        np.testing.assert_array_equal(r.run()[r.output_names[0]], plan_out[r.output_names[0]])


def test_numpy_runner_refuses_what_the_acl_runner_refuses(front_path):
    r = TfliteRunner(front_path, backend="numpy")
    x = np.zeros(r.input_shape, np.float32)
    with pytest.raises(InvalidLayoutError, match=r"input has shape \(1, 2\), the model expects \(1, 128, 128, 3\)"):
        r.run(np.zeros((1, 2), np.float32))
    with pytest.raises(ArgumentTypeError, match=r"input has dtype float64, the model's input is float32.*: nothing is cast"):
        r.run(x.astype(np.float64))
    for method in ("profile", "configure_profile", "memory_report"):
        with pytest.raises(UnsupportedOptionError, match=r"reports how ACL runs the model: this runner's backend is numpy"):
            getattr(r, method)()
    with pytest.raises(ArgumentTypeError, match=r"unexpected keyword argument\(s\) \['arenas'\]"):
        TfliteRunner(front_path, backend="numpy", arenas=False)
    with pytest.raises(UnsupportedOptionError, match=r"backend is 'gpu', expected one of \['auto', 'neon', 'cl', 'numpy'\]"):
        TfliteRunner(front_path, backend="gpu")
    # the ACL options are accepted and ignored, so one call works on every backend
    TfliteRunner(front_path, backend="numpy", arena=False, share_constants=False, program_cache=False).close()


def test_auto_is_numpy_exactly_where_acl_neon_does_not_load(front_path):
    from acl_bridge import native_available

    ok, _ = native_available()
    if ok:
        from acl_bridge.native import require_native

        ok = bool(require_native()[1].acl_shim_neon_available())
    assert resolve_backend("auto") == ("neon" if ok else "numpy")
    assert resolve_backend("cl") == "cl"
    if not ok:
        with TfliteRunner(front_path, backend="auto") as r:
            assert isinstance(r, NumpyRunner)


def test_an_acl_backend_without_the_native_module_is_refused_before_reading(tmp_path):
    from acl_bridge import native_available
    from acl_bridge.errors import AclUnavailableError

    if native_available()[0]:
        pytest.skip("the native module loads here: the refusal is for machines without it (the host)")
    missing = tmp_path / "missing.tflite"  # never read: the refusal comes first
    for backend in ("neon", "cl"):
        with pytest.raises(AclUnavailableError, match=rf"backend='{backend}' needs the native ACL module: .*; "
                                                      r"backend='numpy' runs the same plan on numpy on any machine"):
            TfliteRunner(missing, backend=backend)


@host_only_under_emulation
def test_an_acl_backend_by_name_imports_no_numpy_runner():
    """``TfliteRunner(model)`` (backend "neon") never imports the numpy runner's module: it is a
    first start's cost (an import) for a choice already made. A fresh interpreter, where the
    native module counts as unavailable, so the load stops right after the choice."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from acl_bridge import native\n"
            "from acl_bridge.errors import AclUnavailableError\n"
            "from acl_bridge.models.runtime.tflite_runner import TfliteRunner\n"
            "native.native_available = lambda: (False, 'counted as unavailable here')\n"
            "try:\n"
            "    TfliteRunner('model.tflite')\n"
            "except AclUnavailableError:\n"
            "    print('refused', 'acl_bridge.models.runtime.numpy_backend' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["refused", "False"], out.stderr[-800:]
