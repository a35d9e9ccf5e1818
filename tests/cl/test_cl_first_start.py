"""A first start on ACL's OpenCL backend (24.11: every step NHWC, whose kernels ask no padding:
acl_bridge.native.kernels_ask_padding) asks ACL no required padding, and decides what a second
start recalls from the facts cache, function by function; ACL asked on the same plan afterwards
asks none of any step, nor does validate() of those dense layouts: what keeps that fact honest
here, on the device the tests run on. Where the one native call refuses, the start negotiates
again asking, as on NEON."""

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from models.conftest import model_file  # noqa: E402
from models.test_first_start_decisions_acl import (check_first_start_recalled,  # noqa: E402
                                                   check_refused_batch_negotiates_again)

pytestmark = pytest.mark.cl


@pytest.mark.parametrize("name", ["face_detection_front", "keyword_spotting"])
def test_a_first_start_on_cl_asks_no_padding_and_decides_what_the_second_recalls(name, tmp_path):
    from acl_bridge import native

    assert not native.kernels_ask_padding("cl", "NHWC")  # (this stage's ACL is 24.11)
    check_first_start_recalled(model_file(name), tmp_path, backend="cl")


def test_a_refused_first_start_on_cl_negotiates_again_asking(monkeypatch):
    check_refused_batch_negotiates_again(monkeypatch, model_file("keyword_spotting"), backend="cl")
