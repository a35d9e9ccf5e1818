"""TFLite's integer primitives (``acl_bridge.models.fallback.int8_reference``) on values worked out by
hand from the documented algorithms: the edges where rounding and saturation decide."""

import numpy as np
import pytest

from acl_bridge.models.fallback import int8_reference as q8


@pytest.mark.parametrize("real,expect", [
    (0.0, (0, 0)),
    (0.5, (2 ** 30, 0)),            # 0.5 = 0.5 * 2**0
    (1.0, (2 ** 30, 1)),            # frexp: 0.5 * 2**1
    (0.75, (3 * 2 ** 29, 0)),
    (1 - 2 ** -40, (2 ** 30, 1)),   # the mantissa rounds up to 2**31: halved, shift + 1
    (1e-12, (0, 0)),                # shift below -31: zero
])
def test_quantize_multiplier(real, expect):
    q, shift = q8.quantize_multiplier(real)
    assert (int(q[0]), int(shift[0])) == expect


def test_rounding_doubling_high_mul_saturates_and_rounds_ties_up():
    assert int(q8.saturating_rounding_doubling_high_mul(q8.INT32_MIN, q8.INT32_MIN)) == q8.INT32_MAX
    # 2 * 3 * 2**30 / 2**32 = 1.5 -> 2; -1.5 -> -1: the nudge of a negative product is
    # 1 - 2**30, then the division truncates toward zero
    assert q8.saturating_rounding_doubling_high_mul(np.array([3, -3]), 2 ** 30).tolist() == [2, -1]


def test_rounding_divide_by_power_of_two_rounds_half_away_from_zero():
    x = np.array([5, -5, 6, -6, -1, 1, 7, -7])
    assert q8.rounding_divide_by_pot(x, 1).tolist() == [3, -3, 3, -3, -1, 1, 4, -4]
    assert q8.rounding_divide_by_pot(x, 2).tolist() == [1, -1, 2, -2, 0, 0, 2, -2]


def test_single_rounding_rounds_half_up():
    # x * 2**30 * 2**(0 - 31) = x / 2: 5 / 2 -> 3, -5 / 2 -> -2 (half up), -61.494 -> -61
    assert q8.multiply_single_rounding(np.array([5, -5]), 2 ** 30, 0).tolist() == [3, -2]


def test_average_pool_divides_rounding_half_away_from_zero():
    x = np.array([[-3, -2], [5, 0]], np.int8).reshape(1, 2, 2, 1)  # one 2x2 window: sum 0 -> 0
    assert q8.average_pool(x, (2, 2), (2, 2), (0, 0, 0, 0), (-128, 127), np.int8).item() == 0
    x = np.array([-3, -2], np.int8).reshape(1, 1, 2, 1)  # -5 / 2 = -2.5 -> -3
    assert q8.average_pool(x, (1, 2), (1, 2), (0, 0, 0, 0), (-128, 127), np.int8).item() == -3
    x = np.array([3, 2], np.int8).reshape(1, 1, 2, 1)
    assert q8.average_pool(x, (1, 2), (1, 2), (0, 0, 0, 0), (-128, 127), np.int8).item() == 3


def test_quantize_rounds_half_away_from_zero_and_clamps():
    x = np.array([2.5, -2.5, 0.49, 1000.0, -1000.0], np.float32)
    assert q8.quantize(x, (1.0, 0), np.int8).tolist() == [3, -3, 0, 127, -128]
    assert q8.quantize(x, (0.5, 10), np.uint8).tolist() == [15, 5, 11, 255, 0]


def test_activation_clamps_in_the_quantized_domain():
    # scale 0.08, zero point -7: relu6 clamps at -7 and -7 + round(6 / 0.08) = 68
    assert q8.activation_range("bounded_relu", 6.0, 0.0, 0.08, -7, np.int8) == (-7, 68)
    assert q8.activation_range("relu", 0.0, 0.0, 0.08, -7, np.int8) == (-7, 127)
    assert q8.activation_range(None, 0.0, 0.0, 0.08, -7, np.uint8) == (0, 255)
    with pytest.raises(ValueError, match="activation 'tanh' has no quantized clamp"):
        q8.activation_range("tanh", 1.0, 1.0, 0.08, -7, np.int8)
