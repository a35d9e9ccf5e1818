"""The header is the one source of the ABI: Python's tables come from it, and where the
compiled module exists, its constants equal the parsed header's."""

from __future__ import annotations

import os

import pytest

from acl_bridge import abi
from ndarray.errors import UnsupportedOptionError


HEADER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "native", "acl_shim.h")


def test_tables_come_from_the_header():
    parsed = abi.header_defines(HEADER)
    assert parsed, "native/acl_shim.h not found beside the package"
    assert abi.KINDS["pooling"] == parsed["ACL_SHIM_FN_POOLING"]
    assert abi.ACTIVATIONS["none"] == parsed["ACL_SHIM_ACT_NONE"] == -1
    assert abi.DATA_TYPES["QASYMM8_SIGNED"] == parsed["ACL_SHIM_DT_QASYMM8_SIGNED"]
    assert abi.DATA_LAYOUTS == {"NCHW": 0, "NHWC": 1}
    assert set(abi.POOL_TYPES) == {"max", "avg", "l2"}
    assert set(abi.PAD_MODES) == {"constant", "reflect", "symmetric"}
    assert abi.STATUS["OK"] == 0 and abi.STATUS["ACL_STATUS"] == parsed["ACL_SHIM_ERR_ACL_STATUS"]
    assert abi.ABI_VERSION == parsed["ACL_SHIM_ABI_VERSION"]
    # every kind the header defines has a function class of a family room or is reached
    # through one (log_softmax: Softmax with log=True); the first kinds' classes are still
    # acl_bridge.functions' names
    from acl_bridge import families, functions

    assert set(families.CLASSES) | {"log_softmax"} == set(abi.KINDS)
    assert {name: getattr(functions, name) for name in functions.MOVED_TO_FAMILIES} == \
        {name: families.function_class(name) for name in functions.MOVED_TO_FAMILIES}
    assert {getattr(functions, name).kind for name in functions.MOVED_TO_FAMILIES} | {"log_softmax"} == \
        {k for k, v in abi.KINDS.items() if v <= 20}  # the kinds of ABI 1-7, numbers 1-20
    # the element-wise kinds an output identical to an input may be given to (their classes' in_place)
    assert functions.IN_PLACE_KINDS == functions.in_place_kinds() == {"activation", "add", "sub", "mul", "copy"}
    with pytest.raises(AttributeError, match="has no attribute 'Div'"):
        functions.Div  # a new kind's class is its room's name only


@pytest.mark.acl
def test_compiled_module_agrees_with_the_header():
    from acl_bridge.native import require_native

    _, lib = require_native()
    assert abi.module_defines(lib) == abi.header_defines(HEADER)


def test_unknown_option_names_the_field_and_the_choices():
    with pytest.raises(UnsupportedOptionError, match=r"pool_type is 'mean', expected one of \['avg', 'l2', 'max'\]"):
        abi.code(abi.POOL_TYPES, "mean", "pool_type")
    assert isinstance(UnsupportedOptionError("x"), ValueError)
