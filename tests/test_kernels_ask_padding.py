"""Which ACL counts as having kernels that ask no padding (acl_bridge.native.kernels_ask_padding,
what lets a first start skip the padding negotiation's questions): NEON from 24.11 on, nothing
else. The version string is given here (no native module needed); that 24.11's NEON kernels do
ask none, on every fetched model, is asked of ACL itself by
tests/models/test_first_start_decisions_acl.py."""

import pytest

from acl_bridge import native


@pytest.mark.parametrize("version, backend, asks", [
    ("24.11", "neon", False),
    ("25.02", "neon", False),
    ("24.11", "cl", True),  # OpenCL's kernels pad
    ("20.08", "neon", True),  # 20.08's pooling, depthwise... ask padding
    ("21.02", "neon", True),  # not measured here: counts as asking
    ("unknown (arm_compute_version=vmaster)", "neon", True),
])
def test_kernels_ask_padding_by_version_and_backend(version, backend, asks, monkeypatch):
    monkeypatch.setattr(native, "acl_version", lambda: version)
    native.kernels_ask_padding.cache_clear()
    try:
        assert native.kernels_ask_padding(backend) is asks
    finally:
        native.kernels_ask_padding.cache_clear()  # the real ACL's answer, asked again when needed
