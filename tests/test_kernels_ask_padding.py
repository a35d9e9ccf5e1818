"""Which ACL counts as having kernels that ask no padding (acl_bridge.native.kernels_ask_padding,
what lets a first start skip the padding negotiation's questions): NEON from 24.11 on, and CL on
NHWC tensors from 24.11 on, nothing else. The version string is given here (no native module
needed); that 24.11's kernels do ask none is asked of ACL itself, on every fetched model by
tests/models/test_first_start_decisions_acl.py (NEON) and tests/cl/test_cl_first_start.py (CL),
and per row of the function table by tests/acl/helpers.py."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acl_bridge import native


@pytest.mark.parametrize("version, backend, layout, asks", [
    ("24.11", "neon", "NCHW", False),
    ("24.11", "neon", "NHWC", False),
    ("25.02", "neon", "NCHW", False),
    ("24.11", "cl", "NHWC", False),
    ("25.02", "cl", "NHWC", False),
    ("24.11", "cl", "NCHW", True),  # OpenCL's NCHW convolution asks its input padding
    ("23.08", "cl", "NHWC", True),  # not measured here: counts as asking
    ("20.08", "neon", "NHWC", True),  # 20.08's pooling, depthwise... ask padding
    ("21.02", "neon", "NCHW", True),  # not measured here: counts as asking
    ("unknown (arm_compute_version=vmaster)", "neon", "NCHW", True),
    ("unknown (arm_compute_version=vmaster)", "cl", "NHWC", True),
    ("24.11", "numpy", "NHWC", True),  # no ACL kernels: nothing is known of them
])
def test_kernels_ask_padding_by_version_backend_and_layout(version, backend, layout, asks, monkeypatch):
    monkeypatch.setattr(native, "acl_version", lambda: version)
    native.kernels_ask_padding.cache_clear()
    try:
        assert native.kernels_ask_padding(backend, layout) is asks
    finally:
        native.kernels_ask_padding.cache_clear()  # the real ACL's answer, asked again when needed


# the regular expressions the version readers replace (compiling them cost a first start; what they
# find is the readers' contract)
_VERSION_PATTERN = r"arm_compute_version=v?([0-9][0-9.]*)"
_MAJOR_MINOR_PATTERN = r"(\d+)\.(\d+)"
# build_information's alphabet and its near misses: ASCII and other Unicode digits, dots, the key's letters
_TEXT = st.lists(st.sampled_from(list("0123456789.v=_ x") + ["arm_compute_version=", "\u0663", "\uff11"]),
                 max_size=30).map("".join)


@given(_TEXT)
def test_the_version_reader_finds_what_the_pattern_finds(text):
    m = re.search(_VERSION_PATTERN, text)
    assert native._version_in(text) == (m.group(1) if m else None)


@given(_TEXT)
def test_major_minor_is_what_the_pattern_matches(text):
    m = re.match(_MAJOR_MINOR_PATTERN, text)
    assert native._major_minor(text) == ((int(m.group(1)), int(m.group(2))) if m else None)


@pytest.mark.parametrize("info, found", [
    ("arm_compute_version=v24.11 Build options: ...", "24.11"),
    ("x arm_compute_version=20.08 y", "20.08"),
    ("arm_compute_version=vmaster arm_compute_version=v23.08", "23.08"),  # the first that reads as a version
    ("arm_compute_version=v", None),
])
def test_the_version_reader_on_worked_examples(info, found):
    assert native._version_in(info) == found
