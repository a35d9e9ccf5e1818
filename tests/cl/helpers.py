"""Runner of the CL function tests: the same inputs through the CL backend and, where this
build has it, the NEON backend; results against numpy and against each other; guard bytes
and padding cells unchanged; zero copies where the device took the NdArray's memory."""

from __future__ import annotations

import warnings

import numpy as np

from acl.helpers import Guarded
from acl.test_functions import TOLERANCES

# numpy-order layouts of the ADR and friends (tests/acl/helpers.py): dense; right and bottom
# padding of 1 (the ADR's 2x2x5x5); padding on all sides, so element 0 is not at offset 0
CL_VARIANTS = ("contiguous", "padded", "offset")


def neon_available() -> bool:
    from acl_bridge.native import require_native

    _, lib = require_native()
    return bool(lib.acl_shim_neon_available())


def _run(cls, specs, inputs, kwargs, variant, backend):
    g = {}
    for role, spec in specs.items():  # guarded buffers in the variant's layout, inputs filled
        g[role] = None if spec is None else Guarded(*spec, variant=variant)
        if g[role] is not None and inputs.get(role) is not None:
            g[role].set(inputs[role])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = cls(*[None if x is None else x.array for x in g.values()], backend=backend, **kwargs)
    return f, g


def _compare(got, want, tol, what):
    rtol, atol = TOLERANCES[tol]
    if tol == "exact":
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol,
                                   atol=atol * max(1.0, float(np.max(np.abs(want)))), err_msg=what)


def run_cl_case(cls, inputs, outputs, kwargs, expected, variant, tol="f32", *, runs=2):
    """inputs: {role: values or None}; outputs: {role: (shape, dtype)}; expected: {role: numpy
    reference}. Returns the closed CL function (its plan attributes stay readable)."""
    from acl_bridge.opencl import memory_report

    specs = {role: (None if inputs[role] is None else (inputs[role].shape, inputs[role].dtype))
             if role in inputs else outputs[role] for role in cls.roles}
    f, g = _run(cls, specs, inputs, kwargs, variant, "cl")
    assert f.backend.name == "cl"
    for _ in range(runs):
        f.run()
    # staged copies only for staged tensors; every other tensor is the NdArray's own memory
    assert f.copy_count == runs * len(f.staged), (f.staged, f.copy_count)
    for role, mem in memory_report(f).items():
        if role in f.staged:
            continue
        assert mem.backend == "cl" and mem.zero_copy and mem.bytes_staged_per_run == 0, (role, mem)
        assert mem.base_address == g[role].array.base_ptr, (role, mem)
        assert f.tensors[role].data_ptr == g[role].array.data_ptr
    for role, want in expected.items():
        _compare(g[role].numpy(), want, tol, f"CL {role} ({variant}) vs numpy")
    for role, x in g.items():
        if x is not None:
            assert x.untouched(), f"CL {role} ({variant}): bytes outside the elements changed at {x.changed_outside()[:16]}"
    if neon_available():
        fn, gn = _run(cls, specs, inputs, kwargs, variant, "neon")
        fn.run()
        for role in expected:
            _compare(g[role].numpy(), gn[role].numpy(), tol, f"CL {role} ({variant}) vs NEON")
        fn.close()
    f.close()
    return f
