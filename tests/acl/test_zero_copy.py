"""Issue 14: every function kind, NCHW and NHWC, on buffers the bridge allocated with the
padding ACL asked for (``required_padding`` + ``padded_empty``), copies 0 bytes per run,
on ACL 20.08 and 24.11 alike, and computes what numpy computes. Also: a schedule runs a
chain of them in one native call with the same results."""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest

from ndarray import ShapeDescriptor

pytestmark = pytest.mark.acl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "benchmarks"))
from kinds import kind_calls  # noqa: E402
from function_cases import cpu_marks  # noqa: E402

CALLS = kind_calls()


def negotiated(call):
    """(function, arrays by role) on bridge-owned buffers with exactly the padding asked for."""
    from acl_bridge import functions as F
    from acl_bridge.families import function_class

    cls = function_class(call.cls_name)
    specs = {r: None if v is None else ShapeDescriptor.create(v.shape, v.dtype) for r, v in call.inputs.items()}
    specs.update({r: ShapeDescriptor.create(*s) for r, s in call.outputs.items()})
    pads = cls.required_padding(**specs, **call.kwargs)
    arrays = {r: None if d is None else F.AclFunction.padded_empty(d.shape, d.dtype, pads[r]) for r, d in specs.items()}
    for r, v in call.inputs.items():
        if v is not None:
            arrays[r].numpy()[...] = v
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a staging warning fails the test
        f = cls(**arrays, **call.kwargs)
    return f, arrays


@pytest.mark.parametrize("call", [pytest.param(c, id=c.name, marks=cpu_marks(c.cls_name)) for c in CALLS])
def test_negotiated_bridge_buffers_copy_nothing(call):
    from acl_bridge import total_copy_count

    f, arrays = negotiated(call)
    assert f.staged == () and f.plan.copies_per_run == 0, f.plan.describe()
    before = total_copy_count()
    f.run()
    f.run()
    assert f.copy_count == 0 and total_copy_count() == before
    for role, t in f.tensors.items():
        if t is not None:
            assert t.data_ptr == arrays[role].data_ptr  # ACL computed in the NdArray's own memory
    want = call.reference({r: v for r, v in call.inputs.items() if v is not None})
    got = arrays[call.checked].numpy()
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    else:
        np.testing.assert_allclose(got.astype(np.int32), want.astype(np.int32), atol=1)
    f.close()


def test_schedule_runs_a_chain_in_one_native_call():
    """relu -> add -> pooling on bridge buffers: one native call per run, numpy's result."""
    from acl_bridge import Schedule
    from acl_bridge import functions as F

    shape = (1, 4, 8, 8)
    d = ShapeDescriptor.create(shape, "float32")
    pa = F.Activation.required_padding(d, d, "relu")
    pp = F.Pooling.required_padding(d, d, pool_type="max", kernel=3, padding=1)
    x = F.AclFunction.padded_empty(shape, "float32", pa["src"])
    r = F.AclFunction.padded_empty(shape, "float32", pa["dst"])
    s = F.AclFunction.padded_empty(shape, "float32", pp["src"])
    y = F.AclFunction.padded_empty(shape, "float32", pp["dst"])
    fns = [F.Activation(x, r, "relu"), F.Add(r, x, s), F.Pooling(s, y, pool_type="max", kernel=3, padding=1)]
    schedule = Schedule(fns)
    assert schedule.native_calls_per_run == 1 and schedule.segments == (("native", 3),)
    for k in range(2):
        v = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) % 7 - 3 + k
        x.numpy()[...] = v
        schedule.run()
        t = np.maximum(v, 0) + v
        tp = np.pad(t, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        want = np.lib.stride_tricks.sliding_window_view(tp, (3, 3), axis=(2, 3)).max(axis=(-2, -1))
        np.testing.assert_array_equal(y.numpy(), want)
    fns[1].close()
    from acl_bridge.errors import AclError

    with pytest.raises(AclError, match="schedule can no longer run: add was closed"):
        schedule.run()
