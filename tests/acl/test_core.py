"""Native layer basics: loading, version report, threads, the status->exception path,
tensor import (zero copy) and lifetimes, padding negotiation and the copy fallback."""

import gc
import warnings

import numpy as np
import pytest

from ndarray import InvalidLayoutError, NdArray, NotRepresentableError, ShapeDescriptor
from ndarray.errors import UnsupportedOptionError

from .helpers import Guarded, arange_values

pytestmark = pytest.mark.acl


def test_native_available_and_report():
    from acl_bridge import native

    ok, reason = native.native_available()
    assert ok, reason
    version = native.acl_version()
    assert version in ("20.08", "24.11"), version
    assert native.compiled_acl_version() == version
    report = native.cpu_report()
    assert report.num_cpus >= 1 and report.num_threads >= 1
    assert isinstance(report.fp16, bool) and isinstance(report.dot_product, bool)
    assert isinstance(report.f16_kernels, bool)
    assert "ACL " + version in str(report)


def test_set_num_threads():
    from acl_bridge import native

    before = native.num_threads()
    try:
        native.set_num_threads(1)
        assert native.num_threads() == 1
        native.set_num_threads(2)
        assert native.num_threads() == 2
    finally:
        native.set_num_threads(before)
    with pytest.raises(ValueError, match="num_threads is -1"):
        native.set_num_threads(-1)


def test_acl_status_becomes_exception_with_acls_message():
    from acl_bridge.functions import Activation
    from acl_bridge.native import AclError, AclStatusError

    src = NdArray.zeros((2, 3, 4))
    dst = NdArray.zeros((2, 3, 5))
    with pytest.raises(AclStatusError, match="NEActivationLayer::validate: .*Tensors have different shapes") as e:
        Activation(src, dst, "relu")
    assert isinstance(e.value, AclError) and isinstance(e.value, RuntimeError)
    assert e.value.code == 2
    assert "validate" in e.value.message


def test_shim_argument_errors_are_exceptions():
    from acl_bridge.functions import Pooling
    from acl_bridge.native import AclInvalidArgumentError

    from acl_bridge.executor import negotiate_padding
    from acl_bridge.functions import default_params

    src = NdArray.zeros((1, 1, 4, 4))
    dst = NdArray.zeros((1, 1, 2, 2))
    # the Python side names the field first ...
    with pytest.raises(InvalidLayoutError, match="stride is 0, expected an integer >= 1"):
        Pooling(src, dst, "max", kernel=2, stride=0)
    # ... and the shim's own argument check still becomes an exception, never a crash
    p = default_params()
    p.kernel_w = p.kernel_h = 2
    p.stride_x = 0
    spec = ((1, 1, 4, 4), np.dtype("float32"), "NCHW", None)
    with pytest.raises(AclInvalidArgumentError, match="stride_x and stride_y must be >= 1"):
        negotiate_padding("pooling", p, [spec, ((1, 1, 2, 2), np.dtype("float32"), "NCHW", None)])


def test_unknown_activation_name():
    from acl_bridge.functions import Activation

    a = NdArray.zeros((4,))
    with pytest.raises(UnsupportedOptionError, match="function is 'nope'"):
        Activation(a, a, "nope")


def test_tensor_import_is_zero_copy_and_keeps_memory_alive():
    from acl_bridge.mapping import PaddingSize
    from acl_bridge.tensor import AclTensor

    g = Guarded((2, 2, 5, 5), variant="padded")
    # memory brought in (a slice of the caller's buffer): its padding is never declared
    assert AclTensor(g.array).declared_padding is None
    own = NdArray.full((2, 2, 5, 5), 1.0, paddings=(0, 0, 1, 1))  # the library's own allocation
    t = AclTensor(own)
    assert t.data_ptr == own.data_ptr
    assert t.info.strides_in_bytes == (4, 24, 144, 288)  # the ADR's padded example
    assert t.info.total_size_in_bytes == 576
    # ACL's own padded layout: the padding is declared, so ACL's padding() reports it
    assert t.declared_padding == PaddingSize(top=0, right=1, bottom=1, left=0)
    assert t.acl_padding() == t.declared_padding
    s = AclTensor(g.array[:, :1])  # a view with a gap between batches: custom strides only
    assert s.declared_padding is None and s.acl_padding() == PaddingSize()
    ref = t.array
    del own, g
    gc.collect()
    assert t.array is ref  # the tensor still holds the memory
    with t:
        pass
    from acl_bridge.native import AclError

    with pytest.raises(AclError, match="tensor is closed"):
        t.handle


def test_run_after_close_raises():
    from acl_bridge.functions import Copy
    from acl_bridge.native import AclError

    src, dst = NdArray.zeros((3, 4)), NdArray.zeros((3, 4))
    f = Copy(src, dst)
    f.close()
    with pytest.raises(AclError, match="closed"):
        f.run()


def test_required_padding_can_be_allocated_up_front():
    """Negotiate first, allocate exactly that padding with padded_empty (the bridge's own
    buffers), then configure: nothing is staged, on 20.08 too, where pooling with pool padding
    fills the border of its input's padding (ACL may: the padding is the bridge's). The same
    padding in memory the caller brought (a slice of a bigger buffer) is not the bridge's to
    give: ACL never writes it, whatever the flags, and the result is the same."""
    from acl_bridge.functions import Pooling

    shape, out_shape = (1, 2, 9, 9), (1, 2, 9, 9)
    kwargs = dict(pool_type="max", kernel=3, stride=1, padding=1)
    pads = Pooling.required_padding(ShapeDescriptor.create(shape), ShapeDescriptor.create(out_shape), **kwargs)
    x = np.pad(arange_values(shape), ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    ref = np.max(np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3)), axis=(-2, -1))
    src = Pooling.padded_empty(shape, "float32", pads["src"])
    dst = Pooling.padded_empty(out_shape, "float32", pads["dst"])
    src.numpy()[...] = arange_values(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no copy-fallback warning
        f = Pooling(src, dst, **kwargs)
    assert f.staged == ()
    f.run()
    assert f.copy_count == 0
    assert f.tensors["src"].data_ptr == src.data_ptr and f.tensors["dst"].data_ptr == dst.data_ptr
    np.testing.assert_array_equal(dst.numpy(), ref)
    for allow in (False, True):
        g_src = Guarded(shape, padding=pads["src"]).set(arange_values(shape))
        g_dst = Guarded(out_shape, padding=pads["dst"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = Pooling(g_src.array, g_dst.array, allow_padding_writes=allow, **kwargs)
        f.run()
        assert f.copy_count == f.plan.copies_per_run
        np.testing.assert_array_equal(g_dst.numpy(), ref)
        assert g_src.untouched() and g_dst.untouched()


def test_copy_fallback_when_padding_is_missing_is_counted_and_correct():
    """ACL 20.08's 3x3 pooling with pad 1 asks for input padding; a dense buffer lacks it."""
    from acl_bridge.functions import AclCopyFallbackWarning, Pooling, total_copy_count

    shape = (1, 2, 9, 9)
    src = Guarded(shape).set(arange_values(shape))
    dst = Guarded(shape)
    kwargs = dict(pool_type="max", kernel=3, stride=1, padding=1)
    pads = Pooling.required_padding(src.array, dst.array, **kwargs)
    needs_padding = any(pads["src"].as_tuple())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f = Pooling(src.array, dst.array, **kwargs)
    fallback = [x for x in w if issubclass(x.category, AclCopyFallbackWarning)]
    assert bool(fallback) == needs_padding
    assert ("src" in f.staged) == needs_padding
    before = total_copy_count()
    f.run()
    f.run()
    assert f.copy_count == (2 if needs_padding else 0)
    assert total_copy_count() - before == f.copy_count
    x = np.pad(src.numpy(), ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    ref = np.max(np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3)), axis=(-2, -1))
    np.testing.assert_array_equal(dst.numpy(), ref)
    assert src.untouched() and dst.untouched()
    assert f.tensors["dst"].data_ptr == dst.array.data_ptr


def test_unrepresentable_layout_uses_counted_fallback_on_every_version():
    from acl_bridge.functions import AclCopyFallbackWarning, Activation

    shape = (3, 8)
    src = Guarded(shape, variant="flipped").set(arange_values(shape, modulo=11))
    dst = Guarded(shape)
    with pytest.warns(AclCopyFallbackWarning, match="src: .*strides"):
        f = Activation(src.array, dst.array, "relu")
    assert f.staged == ("src",)
    f.run()
    assert f.copy_count == 1
    np.testing.assert_array_equal(dst.numpy(), np.maximum(src.numpy(), 0))
    assert src.untouched() and dst.untouched()


def test_allow_copy_false_refuses_the_fallback():
    from acl_bridge.functions import Activation

    shape = (3, 8)
    src = Guarded(shape, variant="flipped")
    dst = Guarded(shape)
    with pytest.raises(NotRepresentableError, match="allow_copy=False"):
        Activation(src.array, dst.array, "relu", allow_copy=False)


def test_run_releases_the_gil_and_runs_many_times():
    import threading

    from acl_bridge.functions import Add

    shape = (64, 64)
    a, b, d = NdArray.zeros(shape), NdArray.zeros(shape), NdArray.zeros(shape)
    f = Add(a, b, d)
    errors = []

    def work(k):
        try:
            for _ in range(3):
                f.run()
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(3):
        a.numpy()[...] = i
        b.numpy()[...] = 2 * i
        f.run()
        np.testing.assert_array_equal(d.numpy(), np.full(shape, 3.0 * i))


def test_default_params_are_a_fresh_copy_of_the_neutral_fields():
    """default_params (a copy of one struct made once, issue 40) holds the bytes of a struct
    whose neutral fields are stored one by one, and each call gives a struct of its own."""
    from acl_bridge import abi
    from acl_bridge.functions import default_params
    from acl_bridge.native import require_native

    ffi, _ = require_native()
    expected = ffi.new("acl_shim_params *")
    expected.activation = abi.ACTIVATIONS["none"]
    expected.scale = expected.alpha = expected.beta = 1.0
    expected.stride_x = expected.stride_y = expected.depth_multiplier = expected.transpose_weights = 1
    expected.convert_policy = abi.POLICIES["saturate"]
    expected.rounding_policy = abi.ROUNDING["to_zero"]
    a, b = default_params(), default_params()
    assert ffi.buffer(a)[:] == ffi.buffer(b)[:] == ffi.buffer(expected)[:]
    a.stride_x = 7
    assert b.stride_x == 1 and default_params().stride_x == 1
