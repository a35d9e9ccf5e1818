"""GATHER_ND with runtime indices on ACL (emulated arm64): the ``gather_nd`` kind (the shim
flattens and checks the index rows on the CPU, ACL's gather moves the rows) in the runner,
bit for bit with the numpy plan (itself checked against TFLite's interpreter on the host:
test_one_operator_gather_nd.py), and an index outside params stopping the run with nothing written: the
runner's output, and a function's dst inside a larger buffer with every byte around it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from ndarray import NdArray  # noqa: E402
from ndarray.errors import IndexOutOfRangeError  # noqa: E402

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402

from .test_elementwise_acl import _runner  # noqa: E402
from .test_one_operator_gather_nd import RUNTIME, runtime_indices_model  # noqa: E402

pytestmark = pytest.mark.acl

# float32 pairs with int32 indices, int8 rows, uint8 scalars (D == rank) with int64 indices
ROWS = [c for c in RUNTIME if c.id in ("pairs_into_3x4x2", "int8_pixels", "uint8_int64_scalars")]


def check_runtime(case, backend: str) -> None:
    """One ``gather_nd`` step on ``backend``, bit for bit with the numpy plan."""
    r = _runner(case.model(), backend)
    try:
        assert r.plan.fallbacks == () and [s.kind for s in r.plan.steps] == ["gather_nd"]
        x, i = case.input(), case.indices
        got, ref = np.array(r.run({"x": x, "i": i})["y"]), run_plan(r.plan, {"x": x, "i": i})["y"]
        assert got.dtype == ref.dtype and np.array_equal(got, ref)
    finally:
        r.close()


def check_bad_rows(backend: str) -> None:
    """A row past params' end, then one with a negative component: the library's error, the
    runner's output as the last good run left it."""
    r = _runner(runtime_indices_model(index_dtype="int64"), backend)
    try:
        x = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
        good = np.array([[2, 3], [0, 0], [1, 2], [2, 0], [0, 3]], np.int64)
        y = r.run({"x": x, "i": good})["y"]
        before = np.array(y)
        for bad, why in (([[0, 0], [3, 0], [0, 0], [0, 0], [0, 0]], r"index \[3, 0\] \(row 1\) is outside"),
                         ([[0, 0], [0, 0], [0, 0], [0, 0], [1, -1]], r"index \[1, -1\] \(row 4\) has a negative")):
            with pytest.raises(IndexOutOfRangeError, match=why):
                r.run({"x": x + 1, "i": np.array(bad, np.int64)})
            assert np.array_equal(np.array(y), before)
    finally:
        r.close()


@pytest.mark.parametrize("case", ROWS, ids=[c.id for c in ROWS])
def test_runtime_gather_nd_on_acl_bit_for_bit(case):
    check_runtime(case, "neon")


def test_an_index_outside_params_stops_the_runner_with_its_output_unchanged():
    check_bad_rows("neon")


def test_the_function_writes_nothing_outside_dst_and_nothing_at_all_on_a_bad_index():
    """src (12, 3), indices (4, 2) int32 and dst (4, 3), each a view inside a larger buffer
    whose other bytes are canaries."""
    from acl_bridge.families import GatherNd

    src_mem = np.full((14, 7), -7.0, np.float32)
    src_mem[1:13, 2:5] = np.arange(36, dtype=np.float32).reshape(12, 3)
    idx_mem = np.full((6, 4), 99, np.int32)
    dst_mem = np.full((6, 5), -1.0, np.float32)
    idx = idx_mem[1:5, 1:3]
    f = GatherNd(NdArray.from_numpy(src_mem[1:13, 2:5]), NdArray.from_numpy(idx), NdArray.from_numpy(dst_mem[1:5, 1:4]),
                 dims=(3, 4))
    try:
        # views of user memory: probed, the probe's scratch indices refused and rerun as zeros
        assert f.facts.writes_outside is not None
        idx[...] = [[2, 3], [0, 0], [1, 2], [1, 1]]
        src_before, dst_before = src_mem.copy(), dst_mem.copy()
        idx[...] = [[2, 3], [0, 0], [2, 4], [1, 1]]
        with pytest.raises(IndexOutOfRangeError, match=r"gather_nd: index \[2, 4\] \(row 2\) is outside src's index "
                                                              r"space \[3, 4\] \(component 1 is 4, expected 0..3\)"):
            f.run()
        assert np.array_equal(dst_mem, dst_before) and np.array_equal(src_mem, src_before)
        idx[...] = [[2, 3], [0, 0], [1, 2], [1, 1]]
        f.run()
        want = dst_before.copy()
        want[1:5, 1:4] = src_before[1:13, 2:5][[11, 0, 6, 5]]
        assert np.array_equal(dst_mem, want) and np.array_equal(src_mem, src_before)
        assert (idx_mem[[0, 5]] == 99).all() and (idx_mem[:, [0, 3]] == 99).all()
    finally:
        f.close()
