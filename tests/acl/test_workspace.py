"""Workspaces (acl_bridge.workspace): functions configured with one ACL memory manager keep
their scratch tensors in one pool, on NEON as large as the largest single need (ACL's
OffsetLifetimeManager; on CL, blobs by rank of size: between that and the sum), and give the same bits as the same functions alone; the states are
enforced (no run before the pool exists, no function joins an allocated workspace), and two
threads running functions of one workspace take turns instead of sharing the pool."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from .helpers import Guarded

pytestmark = pytest.mark.acl


def _conv_reference(x, w, b):
    """NHWC 'valid' convolution, stride 1: x (1,H,W,C), w (O,KH,KW,C), b (O,)."""
    _, h, wd, _ = x.shape
    o, kh, kw, _ = w.shape
    out = np.zeros((1, h - kh + 1, wd - kw + 1, o), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,oc->nhwo", x[:, i:i + out.shape[1], j:j + out.shape[2], :].astype(np.float64),
                             w[:, i, j, :].astype(np.float64))
    return (out + b).astype(np.float32)


# (input shape NHWC, output channels, kernel): GEMM convolutions of different scratch needs
SHAPES = [((1, 12, 12, 8), 16, 3), ((1, 6, 6, 4), 8, 3), ((1, 9, 9, 16), 4, 2)]


def _problem(k: int):
    rng = np.random.default_rng(k)
    shape, o, ksz = SHAPES[k]
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    w = rng.uniform(-1, 1, (o, ksz, ksz, shape[3])).astype(np.float32)
    b = rng.uniform(-1, 1, (o,)).astype(np.float32)
    return x, w, b, _conv_reference(x, w, b)


def _convolution(k: int, workspace, backend: str):
    from acl_bridge.functions import Convolution

    x, w, b, ref = _problem(k)
    dst = Guarded(ref.shape, "float32", "padded")
    f = Convolution(x, w, b, dst.array, data_layout="NHWC", workspace=workspace, backend=backend)
    return f, dst, ref


# The checks, one function per promise, shared with tests/cl/test_cl_workspace.py.
def check_one_pool_is_the_largest_need(backend: str) -> None:
    from acl_bridge.workspace import Workspace

    alone, sizes, results = [], [], []
    for k in range(len(SHAPES)):
        ws = Workspace(backend)
        f, dst, ref = _convolution(k, ws, backend)
        assert ws.report().functions == 1 and not ws.report().allocated
        sizes.append(ws.allocate())
        f.run()
        assert dst.untouched(), f"convolution {k} wrote outside its output's elements: {dst.changed_outside()[:8]}"
        np.testing.assert_allclose(dst.numpy(), ref, rtol=1e-4, atol=1e-4)
        alone.append((f, dst))
        results.append(dst.numpy().copy())
    shared = Workspace(backend)
    together = [_convolution(k, shared, backend) for k in range(len(SHAPES))]
    size = shared.allocate()
    print(f"{backend}: scratch pools alone {sizes} B (sum {sum(sizes)}), shared {size} B")
    assert max(sizes) > 0, "no convolution kept scratch tensors in its workspace"
    if backend == "neon":  # one blob, tensors at offsets: exactly the largest need
        assert size == max(sizes), f"one pool for all is {size} B, expected the largest alone, {max(sizes)} B"
    else:  # CL buffers by rank of size: between the largest need and the sum
        assert max(sizes) <= size <= sum(sizes), f"one pool for all is {size} B, alone {sizes} B"
    for _ in range(2):
        for k, (f, dst, ref) in enumerate(together):
            f.run()
            assert dst.untouched(), f"convolution {k} (shared pool) wrote outside its output's elements"
            assert np.array_equal(dst.numpy(), results[k]), f"convolution {k}: shared pool and own pool differ"
    r = shared.report()
    assert (r.allocated, r.functions, r.size_in_bytes) == (True, len(SHAPES), size)


def check_no_run_before_allocate_and_no_join_after(backend: str) -> None:
    from acl_bridge.errors import AclError
    from acl_bridge.workspace import Workspace

    ws = Workspace(backend)
    f, dst, ref = _convolution(0, ws, backend)
    before = dst.raw.copy()
    with pytest.raises(AclError, match="workspace is not allocated"):
        f.run()
    assert np.array_equal(dst.raw, before), "a refused run changed the output buffer"
    ws.allocate()
    f.run()
    np.testing.assert_allclose(dst.numpy(), ref, rtol=1e-4, atol=1e-4)
    with pytest.raises(AclError, match="already allocated"):
        _convolution(1, ws, backend)
    with pytest.raises(AclError, match="already allocated"):
        ws.allocate()
    f.run()  # the refused join left the workspace and its function as they were
    np.testing.assert_allclose(dst.numpy(), ref, rtol=1e-4, atol=1e-4)


def test_workspace_argument_is_checked():
    from acl_bridge.functions import Activation
    from ndarray.errors import ArgumentTypeError

    x = np.zeros((2, 3), np.float32)
    y = np.ones((2, 3), np.float32)
    with pytest.raises(ArgumentTypeError, match="workspace is 42"):
        Activation(x, y, "relu", workspace=42)
    assert (y == 1).all()


def check_two_threads_take_turns_for_the_pool(backend: str) -> None:
    from acl_bridge.workspace import Workspace

    ws = Workspace(backend)
    pairs = [_convolution(k, ws, backend) for k in (0, 1)]
    ws.allocate()
    expected = []
    for f, dst, _ in pairs:
        f.run()
        expected.append(dst.numpy().copy())
    bad: list = []

    def work(k):
        f, dst, _ = pairs[k]
        for _ in range(20):
            f.run()
            if not np.array_equal(dst.numpy(), expected[k]):
                bad.append(k)

    threads = [threading.Thread(target=work, args=(k,), daemon=True) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "runs of one workspace's functions deadlocked"
    assert not bad, f"results changed while two threads shared the pool: {bad}"


def test_one_pool_is_the_largest_need_and_gives_the_same_bits():
    check_one_pool_is_the_largest_need("neon")


def test_no_run_before_allocate_and_no_join_after():
    check_no_run_before_allocate_and_no_join_after("neon")


def test_two_threads_take_turns_for_the_pool():
    check_two_threads_take_turns_for_the_pool("neon")
