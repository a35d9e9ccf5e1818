"""acl_bridge.layout: the one home of dimension order, side order and the integer rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acl_bridge.layout import (
    SIDES,
    PaddingSize,
    check_int,
    pad_width_to_acl,
    permutation_to_acl,
    to_acl_order,
    window_padding,
    window_stride,
)
from ndarray.errors import ArgumentTypeError, InvalidLayoutError, UnsupportedOptionError


def test_acl_order_is_numpy_order_reversed_and_its_own_inverse():
    assert to_acl_order((2, 3, 4, 5)) == (5, 4, 3, 2)
    assert to_acl_order(to_acl_order((1, 2, 3))) == (1, 2, 3)


def test_side_order_is_acls_padding_size_order():
    assert SIDES == ("top", "right", "bottom", "left")
    p = PaddingSize.from_tuple((1, 2, 3, 4))
    assert (p.top, p.right, p.bottom, p.left) == (1, 2, 3, 4) and p.as_tuple() == (1, 2, 3, 4)
    assert p.union(PaddingSize(5, 0, 0, 5)) == PaddingSize(5, 2, 3, 5)
    assert p.for_rank(1) == PaddingSize(0, 2, 3, 4) and p.for_rank(2) == p  # 1-D: bottom rows, no top


@pytest.mark.parametrize("given,expected", [
    (1, PaddingSize(1, 1, 1, 1)),
    ((1, 2), PaddingSize(1, 2, 1, 2)),
    (((1, 2), (3, 4)), PaddingSize(top=1, bottom=2, left=3, right=4)),
    (PaddingSize(1, 2, 3, 4), PaddingSize(1, 2, 3, 4)),
])
def test_window_padding_forms(given, expected):
    assert window_padding(given) == expected


def test_flat_four_tuple_window_padding_is_refused_as_ambiguous():
    with pytest.raises(UnsupportedOptionError, match="a flat 4-tuple is ambiguous"):
        window_padding((1, 2, 3, 4))


def test_integer_rule_refuses_bool_everywhere():
    with pytest.raises(ArgumentTypeError, match="a bool, expected an integer"):
        check_int(True, "stride")
    with pytest.raises(ArgumentTypeError, match="a bool, expected an integer"):
        PaddingSize(top=True)
    with pytest.raises(ArgumentTypeError, match="expected an integer"):
        window_stride(1.5)
    with pytest.raises(InvalidLayoutError, match="stride is 0, expected an integer >= 1"):
        window_stride(0)
    assert check_int(np.int64(3), "n") == 3


def test_permutation_and_pad_width_in_acl_order():
    # NCHW -> NHWC (numpy axes 0,2,3,1): ACL's dst x (C) takes src dimension 2 (C in ACL order)
    assert permutation_to_acl((0, 2, 3, 1)) == (2, 0, 1, 3)
    assert pad_width_to_acl(((0, 0), (1, 2), (3, 4))) == ((3, 4), (1, 2), (0, 0))
    with pytest.raises(InvalidLayoutError, match="expected a permutation"):
        permutation_to_acl((0, 0, 1))


@given(st.builds(PaddingSize, *(st.integers(0, 3) for _ in range(4))), st.integers(0, 6))
def test_for_rank_is_the_padding_a_tensor_of_that_rank_keeps(p, rank):
    """for_rank gives itself where it keeps every side (issue 40: no new value per bias),
    else the same sides without the top: equal to the rule spelled out."""
    expected = p if rank >= 2 else PaddingSize(0, p.right, p.bottom, p.left)
    assert p.for_rank(rank) == expected and type(p.for_rank(rank)) is PaddingSize
