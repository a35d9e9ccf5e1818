"""The native statuses no other test makes happen (issue 41), each for real, through
:func:`acl_bridge.native.check` into its own class of ``acl_bridge.errors``:

* ``AclUnsupportedError``: an activation ACL 20.08 lacks (swish, gelu) on bookworm, from the
  shim's own refusal; on 24.11 the same call runs and is checked against numpy.
* ``AclNotImportedError``: a function run before its tensors' memory was imported. The
  Python layer always imports at configure, so the test leaves out that one step
  (``AclTensor.import_memory`` made a no-op while the function is made): ACL, the shim and its
  run-time check are the real ones, and the run must leave every buffer as it was.
"""

import math

import numpy as np
import pytest

from .helpers import arange_values

pytestmark = pytest.mark.acl

SHAPE = (2, 3, 4, 5)


def _erf(x):
    return np.vectorize(math.erf)(x)


NEWER_ACTIVATIONS = {  # ACL's ActivationLayerInfo formulas (arm_compute/function_info/ActivationLayerInfo.h)
    "swish": lambda x: x / (1 + np.exp(-x)),  # a = 1
    "gelu": lambda x: x * 0.5 * (1 + _erf(x / math.sqrt(2))),
}


@pytest.mark.parametrize("function", sorted(NEWER_ACTIVATIONS))
def test_an_activation_newer_than_acl_is_unsupported_or_runs(function):
    from acl_bridge import Activation, abi
    from acl_bridge.errors import AclUnsupportedError
    from acl_bridge.native import compiled_acl_version

    src = arange_values(SHAPE, modulo=23)  # -2.75 .. 2.75, each value its index's
    before = src.copy()
    dst = np.full(SHAPE, -7.0, np.float32)
    if compiled_acl_version() == "20.08":
        code = abi.ACTIVATIONS[function]
        with pytest.raises(AclUnsupportedError, match=rf"activation {code} needs ACL >= 24.11") as e:
            Activation(src, dst, function=function, a=1.0)
        assert e.value.code == abi.STATUS["UNSUPPORTED"]
        assert (dst == -7.0).all() and np.array_equal(src, before)
        return
    f = Activation(src, dst, function=function, a=1.0)
    f.run()
    want = NEWER_ACTIVATIONS[function](src.astype(np.float64))
    np.testing.assert_allclose(dst, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())
    assert np.array_equal(src, before)
    f.close()


def test_a_run_before_the_memory_is_imported_is_refused(monkeypatch):
    from acl_bridge import Activation, abi
    from acl_bridge.errors import AclNotImportedError
    from acl_bridge.tensor import AclTensor

    src = arange_values((3, 8), modulo=11)
    dst = np.full((3, 8), -7.0, np.float32)
    before = src.copy()
    with monkeypatch.context() as m:
        m.setattr(AclTensor, "import_memory", lambda self: None)  # the one step left out
        f = Activation(src, dst, function="relu")
    assert not any(t.imported for t in f.tensors.values() if t is not None)
    with pytest.raises(AclNotImportedError, match=r"tensor 0 has no memory imported") as e:
        f.run()
    assert e.value.code == abi.STATUS["NOT_IMPORTED"]
    assert (dst == -7.0).all() and np.array_equal(src, before)  # nothing read or written
    f.close()


def test_a_kind_no_family_room_registers_is_refused_naming_it():
    """Every native family room registers itself (native/acl_shim_families.h) and answers only
    its own kinds: a kind none of them has is asked of each and refused by build_on."""
    from acl_bridge.errors import AclInvalidArgumentError
    from acl_bridge.functions import default_params
    from acl_bridge.native import check, require_native

    ffi, lib = require_native()
    descs = ffi.new("acl_shim_tensor_desc *[1]")  # one absent tensor: nothing to describe
    out = ffi.new("acl_shim_padding[1]")
    with pytest.raises(AclInvalidArgumentError, match=r"unknown function kind 999$"):
        check(lib.acl_shim_required_padding(999, default_params(), descs, 1, out), "required_padding")
