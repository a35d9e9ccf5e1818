"""Buffers for the ACL tests: NdArrays in every layout the tests need, surrounded by guard
bytes, with a check that ACL touched nothing but the logical elements of its outputs.

Layout variants (numpy order, C-order buffers):
* ``contiguous``: dense;
* ``padded``: right and bottom padding of 1 on the last two dims (the ADR's 2x2x5x5 example);
* ``offset``: padding on all four sides of the x-y plane, so element 0 is not at the start;
* ``strided``: a view taking every other index of the outermost dim of a bigger parent
  (outer stride larger than dense, innermost contiguous: expressible by ACL strides);
* ``flipped``: a negative-stride view (not expressible by ACL: forces the copy fallback);
* ``negotiated``: exactly the padding ACL asked for (``padding=``), allocated up front and
  owned by the bridge (``bridge=True``, as ``padded_empty`` makes it): ACL may write its
  padding and the slack after it, never the guard bytes beyond those.

``run_case(case, variant, backend)`` runs one row of tests/function_cases.py on a backend.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from function_cases import TOLERANCES, VARIANTS, Case, Tolerance, arange_values  # noqa: F401 (re-exported)

from ndarray import NdArray, ShapeDescriptor

GUARD_BYTES = 64
GUARD_VALUE = 0xA5


class Guarded:
    """An NdArray inside a larger uint8 buffer with guard bytes before and after."""

    def __init__(self, shape, dtype="float32", variant="contiguous", padding=None, bridge=False):
        shape = tuple(shape)
        dtype = np.dtype(dtype)
        rank = len(shape)
        self.variant = variant
        self.bridge = bridge
        if padding is not None:  # exactly the ACL padding asked for (negotiated up front)
            from acl_bridge.executor import BRIDGE_SLACK_IN_BYTES, _own
            from acl_bridge.mapping import padded_descriptor

            d = padded_descriptor(shape, dtype, padding.for_rank(rank))
            slack = BRIDGE_SLACK_IN_BYTES if bridge else 0
            self.raw = np.full(d.alloc_size_in_bytes + slack + 2 * GUARD_BYTES, GUARD_VALUE, np.uint8)
            self.array = NdArray(self.raw[GUARD_BYTES:GUARD_BYTES + d.alloc_size_in_bytes], d)
            self._owned_end = GUARD_BYTES + d.alloc_size_in_bytes + slack
            if bridge:  # as padded_empty allocates it: the bridge owns padding and slack
                _own(self.array)
        elif variant in ("contiguous", "padded", "offset"):
            paddings = [0] * rank
            offsets = [0] * rank
            if variant == "padded":
                paddings[-1] = 1
                if rank >= 2:
                    paddings[-2] = 1
            elif variant == "offset":
                paddings[-1], offsets[-1] = 5, 2
                if rank >= 2:
                    paddings[-2], offsets[-2] = 3, 1
            d = ShapeDescriptor.create(shape, dtype, paddings=paddings, padding_offsets=offsets)
            self.raw = np.full(d.alloc_size_in_bytes + 2 * GUARD_BYTES, GUARD_VALUE, np.uint8)
            self.array = NdArray(self.raw[GUARD_BYTES:GUARD_BYTES + d.alloc_size_in_bytes], d)
        elif variant in ("strided", "flipped"):
            parent_shape = (shape[0] * 2,) + shape[1:] if variant == "strided" else shape
            d = ShapeDescriptor.create(parent_shape, dtype)
            self.raw = np.full(d.alloc_size_in_bytes + 2 * GUARD_BYTES, GUARD_VALUE, np.uint8)
            parent = NdArray(self.raw[GUARD_BYTES:GUARD_BYTES + d.alloc_size_in_bytes], d)
            self.array = parent[::2] if variant == "strided" else parent[..., ::-1]
        else:
            raise ValueError(f"unknown variant {variant!r}")
        # every byte that is not a logical element gets a recognisable pattern
        self._mask = self._element_bytes_mask()
        self.raw[~self._mask] = GUARD_VALUE
        self._snapshot = self.raw.copy()

    def _element_bytes_mask(self) -> np.ndarray:
        """True for bytes of self.raw that belong to a logical element of the array."""
        mask = np.zeros(self.raw.shape, bool)
        view = self.array.numpy()
        start = self.array.base_ptr - self.raw.ctypes.data
        d = self.array.descriptor
        idx = np.lib.stride_tricks.as_strided(
            np.arange(self.raw.size, dtype=np.int64)[start + d.offset_in_bytes:],
            shape=view.shape + (d.itemsize,), strides=tuple(s * 8 for s in d.strides_in_bytes) + (8,))
        mask[idx.reshape(-1)] = True
        return mask

    def set(self, values) -> "Guarded":
        self.array.numpy()[...] = values
        self._snapshot = self.raw.copy()
        return self

    def numpy(self) -> np.ndarray:
        return self.array.numpy()

    def _checked(self) -> np.ndarray:
        """Bytes ACL must not write: every non-element byte, or for a bridge-owned buffer
        only the guards outside its allocation and slack."""
        if not self.bridge:
            return ~self._mask
        checked = np.zeros(self.raw.shape, bool)
        checked[:GUARD_BYTES] = True
        checked[self._owned_end:] = True
        return checked

    def untouched(self) -> bool:
        """Guard bytes and padding / gap cells unchanged since the last set() (for a
        bridge-owned buffer: the guards around its allocation and slack)."""
        checked = self._checked()
        return bool(np.array_equal(self.raw[checked], self._snapshot[checked]))

    def changed_outside(self) -> np.ndarray:
        """Byte indexes (into raw) outside the elements that changed, for messages."""
        return np.nonzero((self.raw != self._snapshot) & self._checked())[0]


PADDING_LOG = {}  # (function, params) -> {role: (padding asked for, writes outside, layout ok)}; see conftest


def neon_available() -> bool:
    from acl_bridge.native import require_native

    return bool(require_native()[1].acl_shim_neon_available())


def _skip_without_f16(e):
    if "does not support F16" in str(e):  # Debian's 20.08 is built for armv8.0
        pytest.skip(f"this ACL build has no F16: {e}")


def _specs(case: Case, inputs):
    """role -> (shape, dtype) or None, in the class's roles order; output shapes are the reference's."""
    from acl_bridge.families import function_class

    cls = function_class(case.kind)
    expected = case.reference(inputs)
    specs = {}
    for role in cls.roles:
        if role in case.outputs:
            specs[role] = (np.shape(expected[role]), np.dtype(case.outputs[role]))
        else:
            v = inputs.get(role)
            specs[role] = None if v is None else (v.shape, v.dtype)
    return cls, specs, expected


def _configure(case: Case, variant: str, backend: str, inputs):
    """(function, guarded buffers by role, expected outputs) for one row in one layout."""
    from acl_bridge.backend import backend_named
    from acl_bridge.mapping import PaddingSize
    from acl_bridge.native import AclStatusError, acl_version, kernels_ask_padding

    cls, specs, expected = _specs(case, inputs)
    if variant == "negotiated":
        args = [None if s is None else ShapeDescriptor.create(*s) for s in specs.values()]
        try:
            pads = cls.required_padding(*args, backend=backend, **case.kwargs)
        except AclStatusError as e:
            _skip_without_f16(e)
            raise
        if not kernels_ask_padding(backend_named(backend).name, case.kwargs.get("data_layout", "NCHW")):  # the fact a first start relies on, per kind
            assert all(p == PaddingSize() for p in pads.values()), f"{cls.__name__} asks {pads} on {acl_version()}"
        g = {r: None if s is None else Guarded(s[0], s[1], padding=pads[r], bridge=True) for r, s in specs.items()}
    else:
        g = {r: None if s is None else Guarded(s[0], s[1], variant) for r, s in specs.items()}
    for role, v in inputs.items():
        if v is not None:
            g[role].set(v)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a staged plan is allowed; its copies are counted below
        try:
            f = cls(*[None if x is None else x.array for x in g.values()], backend=backend, **case.kwargs)
        except AclStatusError as e:
            _skip_without_f16(e)
            raise
    return f, g, expected


def compare(got, want, tol: Tolerance, what: str):
    if tol.rtol == 0 and tol.atol == 0:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    scale = max(1.0, float(np.max(np.abs(want)))) if tol.atol_scaled else 1.0
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=tol.rtol,
                               atol=tol.atol * scale, err_msg=what)


def _check_plan(f, g, variant):
    """The plan is the contract (its rules are tested on the host, tests/test_plan.py): the
    function does what its plan says, and stages only where the layout asks for it."""
    from acl_bridge.plan import Action

    assert f.staged == f.plan.staged
    for t in f.plan.tensors:
        assert (t.action is Action.ABSENT) == (g[t.role] is None)
        if t.action is Action.STAGED:
            assert t.reason is not None and t.detail, f.plan.describe()
    if variant == "negotiated":  # the padding ACL asked for, in buffers the bridge owns: nothing staged
        assert f.staged == (), f.plan.describe()
    if variant == "contiguous":  # dense, aligned, representable: only ACL's wishes stage it
        assert all(t.reason is None or t.reason.value not in ("misaligned", "not_representable", "collapse_unsafe",
                                                              "layout_mismatch") for t in f.plan.tensors), f.plan.describe()


def _check_cl_memory(f, g):
    """Every tensor the plan does not stage is the NdArray's own memory on the device."""
    from acl_bridge.opencl import memory_report

    for role, mem in memory_report(f).items():
        if role in f.staged:
            continue
        assert mem.backend == "cl" and mem.zero_copy and mem.bytes_staged_per_run == 0, (role, mem)
        assert mem.base_address == g[role].array.base_ptr, (role, mem)


@functools.lru_cache(maxsize=None)
def cl_device():
    """The OpenCL device ACL's CL functions run on (tests/cl/conftest.py started it)."""
    from acl_bridge import opencl

    return next(d for d in opencl.cl_devices() if d.selected)


def _dtypes(case: Case, inputs):
    return {np.dtype(v.dtype).name for v in inputs.values() if v is not None} | set(case.outputs.values())


def run_case(case: Case, variant: str, backend: str, *, runs: int = 2):
    """One row of tests/function_cases.py on ``backend`` in the ``variant`` buffer layout:
    two runs of one configured function, then
    * each output matches the row's numpy reference within its tolerance on this backend;
    * guard bytes around every buffer and every padding or gap cell are unchanged;
    * tensors are staged exactly as the plan says, the copies counted; with the negotiated
      padding nothing is staged; every other tensor is the NdArray's own memory;
    * on CL, where this build has NEON too, the same row on NEON gives the same outputs.
    A row whose note says this backend (on this device) refuses it must raise that error,
    with that message. On a CL device without FP16, rows with float16 tensors skip.
    Returns the closed function (its plan attributes stay readable)."""
    device = cl_device() if backend == "cl" else None
    inputs = case.inputs()
    if device is not None and not device.fp16 and "float16" in _dtypes(case, inputs):
        pytest.skip(f"the OpenCL device has no FP16 (cl_khr_fp16): {device}")
    refusal = case.refusal_on(backend, str(device or ""))
    if refusal is not None:
        import acl_bridge.errors
        import ndarray.errors

        name, message = refusal
        error = getattr(ndarray.errors, name, None) or getattr(acl_bridge.errors, name)
        with pytest.raises(error, match=message):
            _configure(case, variant, backend, inputs)
        return None
    f, g, expected = _configure(case, variant, backend, inputs)
    assert f.backend.name == backend
    _check_plan(f, g, variant)
    PADDING_LOG.setdefault((f"{case.kind}/{backend}", str(sorted(case.kwargs.items()))), {}).update(
        {r: (p.as_tuple(), f.writes_outside.get(r), f.layout_ok) for r, p in f.padding.items() if g[r] is not None})
    for _ in range(runs):
        f.run()
    if backend == "cl":  # after the runs: memory is imported by the first
        _check_cl_memory(f, g)
    assert f.copy_count == runs * f.plan.copies_per_run
    tol = case.tolerance_on(backend)
    for role, want in expected.items():
        compare(g[role].numpy(), want, tol, f"{backend} {role} ({variant}) vs numpy")
    for role, x in g.items():
        if x is not None:
            assert x.untouched(), f"{backend} {role} ({variant}): bytes outside the elements changed at {x.changed_outside()[:16]}"
            if role not in f.staged:
                assert f.tensors[role].data_ptr == x.array.data_ptr
    if backend != "neon" and neon_available():
        fn, gn, _ = _configure(case, variant, "neon", inputs)
        fn.run()
        for role in expected:
            compare(g[role].numpy(), gn[role].numpy(), tol, f"{backend} {role} ({variant}) vs NEON")
        fn.close()
    f.close()
    return f
