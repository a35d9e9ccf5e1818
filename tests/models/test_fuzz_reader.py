"""Malformed models: truncated and byte-mutated copies of a real model must end in this
library's own exception (AclNdarrayError) or in a plan, never in anything else."""

import os

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.tflite_reader import fold_constant_dequantize, read_model  # noqa: E402
from ndarray.errors import AclNdarrayError  # noqa: E402

from .conftest import model_file  # noqa: E402


def mutations(data: bytes, count: int, seed: int = 13):
    """``count`` damaged copies: truncations, and 1-8 random bytes overwritten anywhere, in
    the first 4 KiB (root table, vtables, vectors) or in the last 4 KiB."""
    rng = np.random.default_rng(seed)
    n = len(data)
    for k in range(count):
        kind = k % 4
        if kind == 0:
            yield f"truncated to {int(rng.integers(0, n))}", data[: int(rng.integers(0, n))]
            continue
        lo, hi = {1: (0, n), 2: (0, min(n, 4096)), 3: (max(0, n - 4096), n)}[kind]
        b = bytearray(data)
        where = rng.integers(lo, hi, size=int(rng.integers(1, 9)))
        for w in where:
            b[int(w)] = int(rng.integers(0, 256))
        yield f"bytes {sorted(int(w) for w in where)} overwritten", bytes(b)


def load(data: bytes):
    return plan_model(fold_constant_dequantize(read_model(data)))


# The reader and planner are pure Python, identical on every machine: the host run (the test
# command's host stage) feeds 300 damaged copies of each model; the emulated images, where
# Python runs 20-30x slower, a first 60 of the same sequence.
COUNT = 60 if os.environ.get("HYPOTHESIS_PROFILE") == "emulated" else 300


@pytest.mark.parametrize("name", ["face_detection_front", "face_detection_full_range"])
def test_three_hundred_damaged_models_end_in_our_exception_or_a_plan(name):
    data = model_file(name).read_bytes()
    outcomes = {"plan": 0, "error": 0}
    for what, damaged in mutations(data, COUNT):
        try:
            load(damaged)
            outcomes["plan"] += 1
        except AclNdarrayError:
            outcomes["error"] += 1
        except Exception as e:  # pragma: no cover - the failure this test exists for
            pytest.fail(f"{what}: {type(e).__name__}: {e}")
    assert outcomes["error"] >= COUNT // 4  # every truncation at least
    print(f"damaged models: {outcomes}")
