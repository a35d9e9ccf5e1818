"""An int8 model on ACL's OpenCL backend: MLPerf Tiny's DS-CNN keyword spotter (float32 in,
QUANTIZE, int8 convolutions and per-channel depthwise convolutions, average pooling, fully
connected, softmax, DEQUANTIZE) against TFLite's integer arithmetic run on the model file
itself (``models/tflite_int8_oracle.py``, not the bridge's plan, so a lowering or plan-cache
bug shared by ACL and the numpy plan is seen; bit for bit with TFLite's reference kernels:
tests/models/test_tflite_int8_oracle.py), with only the input copied and one native call.

Measured on PoCL (2026-11-24, one run each): Visual Wake Words, keyword_spotting and the
Alexa keyword spotter bit for bit on three seeded inputs; ResNet-8 0, 0 and 8 output steps
(ACL's int8 addition, as on NEON). Configuring the larger ones on a software device costs
18-41 s of kernel compilation, so the stage runs the smallest one."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from models.conftest import model_file  # noqa: E402
from models.tflite_int8_oracle import Int8Oracle  # noqa: E402

pytestmark = pytest.mark.cl


def test_keyword_spotting_on_cl_is_tflites_integer_arithmetic_bit_for_bit():
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    oracle = Int8Oracle(model_file("keyword_spotting"))
    r = TfliteRunner(model_file("keyword_spotting"), backend="cl")
    try:
        assert r.backend.name == "cl" and all(f.backend.name == "cl" for f in r.functions)
        spec = r.plan.model.tensors[r.plan.model.inputs[0]]
        for seed in (1, 2, 3):
            x = np.random.default_rng(seed).uniform(0, 255, spec.shape).astype(np.float32)
            got = {k: np.array(v) for k, v in r.run(x).items()}
            ref = oracle.run(x)
            assert sorted(got) == sorted(ref)
            for k in ref:
                assert np.array_equal(got[k], ref[k]), (k, seed, np.abs(got[k] - ref[k]).max())
        assert r.staged() == [] and r.schedule.native_calls_per_run == 1
        assert r.copied_bytes_per_inference == {"input": x.nbytes, "staged": 0, "copy_steps": 0, "total": x.nbytes}
    finally:
        r.close()
