"""NdArray <-> Arm NN (pyarmnn) interop, on CpuAcc (arm64 with python3-pyarmnn).

Runs in the emulated bookworm (Arm NN 20.08, reports 22.0.0) and trixie (23.08, reports
33.0.0) images. Every test except the first needs pyarmnn and is marked ``acl``; where
pyarmnn cannot be imported they skip with the reason ``armnn_available()`` gives.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

from ndarray import NdArray, NotRepresentableError
from acl_bridge import armnn

_OK, _WHY = armnn.armnn_available()


def padded(shape, dtype="float32", pad=(2, 3)):
    """An NdArray with padding on its last two axes (rows and columns), padding cells = 77."""
    paddings = [0] * (len(shape) - 2) + [pad[0] * 2, pad[1] * 2]
    offsets = [0] * (len(shape) - 2) + [pad[0], pad[1]]
    a = NdArray.zeros(shape, dtype, paddings=paddings, padding_offsets=offsets)
    a.fill_padding(77)
    return a


def test_import_is_lazy_and_says_why():
    """acl_bridge.armnn imports everywhere without touching pyarmnn; availability has a reason."""
    code = ("import sys, acl_bridge.armnn as a; assert 'pyarmnn' not in sys.modules; "
            "ok, why = a.armnn_available(); print(ok, bool(why))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() in (["True", "True"], ["False", "True"])
    if not _OK:
        assert "pyarmnn" in _WHY
        with pytest.raises(armnn.ArmnnUnavailableError, match="pyarmnn could not be imported"):
            armnn.load()


@pytest.mark.acl
@pytest.mark.skipif(not _OK, reason=f"needs pyarmnn: {_WHY}")
def test_version_and_deprecation_notice_recorded():
    version = armnn.armnn_version()
    assert version.split(".")[0] in ("22", "33"), version
    assert armnn.release() in ("20.08", "23.08")
    # 23.08 prints a deprecation notice at import: captured, not on stdout, and raised as a
    # PyArmnnDeprecationWarning (in a fresh process, where the import really happens).
    code = ("import warnings, acl_bridge.armnn as a\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    a.load()\n"
            "print('NOTES', a.import_notes())\n"
            "print('WARNED', [x.category.__name__ for x in w])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("NOTES") and lines[1].startswith("WARNED"), out  # nothing else on stdout
    if armnn.release() == "23.08":
        assert "deprecated" in lines[0] and "PyArmnnDeprecationWarning" in lines[1]
    else:
        assert "PyArmnnDeprecationWarning" not in lines[1]


# ---------------------------------------------------------------------------- tensor infos
@pytest.mark.acl
@pytest.mark.skipif(not _OK, reason=f"needs pyarmnn: {_WHY}")
class TestTensorInfo:
    def test_float32_round_trip(self):
        a = NdArray.zeros((2, 3, 4, 5))
        info = armnn.armnn_tensor_info(a)
        assert armnn.describe(info) == ((2, 3, 4, 5), np.dtype("float32"), None)
        d, q = armnn.descriptor_from_armnn_info(info)
        assert d.shape == (2, 3, 4, 5) and d.dtype == np.float32 and d.is_contiguous("c") and q is None
        assert info.GetNumBytes() == 2 * 3 * 4 * 5 * 4
        assert armnn.format_tensor_info(info) == "Float32[2,3,4,5]"

    def test_padded_descriptor_maps_to_its_logical_shape(self):
        a = padded((1, 2, 3, 4))
        assert armnn.describe(armnn.armnn_tensor_info(a))[0] == (1, 2, 3, 4)

    @pytest.mark.parametrize("dtype,quant,name", [
        ("uint8", (0.5, 10), "QAsymmU8"), ("int8", (0.25, -3), "QAsymmS8"), ("int16", (0.125, 0), "QSymmS16")])
    def test_quantized_round_trip(self, dtype, quant, name):
        info = armnn.armnn_tensor_info(NdArray.zeros((3, 4), dtype), quant)
        shape, dt, q = armnn.describe(info)
        assert (shape, dt, q) == ((3, 4), np.dtype(dtype), quant)
        assert info.GetDataType() == getattr(armnn.load(), "DataType_" + name)
        assert armnn.format_tensor_info(info).startswith(f"{name}[3,4] q=(")

    def test_constant_flag(self):
        info = armnn.armnn_tensor_info(NdArray.zeros((4,)), constant=True)
        if hasattr(info, "IsConstant"):  # 23.08; 20.08 has no such flag
            assert info.IsConstant()
            assert "const" in armnn.format_tensor_info(info)

    def test_not_representable(self):
        with pytest.raises(NotRepresentableError, match=r"uint8 has no Arm NN data type \(quantized types need"):
            armnn.armnn_tensor_info(NdArray.zeros((2,), "uint8"))
        with pytest.raises(NotRepresentableError, match="float64 has no Arm NN data type"):
            armnn.armnn_tensor_info(NdArray.zeros((2,), "float64"))
        with pytest.raises(NotRepresentableError, match="QSymmS16 is symmetric"):
            armnn.armnn_tensor_info(NdArray.zeros((2,), "int16"), (0.5, 3))
        with pytest.raises(NotRepresentableError, match="no quantized Arm NN data type"):
            armnn.armnn_tensor_info(NdArray.zeros((2,), "float32"), (0.5, 3))


# ---------------------------------------------------------------------------- const tensors
@pytest.mark.acl
@pytest.mark.skipif(not _OK, reason=f"needs pyarmnn: {_WHY}")
class TestConstTensor:
    def test_dense_is_zero_copy(self):
        a = NdArray.from_numpy(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
        before = armnn.copy_stats()
        with warnings.catch_warnings():
            warnings.simplefilter("error", armnn.ArmnnCopyWarning)
            ct, copied = armnn.const_tensor(a)
        assert copied == 0 and armnn.copy_stats() == before
        back = armnn.to_ndarray(ct)
        assert np.shares_memory(back.numpy(), a.numpy())
        np.testing.assert_array_equal(back.numpy(), a.numpy())
        assert a.numpy().flags.writeable  # pyarmnn froze its own view, not the user's array

    def test_padded_copy_is_counted_and_warned(self):
        a = padded((2, 3, 4))
        a.numpy()[...] = np.arange(24).reshape(2, 3, 4)
        before = armnn.copy_stats()
        with pytest.warns(armnn.ArmnnCopyWarning, match="copying 96 bytes into a dense buffer: a padded buffer"):
            ct, copied = armnn.const_tensor(a)
        assert copied == 96
        after = armnn.copy_stats()
        assert (after.copies - before.copies, after.bytes_copied - before.bytes_copied) == (1, 96)
        back = armnn.to_ndarray(ct)
        assert not np.shares_memory(back.numpy(), a.allocation)
        np.testing.assert_array_equal(back.numpy(), a.numpy())

    def test_strided_view_needs_a_copy(self):
        base = NdArray.from_numpy(np.arange(20, dtype=np.float32).reshape(4, 5))
        view = base[:, 1:4]
        with pytest.warns(armnn.ArmnnCopyWarning):
            ct, copied = armnn.const_tensor(view)
        assert copied == 4 * 3 * 4
        np.testing.assert_array_equal(armnn.to_ndarray(ct).numpy(), np.arange(20).reshape(4, 5)[:, 1:4])

    def test_allow_copy_false_refuses(self):
        with pytest.raises(NotRepresentableError, match="Arm NN tensors are dense .* allow_copy=False"):
            armnn.const_tensor(padded((2, 3, 4)), allow_copy=False)

    def test_quantized(self):
        q = NdArray.from_numpy(np.array([[0, 10, 255]], np.uint8))
        ct, copied = armnn.const_tensor(q, (0.5, 10))
        assert copied == 0
        assert armnn.describe(ct.GetInfo()) == ((1, 3), np.dtype("uint8"), (0.5, 10))


# ---------------------------------------------------------------------------- networks on CpuAcc
def _relu_net(shape, dtype="float32", quantization=None):
    net = armnn.Network()
    x = net.input(shape, dtype, quantization)
    net.output(net.activation(x, "relu"))
    return net.compile(("CpuAcc",))


@pytest.mark.acl
@pytest.mark.skipif(not _OK, reason=f"needs pyarmnn: {_WHY}")
class TestNetworks:
    def test_relu_dense_in_place_configure_once_run_many(self):
        compiled = _relu_net((1, 2, 3, 4))
        x = NdArray.from_numpy((np.arange(24, dtype=np.float32) - 12).reshape(1, 2, 3, 4))
        y = NdArray.full((1, 2, 3, 4), -1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("error", armnn.ArmnnCopyWarning)
            b = compiled.bind([x], [y])
        assert b.staged == () and b.bytes_per_run == 0
        out = b.run()
        assert out[0] is y
        np.testing.assert_array_equal(y.numpy(), np.maximum(x.numpy(), 0))
        x.numpy()[...] *= -1  # the same binding sees the new input values
        b.run()
        np.testing.assert_array_equal(y.numpy(), np.maximum(x.numpy(), 0))
        assert b.bytes_copied == 0

    def test_relu_padded_in_and_out_copies_counted(self):
        compiled = _relu_net((1, 2, 3, 4))
        x = padded((1, 2, 3, 4))
        x.numpy()[...] = (np.arange(24) - 12).reshape(1, 2, 3, 4)
        y = padded((1, 2, 3, 4))
        with pytest.warns(armnn.ArmnnCopyWarning, match="copying 192 bytes per run"):
            b = compiled.bind([x], [y])
        assert b.staged == ("input 0", "output 0") and b.bytes_per_run == 192
        b.run()
        b.run()
        assert (b.copies, b.bytes_copied) == (4, 384)
        np.testing.assert_array_equal(y.numpy(), np.maximum(x.numpy(), 0))
        assert np.all(y.buffer()[y.padding_mask()] == 77)  # padding cells untouched

    def test_outputs_allocated_when_not_given(self):
        compiled = _relu_net((2, 5))
        x = NdArray.from_numpy(np.linspace(-1, 1, 10, dtype=np.float32).reshape(2, 5))
        (y,) = compiled.run([x])
        assert isinstance(y, NdArray) and y.shape == (2, 5)
        np.testing.assert_array_equal(y.numpy(), np.maximum(x.numpy(), 0))

    def test_quantized_relu(self):
        scale, offset = 0.5, 100
        compiled = _relu_net((1, 16), "uint8", (scale, offset))
        x = NdArray.from_numpy(np.arange(80, 240, 10, dtype=np.uint8).reshape(1, 16))
        y = NdArray.zeros((1, 16), "uint8")
        compiled.run([x], [y])
        # real = scale * (q - offset); relu in the real domain, same quantization out
        expected = np.maximum(x.numpy(), offset)
        np.testing.assert_array_equal(y.numpy(), expected)

    def test_shape_mismatch_is_clear(self):
        compiled = _relu_net((1, 4))
        with pytest.raises(ValueError, match=r"input 0 is float32\[1, 5\], the network's input .* is float32\[1, 4\]"):
            compiled.bind([NdArray.zeros((1, 5))])

    def test_small_cnn_layers_match_numpy(self):
        from acl_bridge import demo

        rng = np.random.default_rng(0)
        x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
        w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
        bias = rng.standard_normal(3).astype(np.float32)
        fw = rng.standard_normal((4, 3)).astype(np.float32)
        fb = rng.standard_normal(4).astype(np.float32)
        net = armnn.Network()
        t = net.conv2d(net.input(x.shape), w, bias, stride=1, padding=1)
        t = net.pool2d(t, "avg", 6, 1)
        t = net.fully_connected(net.reshape(t, (1, 3)), fw, fb)
        net.output(net.softmax(t))
        (y,) = net.compile().run([x])
        ref = demo.softmax_ref(demo.fc_ref(demo.pool2d_ref(demo.conv2d_ref(x, w, bias, 1, 1), "avg", 6, 1)
                                           .reshape(1, 3), fw, fb))
        np.testing.assert_allclose(y.numpy(), ref, atol=1e-5)
