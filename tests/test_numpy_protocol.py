"""Issue 16, part 1: numpy habits on an NdArray give what they give on numpy.

Each row of ``IDIOMS`` runs on an NdArray and on a plain numpy copy of its elements, for
several layouts (dense, padded, a slice at an offset, a transpose, a slice of a user's numpy
array); results must match element by element. Every row also checks that no byte of the
allocation outside the NdArray's elements changed (padding and a parent's other elements).
``INPLACE`` rows write (``+=``, ``out=``, ``a[...] = ``) and compare the written elements.
"""

import subprocess
import sys

import numpy as np
import pytest

from ndarray import NdArray, NotRepresentableError, ReadOnlyError


def _arange(a):
    a.numpy()[...] = np.arange(a.size, dtype=a.dtype).reshape(a.shape) % 11 + 1
    return a


def _padded(shape, **kw):
    a = NdArray.full(shape, 0, "float32", padding_value=-7, **kw)
    return _arange(a)


LAYOUTS = {
    "dense": lambda: _padded((3, 4)),
    "padded": lambda: _padded((3, 4), paddings=(2, 3), padding_offsets=(1, 2)),
    "offset-slice": lambda: _padded((5, 8), paddings=(1, 1), padding_offsets=(1, 0))[1:4, 2:6],
    "transposed": lambda: _padded((4, 3), paddings=(0, 2)).T,
    "user-numpy-slice": lambda: _arange(NdArray.from_numpy(np.full((6, 9), -7, np.float32)[2:5, 3:7])),
}

IDIOMS = {
    "add-scalar": lambda a, b: a + 1,
    "radd-scalar": lambda a, b: 1 + a,
    "sub": lambda a, b: a - b,
    "mul-float": lambda a, b: a * 2.5,
    "truediv": lambda a, b: a / 3,
    "floordiv": lambda a, b: a // 2,
    "mod": lambda a, b: a % 3,
    "pow": lambda a, b: a ** 2,
    "neg": lambda a, b: -a,
    "abs": lambda a, b: abs(a - 6),
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "eq-none": lambda a, b: a == None,  # noqa: E711  numpy's fallback: all False, no error
    "ne-str": lambda a, b: a != "x",
    "lt-scalar": lambda a, b: a < 5,
    "ge": lambda a, b: a >= b,
    "matmul": lambda a, b: a @ np.transpose(b),
    "np.sum": lambda a, b: np.sum(a),
    "np.sum-axis": lambda a, b: np.sum(a, axis=0),
    "method-sum": lambda a, b: a.sum(),
    "method-mean": lambda a, b: a.mean(),
    "np.max": lambda a, b: np.max(a),
    "method-min-axis": lambda a, b: a.min(axis=-1),
    "np.argmax": lambda a, b: np.argmax(a),
    "np.sqrt": lambda a, b: np.sqrt(a),
    "np.exp": lambda a, b: np.exp(a / 10),
    "np.add": lambda a, b: np.add(a, b),
    "np.maximum": lambda a, b: np.maximum(a, b),
    "np.where": lambda a, b: np.where(a > 3, a, 0),
    "np.concatenate": lambda a, b: np.concatenate([a, b]),
    "np.stack": lambda a, b: np.stack([a, b]),
    "np.transpose": lambda a, b: np.transpose(a),
    "attr-T": lambda a, b: np.asarray(a.T),
    "np.asarray": lambda a, b: np.asarray(a),
    "np.array": lambda a, b: np.array(a),
    "np.asarray-dtype": lambda a, b: np.asarray(a, dtype=np.float64),
    "copy": lambda a, b: np.asarray(a.copy()),
    "astype": lambda a, b: np.asarray(a.astype("int32")),
    "tolist": lambda a, b: a.tolist(),
    "list": lambda a, b: [np.asarray(row).tolist() for row in a],
    "len": lambda a, b: len(a),
    "attributes": lambda a, b: (a.ndim, a.size, a.nbytes, a.itemsize, tuple(a.shape), str(a.dtype)),
    "index-row": lambda a, b: np.asarray(a[1]),
    "index-step": lambda a, b: np.asarray(a[:, ::2]),
    "index-negative-step": lambda a, b: np.asarray(a[::-1, 1:]),
    "index-scalar": lambda a, b: float(a[1, 2]),
    "boolean-mask": lambda a, b: a[a > 3],
    "fancy-index": lambda a, b: a[[0, 2], 1],
    "np.clip": lambda a, b: np.clip(a, 2, 8),
    "np.cumsum": lambda a, b: np.cumsum(a),
    "np.mean-axis": lambda a, b: np.mean(a, axis=1),
    "np.isclose": lambda a, b: np.isclose(a, b),
    "np.allclose": lambda a, b: np.allclose(a, a),
    "np.any": lambda a, b: np.any(a > 10),
    "np.reshape": lambda a, b: np.reshape(a, -1),
    "np.flip": lambda a, b: np.flip(a),
    "np.sort": lambda a, b: np.sort(a, axis=None),
    "np.unique": lambda a, b: np.unique(a),
    "np.dot": lambda a, b: np.dot(a, np.transpose(b)),
    "np.array_equal": lambda a, b: np.array_equal(a, a),
    "np.count_nonzero": lambda a, b: np.count_nonzero(a > 4),
    "np.float64-cast": lambda a, b: np.float64(np.sum(a)),
}


def _inplace_add(a, b):
    a += 1
    return a


def _inplace_mul(a, b):
    a *= b
    return a


def _setitem_row(a, b):
    a[0] = 5
    return a


def _setitem_all(a, b):
    a[...] = b
    return a


def _setitem_mask(a, b):
    a[a > 5] = 0
    return a


def _fill(a, b):
    a.fill(3)
    return a


def _copyto(a, b):
    np.copyto(a, b)
    return a


INPLACE = {
    "iadd": _inplace_add,
    "imul": _inplace_mul,
    "np.add-out-self": lambda a, b: np.add(a, b, out=a),
    "np.negative-out-tuple": lambda a, b: np.negative(a, out=(a,)),
    "np.multiply-out-self": lambda a, b: np.multiply(a, 2, out=a),
    "setitem-row": _setitem_row,
    "setitem-all": _setitem_all,
    "setitem-mask": _setitem_mask,
    "fill": _fill,
    "np.copyto": _copyto,
}


def _outside_elements(a):
    """Bytes of the allocation that are not elements of ``a`` (padding, a parent's elements)."""
    return np.repeat(a.padding_mask(), a.itemsize)


def _same(got, expected):
    if isinstance(expected, np.ndarray) or isinstance(got, (np.ndarray, NdArray)):
        got = np.asarray(got)
        assert got.shape == np.shape(expected) and got.dtype == np.asarray(expected).dtype, (got, expected)
        np.testing.assert_array_equal(got, expected)
    else:
        assert type(got) is type(expected) and got == expected, (got, expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("idiom", IDIOMS)
def test_idiom_matches_numpy(idiom, layout):
    a, b = LAYOUTS[layout](), LAYOUTS[layout]()
    b.numpy()[...] = b.numpy()[::-1] if b.shape[0] else b.numpy()
    ref_a, ref_b = a.numpy().copy(), b.numpy().copy()
    before = a.allocation.copy()
    _same(IDIOMS[idiom](a, b), IDIOMS[idiom](ref_a, ref_b))
    np.testing.assert_array_equal(a.allocation, before)  # nothing written at all


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("idiom", INPLACE)
def test_inplace_idiom_writes_elements_only(idiom, layout):
    a, b = LAYOUTS[layout](), LAYOUTS[layout]()
    b.numpy()[...] = b.numpy()[::-1]
    ref_a, ref_b = a.numpy().copy(), b.numpy().copy()
    outside, before = _outside_elements(a), a.allocation.copy()
    result = INPLACE[idiom](a, b)
    expected = INPLACE[idiom](ref_a, ref_b)
    assert result is a or (isinstance(result, tuple) and result[0] is a)  # the NdArray itself
    np.testing.assert_array_equal(a.numpy(), expected if isinstance(expected, np.ndarray) else expected[0])
    np.testing.assert_array_equal(a.allocation[outside], before[outside])


def test_out_into_another_padded_ndarray():
    a = _padded((3, 4))
    c = NdArray.full((3, 4), 0, "float32", paddings=(1, 2), padding_offsets=(1, 1), padding_value=-9)
    result = np.add(a, 10, out=c)
    assert result is c
    np.testing.assert_array_equal(c.numpy(), a.numpy() + 10)
    assert (c.buffer()[c.padding_mask()] == -9).all()
    d = NdArray.full((3,), 0, "float32", paddings=(2,), padding_offsets=(1,), padding_value=-9)
    assert np.sum(a, axis=1, out=d) is d
    np.testing.assert_array_equal(d.numpy(), a.numpy().sum(axis=1))
    assert (d.buffer()[d.padding_mask()] == -9).all()


def test_readonly_out_is_refused():
    a = _padded((2, 3))
    ro = NdArray.from_numpy(np.broadcast_to(np.float32(1), (2, 3)))
    with pytest.raises(ReadOnlyError, match=r"add.__call__ writes into a read-only NdArray"):
        np.add(a, 1, out=ro)
    with pytest.raises(ReadOnlyError, match=r"sum writes into a read-only NdArray"):
        np.sum(a, axis=0, out=NdArray.from_numpy(np.broadcast_to(np.float32(1), (3,))))
    with pytest.raises(ReadOnlyError, match=r"assignment needs a writeable NdArray"):
        ro[0] = 1
    with pytest.raises(ReadOnlyError, match=r"fill needs a writeable NdArray"):
        ro.fill(1)


def test_array_copy_semantics():
    a = _padded((2, 3), paddings=(1, 1))
    view = np.asarray(a)
    assert np.shares_memory(view, a.buffer())
    copied = np.array(a)  # numpy's default copy=True
    assert not np.shares_memory(copied, a.buffer())
    copied[...] = 0
    assert a.numpy().any()  # the copy does not alias
    assert not np.shares_memory(a.__array__(copy=True), a.buffer())
    assert np.shares_memory(a.__array__(copy=False), a.buffer())
    with pytest.raises(NotRepresentableError, match=r"copy=False but dtype float64 differs from the elements' float32"):
        a.__array__(np.float64, copy=False)
    with pytest.raises(ValueError):  # numpy users catch ValueError
        a.__array__(np.float64, copy=False)
    assert a.__array__(np.float64).dtype == np.float64


@pytest.mark.skipif(np.lib.NumpyVersion(np.__version__) < "2.0.0", reason="copy= of np.asarray is numpy >= 2")
def test_numpy2_copy_keyword():
    a = _padded((2, 3), paddings=(1, 1))
    assert np.shares_memory(np.asarray(a, copy=None), a.buffer())
    assert not np.shares_memory(np.asarray(a, copy=True), a.buffer())
    assert np.shares_memory(np.asarray(a, copy=False), a.buffer())
    with pytest.raises(ValueError):
        np.asarray(a, dtype=np.float64, copy=False)


def test_equality_is_elementwise_and_unhashable():
    a, b = _padded((2, 3)), _padded((2, 3))
    assert (a == b).all() and isinstance(a == b, np.ndarray)  # never identity
    assert not (a != b).any()
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(a == b)


def test_zero_d_and_size_one():
    a = _padded((2, 3))
    assert type(a[1, 2]) is np.float32 and a[1, 2] == a.numpy()[1, 2]  # the element, as numpy
    s = a[1, 2, ...]  # a 0-d view, as numpy's x[1, 2, ...]
    assert isinstance(s, NdArray) and s.shape == () and float(s) == a.numpy()[1, 2]
    assert int(s) == int(a.numpy()[1, 2]) and bool(s) and s.item() == a.numpy()[1, 2]
    with pytest.raises(TypeError, match=r"len\(\) of a 0-d NdArray"):
        len(s)
    with pytest.raises(TypeError, match=r"iteration over a 0-d NdArray"):
        iter(s)


NUMPY_1_SCRIPT = """
import numpy as np
from ndarray import NdArray
a = NdArray.full((2, 3), 2.0, paddings=(1, 1))
# numpy 1.x calls __array__() or __array__(dtype) without copy=: both must work
assert np.shares_memory(a.__array__(), a.buffer())
assert a.__array__(np.float64).dtype == np.float64
assert not np.shares_memory(np.array(a), a.buffer())
print("ok")
"""


def test_protocol_without_copy_keyword_as_numpy_1_calls_it():
    out = subprocess.run([sys.executable, "-c", NUMPY_1_SCRIPT], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
