"""The batch's comparison of kept description records with the call's (configure_batch.
_descs_not_the_calls: the records' leading bytes gathered and compared in one go, the kept
per-channel scales joined and compared with the call's in one go), on records built here: pure
Python, no ACL. Mutants one bit off anywhere in a compared field or a kept scale are refused,
naming the tensor; the records as the call describes them pass. The same comparison inside a
native batch: tests/acl/test_configure_batch.py."""

import struct

import numpy as np
import pytest

from acl_bridge import configure_batch as cb
from acl_bridge.decisions import KeptDecisions

SIZE = 40  # bytes per record: 24 compared (as the call's expectations below), the rest not compared
SCALES = {1: (0.01, 0.02, 0.03), 3: (0.5, 0.25)}


def _kept(blob: bytes, tails: dict) -> KeptDecisions:
    """Records of four tensors (tensor 2 absent) with the per-channel scales ``tails``."""
    return KeptDecisions((), (), (), ("layout",), (), (0, 0, -1, 0), b"", 0, blob, SIZE, tails)


def _case():
    expected = [struct.pack("=6I", k, 1, 2, 3, 4, k * 7) for k in (0, 1, 3)]  # the call's, per given tensor
    blob = bytearray(4 * SIZE)
    for k, want in zip((0, 1, 3), expected):
        blob[k * SIZE:k * SIZE + len(want)] = want
        blob[k * SIZE + 30] = 0xAB  # past the compared bytes: not the Python comparison's
    tails = {k: np.asarray(v, np.float32).tobytes() for k, v in SCALES.items()}
    return bytes(blob), tails, expected


def _why(blob, tails, expected):
    return cb._descs_not_the_calls(_kept(blob, tails), expected, [0, 1, 3], dict(SCALES), lambda k: f"tensor {k}")


def test_records_as_the_call_describes_them_pass():
    blob, tails, expected = _case()
    assert _why(blob, tails, expected) == ""
    assert cb._leading_bytes_equal(blob, SIZE, [0, 1, 3], expected)


@pytest.mark.parametrize("k", [0, 1, 3])
def test_every_compared_bit_of_a_record_is_refused(k):
    blob, tails, expected = _case()
    for at in range(k * SIZE, k * SIZE + len(expected[0])):
        for bit in range(8):
            mutant = bytearray(blob)
            mutant[at] ^= 1 << bit
            why = _why(bytes(mutant), tails, expected)
            assert why.startswith(f"tensor {k}: its kept description is not its array's"), (at, bit, why)


def test_bytes_past_the_compared_fields_and_absent_records_are_not_compared():
    blob, tails, expected = _case()
    mutant = bytearray(blob)
    mutant[0 * SIZE + 35] ^= 0xFF
    mutant[2 * SIZE + 3] ^= 0xFF  # tensor 2 is absent
    assert _why(bytes(mutant), tails, expected) == ""


@pytest.mark.parametrize("k", sorted(SCALES))
def test_every_bit_of_a_kept_per_channel_scale_is_refused(k):
    blob, tails, expected = _case()
    for at in range(len(tails[k])):
        for bit in range(8):
            tail = bytearray(tails[k])
            tail[at] ^= 1 << bit
            why = _why(blob, {**tails, k: bytes(tail)}, expected)
            assert why == f"tensor {k}'s kept per-channel scales are not the call's", (at, bit, why)


def test_scales_kept_for_other_tensors_or_of_another_count_are_refused():
    blob, tails, expected = _case()
    assert "per-channel scales are kept for tensors [1]" in _why(blob, {1: tails[1]}, expected)
    shorter = {**tails, 1: tails[1][:8]}  # two of the three scales: the joined bytes shift
    assert _why(blob, shorter, expected) == "tensor 1's kept per-channel scales are not the call's"
    swapped = {1: tails[3] + tails[1][:4], 3: tails[1][4:]}  # the same bytes joined, split elsewhere
    assert _why(blob, swapped, expected) == "tensor 1's kept per-channel scales are not the call's"
