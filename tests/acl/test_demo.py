"""The demo on arm64: both paths run and agree with the numpy reference (issue 5).

``python3 -m acl_bridge.demo --strict`` must exit 0, print "bytes copied: 0" for the
zero-copy bridge path, and report (not hide) the Arm NN path's copy of the padded input.
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from acl_bridge import armnn, demo

pytestmark = pytest.mark.acl

_OK, _WHY = armnn.armnn_available()
needs_armnn = pytest.mark.skipif(not _OK, reason=f"needs pyarmnn: {_WHY}")


class _Quiet:
    def step(self, text):
        return _NoTimer()


class _NoTimer:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_bridge_path_matches_numpy_with_zero_copies(capsys):
    w, x = demo.make_weights(), demo.make_input()
    ref = demo.reference_forward(x, w)
    x_nd = demo._padded_input(x)  # ACL auto_padding layout: read in place, not copied
    assert x_nd.descriptor.has_padded_buffer
    r = demo.run_bridge(x, w, 1, _Quiet(), sys.stdout, None, x_nd)
    assert r.bytes_copied == 0 and r.copy_note == "nothing staged"
    assert list(r.outputs) == list(demo.LAYERS)
    for layer, got in r.outputs.items():
        assert demo.max_diff(got, ref[layer]) <= demo.tolerance(ref[layer]), layer
    np.testing.assert_allclose(r.outputs["softmax"].sum(), 1.0, rtol=1e-5)
    out = capsys.readouterr().out
    # the input's ACL description is shown: strides of the padded rows, offset of element 0
    assert "AclTensorInfo(F32[16,16,3,1]:(4,224,5376,16128)B +912B" in out


@needs_armnn
def test_armnn_path_matches_numpy_and_counts_the_input_copy(capsys):
    w, x = demo.make_weights(), demo.make_input()
    ref = demo.reference_forward(x, w)
    x_nd = demo._padded_input(x)
    r = demo.run_armnn(x_nd, w, 1, _Quiet(), sys.stdout)
    assert demo.max_diff(r.outputs["softmax"], ref["softmax"]) <= demo.tolerance(ref["softmax"])
    # the input is a padded buffer: one dense copy per run (warm-up + 1 timed run)
    assert r.bytes_copied == 2 * x.nbytes
    assert "bytes per run for input 0" in r.copy_note


@needs_armnn
def test_demo_module_exits_0_and_prints_zero_copies():
    p = subprocess.run([sys.executable, "-m", "acl_bridge.demo", "--runs", "2", "--strict"],
                       capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout
    bridge = out[out.index("bridge path:"):out.index("armnn path:")]
    assert "bytes copied: 0 (nothing staged)" in bridge
    assert re.search(r"armnn path: .*\n  bytes copied: [1-9]\d* \(\d+ bytes per run for input 0", out)
    assert out.count("ok") >= 7 and "EXCEEDED" not in out
    assert "time per inference: median" in out
    assert out.rstrip().endswith("result: PASS")
    # pyarmnn 23.08's import-time print is captured and shown as a note, never printed raw
    assert out.startswith("acl_bridge demo:"), out[:300]
    assert "WARNING: PyArmNN is deprecated" not in out or "said at import: WARNING: PyArmNN" in out


def test_demo_strict_in_process_with_threads(capsys):
    """``acl-ndarray demo --threads N``: ACL's scheduler runs N threads (said, and asked back
    from ACL after the run)."""
    from acl_bridge import cli, native

    before = native.num_threads()
    try:
        rc = cli.main(["demo", "--runs", "1", "--skip", "armnn", "--strict", "--threads", "2"])
        out = capsys.readouterr().out
        assert rc == 0, out
        assert "bytes copied: 0" in out and "ACL scheduler threads: 2\n" in out
        assert native.num_threads() == 2
    finally:
        native.set_num_threads(before)
