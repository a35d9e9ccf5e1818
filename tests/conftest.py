"""Test configuration shared by the whole suite.

* Marker ``acl``: the test needs arm64 and the built native ACL module; elsewhere it is
  skipped with the reason ``acl_bridge.native_available()`` gives.
* Hypothesis profiles, chosen with HYPOTHESIS_PROFILE: "default" on the host, "emulated"
  (few examples, no deadline) under QEMU, where code runs 20-30x slower.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=200, deadline=None)
settings.register_profile(
    "emulated", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def _native_status():
    from acl_bridge import native_available

    status = native_available()
    if isinstance(status, tuple):
        ok, reason = bool(status[0]), str(status[1])
    else:
        ok, reason = bool(status), "" if status else "native ACL module not available"
    if ok:  # the acl marker means ACL's NE functions; Debian's amd64 ACL is the CL backend alone
        from acl_bridge.native import require_native

        if not require_native()[1].acl_shim_neon_available():
            return False, "this ACL has no NE (NEON) functions (CL backend only: see tests/cl)"
    return ok, reason


def pytest_report_header(config):
    ok, reason = _native_status()
    if not ok:
        return [f"acl_bridge native: not available ({reason})"]
    lines = ["acl_bridge native: available"]
    try:
        from acl_bridge import native

        lines.append(f"ACL version: {native.acl_version()}")
    except Exception as e:  # the header must never break the run
        lines.append(f"ACL version: unknown ({e})")
    return lines


def pytest_collection_modifyitems(config, items):
    ok, reason = _native_status()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"needs arm64 + native ACL: {reason}")
    for item in items:
        if item.get_closest_marker("acl") is not None:  # the marker, not the tests/acl folder name
            item.add_marker(skip)
