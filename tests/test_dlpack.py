"""Issue 16, parts 4 and 6: DLPack never crashes a consumer, dtypes numpy lacks travel through
ml_dtypes, size-0 arrays keep shape and strides, channels_last tensors map to NHWC without
a copy. PyTorch is never installed for the tests (the package index's build pulls gigabytes of
GPU libraries): what it produced and consumed is recorded in tests/fixtures/torch_fixtures.json
(remade by tests/fixtures/make_torch_fixtures.py, which says how) and replayed here
(tests/dlpack_replay.py). JAX (a bfloat16/float8 producer) and ml_dtypes are in the host venv
(docker/emulate.sh HOST_REQUIREMENTS) and run in a subprocess there."""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ndarray import ExportRefusedError, NdArray, NotRepresentableError
from ndarray.formats import torch as tf
from ndarray.formats.dlpack import from_dlpack

HAS_JAX = importlib.util.find_spec("jax") is not None
HAS_ML_DTYPES = importlib.util.find_spec("ml_dtypes") is not None
from dlpack_replay import Replay  # noqa: E402

TORCH = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "torch_fixtures.json")))


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


# ---------------------------------------------------------------------------- export
def test_negative_strides_are_refused_with_buffer_error():
    a = NdArray.from_numpy(np.arange(12.0).reshape(3, 4))[::-1]
    with pytest.raises(BufferError, match=r"strides\[0\] is -4, a negative stride: DLPack consumers such as PyTorch"):
        a.__dlpack__()
    b = from_dlpack(a.contiguous())  # the documented way out: a copy
    np.testing.assert_array_equal(b.numpy(), a.numpy())


def test_size_one_negative_stride_is_harmless_and_exported():
    a = NdArray.from_numpy(np.arange(4.0).reshape(1, 4))[::-1]
    np.testing.assert_array_equal(np.from_dlpack(a), a.numpy())


def test_torch_import_of_every_exported_layout_never_crashes():
    """What torch.from_dlpack made of each exported layout (the fixture): the same refusals
    here, and numpy, as a second consumer, reads the strides and values torch read."""
    base = NdArray.zeros((4, 6), paddings=(2, 3), padding_offsets=(1, 1))
    base.numpy()[...] = np.arange(24).reshape(4, 6)
    layouts = {"padded": base, "step": base[:, ::2], "transposed": base.T, "reversed": base[::-1],
               "reversed-cols": base[:, ::-1], "broadcast": base[0].broadcast_to((3, 6)), "empty": base[:0]}
    assert set(layouts) == set(TORCH["consumer"])
    for name, a in layouts.items():
        torch_saw = TORCH["consumer"][name]
        if "refused" in torch_saw:
            with pytest.raises(BufferError) as e:
                a.__dlpack__()
            assert str(e.value) == torch_saw["refused"], name
            continue
        if a.readonly and np.lib.NumpyVersion(np.__version__) < "2.0.0":
            # numpy 1.x cannot export a read-only array through DLPack (no read-only flag there):
            # the library's own refusal, a BufferError, where torch (with numpy 2) imported it
            with pytest.raises(ExportRefusedError, match="Cannot export readonly array"):
                np.from_dlpack(a)
            continue
        n = np.from_dlpack(a)
        assert list(n.shape) == torch_saw["shape"], name
        if n.size:  # an empty array's strides address nothing: numpy 2.2 makes them dense, 2.4 keeps them
            assert [s // n.itemsize for s in n.strides] == torch_saw["stride"], name
        assert n.tolist() == torch_saw["values"] and n.tolist() == a.numpy().tolist(), name
        assert n.size == 0 or n.ctypes.data == a.data_ptr, name
    assert TORCH["consumer"]["padded"]["stride"] == [9, 1] and TORCH["consumer"]["transposed"]["stride"] == [1, 9]


# ---------------------------------------------------------------------------- size 0
@pytest.mark.parametrize("arr", [np.zeros((2, 0, 3), np.float32), np.zeros((4, 0), np.int16).T,
                                 np.zeros((3, 5), np.float64)[:, 5:]], ids=["c", "transposed", "sliced"])
def test_size_zero_keeps_shape_and_strides(arr):
    a = NdArray.from_numpy(arr)
    assert a.shape == arr.shape and a.descriptor.strides_in_bytes == arr.strides
    assert a.numpy().strides == arr.strides
    back = from_dlpack(a)
    assert back.shape == arr.shape and back.numpy().shape == arr.shape


def test_size_zero_from_torch_keeps_strides():
    """torch.zeros(2, 0, 3).permute(2, 0, 1) as torch exported it (replayed)."""
    rec = TORCH["producers"]["size_zero"]
    a = from_dlpack(Replay(rec))
    assert a.shape == (3, 2, 0) and a.descriptor.strides == tuple(rec["torch_stride"]) == (1, 3, 3), a
    assert a.numpy().strides == tuple(4 * s for s in rec["torch_stride"])


# ---------------------------------------------------------------------------- dtypes numpy lacks
@pytest.mark.skipif(not (HAS_JAX and HAS_ML_DTYPES), reason="needs jax (a bfloat16/float8 DLPack producer) and ml_dtypes")
def test_bfloat16_and_float8_from_jax_through_ml_dtypes():
    out = run_python("""
        import gc, numpy as np, jax.numpy as jnp, ml_dtypes
        from ndarray.formats.dlpack import from_dlpack
        for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
            x = jnp.arange(12, dtype=getattr(jnp, name)).reshape(3, 4)
            a = from_dlpack(x)
            assert a.dtype == np.dtype(getattr(ml_dtypes, name)), (name, a.dtype)
            assert a.shape == (3, 4)
            expected = np.arange(12).reshape(3, 4).astype(getattr(ml_dtypes, name))
            del x; gc.collect()  # the NdArray keeps the producer's memory alive
            assert np.array_equal(a.numpy().astype(np.float32), expected.astype(np.float32)), name
            assert np.array_equal(np.asarray(a + 1).astype(np.float32), (expected + 1).astype(np.float32))
            print(name, "ok")
    """)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["bfloat16", "ok", "float8_e4m3fn", "ok", "float8_e5m2", "ok"]


def test_bfloat16_from_torch():
    """torch.arange(6, dtype=torch.bfloat16).reshape(2, 3).t() as torch exported it (its DLPack
    dtype code, strides and bytes, replayed): read through ml_dtypes without a copy."""
    pytest.importorskip("ml_dtypes", reason="ml_dtypes is in the host venv (docker/emulate.sh), not in the images")
    rec = TORCH["producers"]["bfloat16_transposed"]
    producer = Replay(rec)
    a = from_dlpack(producer)
    assert a.dtype.name == "bfloat16" and a.descriptor.strides == (1, 3), a
    assert a.numpy().astype(np.float32).tolist() == rec["values"]
    assert a.data_ptr == producer.data_ptr


@pytest.mark.skipif(not (HAS_JAX and HAS_ML_DTYPES), reason="needs jax and ml_dtypes")
def test_without_ml_dtypes_the_error_says_to_install_it():
    out = run_python("""
        import sys, jax.numpy as jnp
        x = jnp.ones((2,), jnp.bfloat16)
        sys.modules["ml_dtypes"] = None  # as if it were not installed
        from ndarray import NotRepresentableError
        from ndarray.formats.dlpack import from_dlpack
        try:
            from_dlpack(x)
        except NotRepresentableError as e:
            print(e)
    """)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "DLPack dtype bfloat16 of" in out.stdout and "install ml_dtypes" in out.stdout


# ---------------------------------------------------------------------------- channels_last
@pytest.mark.parametrize("shape, fmt, perm", [((2, 3, 4, 5), "channels_last", (0, 2, 3, 1)),
                                              ((2, 3, 2, 4, 5), "channels_last_3d", (0, 2, 3, 4, 1))])
def test_channels_last_maps_to_nhwc_without_copy(shape, fmt, perm):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    cl = tf.to_memory_format(x, fmt)  # logical NCHW, memory NHWC (what torch.channels_last is)
    nhwc = tf.to_channels_last_memory(cl)
    assert nhwc.base_ptr == cl.base_ptr and nhwc.descriptor.is_contiguous("c")
    np.testing.assert_array_equal(nhwc.numpy(), x.transpose(perm))
    assert "data_layout='NHWC'" in tf.layout_advice(cl.descriptor) and fmt in tf.layout_advice(cl.descriptor)
    assert tf.layout_advice(NdArray.from_numpy(x).descriptor) == ""


def test_plain_nchw_is_refused_with_what_to_do():
    with pytest.raises(NotRepresentableError, match=r"C stride 20, expected 1 for torch.channels_last\): the memory is not "
                                                    r"NHWC. Use the array as it is with data_layout='NCHW', or copy"):
        tf.to_channels_last_memory(np.zeros((2, 3, 4, 5), np.float32))


@pytest.mark.parametrize("fmt, perm", [("channels_last", (0, 2, 3, 1)), ("channels_last_3d", (0, 2, 3, 4, 1))])
def test_real_torch_channels_last_tensor_zero_copy(fmt, perm):
    """A torch channels_last(_3d) arange tensor as torch exported it (replayed)."""
    rec = TORCH["producers"][fmt]
    producer = Replay(rec)
    a = tf.to_channels_last_memory(producer)
    assert a.data_ptr == producer.data_ptr and a.descriptor.is_contiguous("c"), a
    shape = tuple(rec["torch_shape"])
    np.testing.assert_array_equal(a.numpy(), np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape).transpose(perm))
    assert tf.suggest_memory_format(shape, tuple(rec["torch_stride"])) == rec["suggested"] == fmt
