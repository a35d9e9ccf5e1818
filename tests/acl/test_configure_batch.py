"""Functions made from their kept decisions in one native call (acl_bridge.configure_batch,
acl_shim_plan_create): the same plans, facts, native descriptions and bits as the functions
that decided, one native call for all of them and no question asked of ACL, the padding and
the bytes around every buffer unchanged, and a schedule runs them before any Python object of
a function is made; a batch where one decision does not fit (a plan that stages, a
description addressing more than its buffer holds, two workspaces) makes nothing and says
which function and why; a call that is not its decision's (other parameters) is an AclError
when its object is made; a read-only output raises as the constructor would."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from .helpers import Guarded

pytestmark = pytest.mark.acl

QUESTIONS = ("negotiate", "check_layouts", "auto_padding", "probe")


def _net(seed=5):
    """conv -> relu in place on its output -> add of the conv's input: three functions over
    guarded buffers the bridge owns (as the model runner's are), the input with ACL's padding."""
    from acl_bridge.layout import PaddingSize

    rng = np.random.default_rng(seed)
    x = Guarded((1, 7, 7, 8), "float32", padding=PaddingSize(1, 1, 1, 1), bridge=True).set(
        rng.uniform(-1, 1, (1, 7, 7, 8)).astype(np.float32))
    w = rng.uniform(-1, 1, (8, 3, 3, 8)).astype(np.float32)
    b = rng.uniform(-1, 1, (8,)).astype(np.float32)
    y = Guarded((1, 7, 7, 8), "float32", padding=PaddingSize(), bridge=True)
    z = Guarded((1, 7, 7, 8), "float32", padding=PaddingSize(), bridge=True)
    return x, w, b, y, z


def _recalls(x, w, b, y, z, decisions=(None, None, None), workspace=None):
    from acl_bridge.configure_batch import Recall
    from acl_bridge.functions import Activation, Add, Convolution

    common = {"data_layout": "NHWC", "workspace": workspace}
    return [Recall(Convolution, (x.array, w, b, y.array), dict(common, padding=1), decisions[0]),
            Recall(Activation, (y.array, y.array), dict(common, function="relu"), decisions[1]),
            Recall(Add, (y.array, x.array, z.array), dict(common), decisions[2])]


def _one_at_a_time(recalls, session):
    with session.active():
        return [r.cls(*r.args, **r.kwargs) for r in recalls]


def test_a_batch_asks_nothing_makes_one_native_call_and_gives_the_same_bits():
    from acl_bridge.configure_batch import configure_recalled
    from acl_bridge.errors import AclError
    from acl_bridge.schedule import Schedule
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.decisions import decode, encode
    from acl_bridge.workspace import Workspace

    x, w, b, y, z = _net()
    first = _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())
    for f in first:
        f.run()
    kept = decode(encode(tuple(f.decision for f in first)))  # as another process reads them back

    x2, w2, b2, y2, z2 = _net()
    workspace = Workspace()
    session = ConfigureSession()
    with session.active():
        made, why = configure_recalled(_recalls(x2, w2, b2, y2, z2, kept, workspace))
    assert made is not None and why == "", why
    assert not any(f.staged for f in first)
    assert {c: session.calls.get(c, 0) for c in QUESTIONS} == {c: 0 for c in QUESTIONS}
    assert session.calls["configure"] == 1 and session.calls.get("import", 0) == 0  # one native call
    # it runs as it is: a schedule of it makes no Python object of a function
    workspace.allocate()
    schedule = Schedule(made)
    assert schedule.native_calls_per_run == 1 and not made.materialized and len(schedule) == 3
    assert made.plans == tuple(f.plan for f in first) and made.kinds == ("convolution", "activation", "add")
    schedule.run()
    assert not made.materialized
    assert np.array_equal(y2.numpy(), y.numpy()) and np.array_equal(z2.numpy(), z.numpy())
    assert np.array_equal(z2.numpy(), y.numpy() + x.numpy())
    assert np.all(y2.numpy() >= 0)
    for g in (x2, y2, z2):
        assert g.untouched(), "a function of the batch wrote outside the elements"
    # the objects, when asked for: what the functions that decided were
    assert all(f.decision_recalled for f in made) and [f.decision for f in made] == list(kept)
    assert [f.plan for f in made] == [f.plan for f in first]
    assert [f.facts for f in made] == [f.facts for f in first]
    assert [[t.desc_content for t in f.tensors.values() if t is not None] for f in made] == \
        [[t.desc_content for t in f.tensors.values() if t is not None] for f in first]
    assert [{r: t.info for r, t in f.tensors.items() if t is not None} for f in made] == \
        [{r: t.info for r, t in f.tensors.items() if t is not None} for f in first]
    assert all(t.imported for f in made for t in f.tensors.values() if t is not None)
    assert session.calls["configure"] == 1  # making the objects configured nothing
    assert made.materialized and len(made) == 3 and len(list(made)) == 3
    for f in made:
        f.run()  # each runs alone too
    assert np.array_equal(z2.numpy(), z.numpy())
    made[0].close()  # closing one invalidates the schedule
    with pytest.raises(AclError, match="no longer run"):
        schedule.run()


def test_closing_a_batch_whose_objects_were_never_made_invalidates_its_schedule():
    from acl_bridge.configure_batch import configure_recalled
    from acl_bridge.errors import AclError
    from acl_bridge.schedule import Schedule
    from acl_bridge.configure_session import ConfigureSession

    x, w, b, y, z = _net()
    kept = [f.decision for f in _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())]
    x2, w2, b2, y2, z2 = _net()
    made, why = configure_recalled(_recalls(x2, w2, b2, y2, z2, kept))
    schedule = Schedule(made)
    schedule.run()
    made.close()
    assert not made.materialized and len(made.handles) == 0
    with pytest.raises(AclError, match="no longer run"):
        schedule.run()
    with pytest.raises(AclError, match="closed"):
        made[0]
    made.close()  # idempotent


@pytest.mark.parametrize("other", ["stages", "does not fit", "elements", "workspaces"])
def test_a_batch_with_a_decision_that_does_not_fit_makes_nothing_and_says_which(other):
    from acl_bridge.configure_batch import configure_recalled
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.plan import Action
    from acl_bridge.tensor import desc_content, desc_from_content
    from acl_bridge.workspace import Workspace

    x, w, b, y, z = _net()
    kept = [f.decision for f in _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())]
    x2, w2, b2, y2, z2 = _net()
    recalls = _recalls(x2, w2, b2, y2, z2, kept, Workspace())
    if other == "stages":
        d = kept[2]
        tensors = tuple(replace(t, action=Action.STAGED) if t.role == "b" else t for t in d.plan.tensors)
        recalls[2] = replace(recalls[2], decision=replace(d, plan=replace(d.plan, tensors=tensors)))
    elif other == "does not fit":  # rows past the end of z's buffer: refused natively
        big = desc_from_content(kept[2].descs[2])
        big.shape[2] += 64
        recalls[2] = replace(recalls[2], decision=replace(kept[2], descs=kept[2].descs[:2] + (desc_content(big),)))
    elif other == "elements":  # described as bytes, the memory holds float32
        from acl_bridge import abi

        small = desc_from_content(kept[2].descs[2])
        small.data_type = abi.DATA_TYPES["U8"]
        recalls[2] = replace(recalls[2], decision=replace(kept[2], descs=kept[2].descs[:2] + (desc_content(small),)))
    else:
        recalls[2] = replace(recalls[2], kwargs=dict(recalls[2].kwargs, workspace=Workspace()))
    before = [g.raw.copy() for g in (x2, y2, z2)]
    made, why = configure_recalled(recalls)
    assert made is None
    if other == "workspaces":
        assert "2 workspaces" in why
    else:
        assert "function 2" in why, why
        # a description other than its array's is refused before the native call (the native
        # bounds check, its second line, has a test of its own: the crafted records below)
        assert {"stages": "stages", "does not fit": "dst: its kept description is not its array's",
                "elements": "dst: its kept description is not its array's"}[other] in why, why
    assert all(np.array_equal(g.raw, r) for g, r in zip((x2, y2, z2), before)), "a refused batch wrote memory"


@pytest.mark.parametrize("other, why", [
    ({"function": "logistic"}, "native parameters differ"),  # another activation
    ({"function": "linear", "a": -1.0}, "native parameters differ"),  # a negating linear for relu
    ({"data_layout": "NCHW"}, "data layout NHWC"),
    ({"allow_copy": False}, "made with PlanOptions"),
])
def test_a_call_that_is_not_its_decision_s_is_refused_before_anything_is_made(other, why):
    """Kind, native parameters, data layout and options are compared with the call's before
    the native call: a decision kept for another call is never made."""
    from acl_bridge.configure_batch import configure_recalled
    from acl_bridge.configure_session import ConfigureSession

    x, w, b, y, z = _net()
    kept = [f.decision for f in _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())]
    x2, w2, b2, y2, z2 = _net()
    recalls = _recalls(x2, w2, b2, y2, z2, kept)
    recalls[1] = replace(recalls[1], kwargs=dict(recalls[1].kwargs, **other))
    before = [g.raw.copy() for g in (x2, y2, z2)]
    made, reason = configure_recalled(recalls)
    assert made is None and "function 1 (activation): its decision is not this call's" in reason, reason
    assert why in reason, reason
    assert all(np.array_equal(g.raw, r) for g, r in zip((x2, y2, z2), before)), "a refused batch wrote memory"


@pytest.mark.parametrize("padding", [1.0, True])
def test_an_option_equal_in_value_but_refused_by_its_type_is_refused_in_a_batch(padding):
    """Two convolutions of one content in a batch, the second given ``padding`` as a float or a
    bool equal to the first's 1 (and of its hash): the constructor refuses such a padding, so
    the batch says the call is refused, as it would were the call alone (the options' memo keys
    their types, not only their values), and makes nothing."""
    from acl_bridge.configure_batch import Recall, configure_recalled
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.functions import Convolution
    from ndarray.errors import AclNdarrayError

    x, w, b, y, z = _net()
    conv = _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())[0]
    with pytest.raises(AclNdarrayError):  # alone, the constructor refuses it
        Convolution(x.array, w, b, y.array, data_layout="NHWC", padding=padding)
    x2, w2, b2, y2, z2 = _net()
    calls = [Recall(Convolution, (x2.array, w2, b2, y2.array), {"data_layout": "NHWC", "padding": p}, conv.decision)
             for p in (1, padding)]
    before = [g.raw.copy() for g in (x2, y2)]
    made, reason = configure_recalled(calls)
    assert made is None and "function 1 (convolution): its decision is not this call's: the call is refused" \
        in reason, reason
    assert all(np.array_equal(g.raw, r) for g, r in zip((x2, y2), before)), "a refused batch wrote memory"


def test_a_decision_for_another_kind_is_refused():
    """An addition's decision handed to a subtraction of the same tensors (same roles, same
    parameters): the kinds differ, nothing is made."""
    from acl_bridge.configure_batch import configure_recalled
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.functions import Sub

    x, w, b, y, z = _net()
    kept = [f.decision for f in _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())]
    x2, w2, b2, y2, z2 = _net()
    recalls = _recalls(x2, w2, b2, y2, z2, kept)
    recalls[2] = replace(recalls[2], cls=Sub)
    made, reason = configure_recalled(recalls)
    assert made is None and "it was made for add, the call is sub" in reason, reason


def test_bad_arguments_raise_as_the_constructor_raises_them():
    from ndarray import NdArray
    from ndarray.errors import ReadOnlyError

    from acl_bridge.configure_batch import configure_recalled
    from acl_bridge.configure_session import ConfigureSession

    x, w, b, y, z = _net()
    kept = [f.decision for f in _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())]
    x2, w2, b2, y2, z2 = _net()
    recalls = _recalls(x2, w2, b2, y2, z2, kept)
    ro = NdArray(z2.array.allocation, z2.array.descriptor, readonly=True)
    recalls[2] = replace(recalls[2], args=(y2.array, x2.array, ro))
    with pytest.raises(ReadOnlyError, match="dst is written by add"):
        configure_recalled(recalls)


# ---------------------------------------------------------------------------- crafted kept records
def _field_ranges():
    """(name, offset, size) of every scalar field of a native description record."""
    from acl_bridge.native import require_native

    ffi, _ = require_native()
    out = []
    for name, field in ffi.typeof("acl_shim_tensor_desc").fields:
        size = ffi.sizeof(field.type)
        out.append((name, field.offset, size))
    return out


def _crafted_values(size: int, rng) -> list:
    """Values an attacker would write into a field of ``size`` bytes: the edges of its range,
    values just below 2^64 (a sum that wraps), and random ones."""
    top = 1 << (8 * size)
    return [0, 1, top - 1, top - 8, top - 192, top // 2, top // 2 - 1, int(rng.integers(0, min(top, 1 << 63)))]


def test_crafted_kept_records_are_refused_or_right_and_never_write_outside(tmp_path):
    """A fuzz of resealed kept records: every field of every description of the batch (offsets,
    strides, shapes and sizes near 2^64, the per-channel scales' pointer and count, data types,
    backends) and the native parameters, set to crafted values. Each batch is refused or runs
    to exactly the cold start's outputs; no byte around any buffer changes, nothing crashes
    (the process would die)."""
    from acl_bridge.configure_batch import configure_kept
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.decisions import KeptDecisions
    from acl_bridge.schedule import Schedule
    from acl_bridge.workspace import Workspace

    x, w, b, y, z = _net()
    first = _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())
    for f in first:
        f.run()
    want = (y.numpy().copy(), z.numpy().copy())
    kept = KeptDecisions.of(tuple(f.decision for f in first))
    blob, size = bytes(kept.desc_blob), kept.desc_size
    rng = np.random.default_rng(2026)
    fields = _field_ranges()
    cases = [(t, name, at, n, v) for t in range(len(blob) // size) for name, at, n in fields
             for v in _crafted_values(n, rng)]
    cases += [("params", None, int(o), 4, int(v)) for o, v in zip(rng.integers(0, kept.params_size - 4, 40),
                                                                   rng.integers(0, 1 << 32, 40))]
    made_count = refused = 0
    for t, name, at, n, value in cases:
        crafted = KeptDecisions.of(tuple(f.decision for f in first))
        if t == "params":
            p = bytearray(crafted.params_blob)
            p[at:at + n] = value.to_bytes(n, "little")
            crafted.params_blob = bytes(p)
        else:
            d = bytearray(blob)
            d[t * size + at:t * size + at + n] = value.to_bytes(n, "little")
            crafted.desc_blob = bytes(d)
        x2, w2, b2, y2, z2 = _net()
        workspace = Workspace()
        calls = [(r.cls, r.args, r.kwargs) for r in _recalls(x2, w2, b2, y2, z2, (None, None, None), workspace)]
        made, why = configure_kept(calls, crafted)
        if made is None:
            refused += 1
            assert why, (t, name, value)
        else:
            made_count += 1
            workspace.allocate()
            Schedule(made).run()
            assert np.array_equal(y2.numpy(), want[0]) and np.array_equal(z2.numpy(), want[1]), (t, name, value)
            made.close()
        for g in (x2, y2, z2):
            assert g.untouched(), f"crafted {name} = {value} of record {t} wrote outside a buffer"
    assert refused > 0 and made_count > 0, (refused, made_count)


@pytest.mark.parametrize("field, value, why", [
    ("offset_first_element_in_bytes", (1 << 64) - 192, "addresses more than 2^64 bytes"),  # wraps to 192 bytes before
    ("offset_first_element_in_bytes", (1 << 63), "addresses"),
    ("strides_in_bytes", (1 << 32) - 4, "addresses"),  # the largest stride ACL takes: far past the buffer
    ("strides_in_bytes", (1 << 64) - 64, "stride does not fit"),  # refused as ACL's TensorInfo is made
])
def test_the_native_bounds_check_alone_refuses_extents_that_wrap(field, value, why, monkeypatch):
    """The native layer's own check, with the Python comparison taken out: a kept extent past
    the buffer, or whose sum wraps past 2^64, is refused before ACL sees it, and no byte around
    any buffer changes."""
    import acl_bridge.configure_batch as cb
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.decisions import KeptDecisions
    from acl_bridge.native import require_native
    from acl_bridge.workspace import Workspace

    ffi, _ = require_native()
    x, w, b, y, z = _net()
    first = _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())
    kept = KeptDecisions.of(tuple(f.decision for f in first))
    size = kept.desc_size
    dst = kept.starts[2] + 2  # the addition's dst
    f = dict(ffi.typeof("acl_shim_tensor_desc").fields)[field]
    at = dst * size + f.offset + (8 if field == "strides_in_bytes" else 0)  # y's stride for strides
    blob = bytearray(kept.desc_blob)
    blob[at:at + 8] = value.to_bytes(8, "little")
    kept.desc_blob = bytes(blob)
    monkeypatch.setattr(cb, "_descs_not_the_calls", lambda *args: "")
    x2, w2, b2, y2, z2 = _net()
    calls = [(r.cls, r.args, r.kwargs) for r in _recalls(x2, w2, b2, y2, z2, (None, None, None), Workspace())]
    made, reason = cb.configure_kept(calls, kept)
    assert made is None and "function 2" in reason and why in reason, reason
    for g in (x2, y2, z2):
        assert g.untouched()


def test_a_kept_record_one_byte_off_is_refused_before_the_native_call():
    """Mutants of a batch's kept records, each one byte off (a bit flipped): every byte of a
    function's native parameters and of the compared leading fields of one description (shape,
    strides, offset, size, data type, layout, quantization, the padding between them), and one
    byte of each other function's parameters and each other description's. Each is refused by the comparison with the call (parameters as
    one bytes comparison per function, the descriptions' leading bytes gathered and compared in
    one go), naming the function, before anything native is made; no buffer changes."""
    from acl_bridge.configure_batch import _compared_format, configure_kept
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.decisions import KeptDecisions
    from acl_bridge.native import require_native

    ffi, _ = require_native()
    x, w, b, y, z = _net()
    first = _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())
    kept = KeptDecisions.of(tuple(f.decision for f in first))
    compared = sum(part.size for part in _compared_format(ffi))
    ps, ds = kept.params_size, kept.desc_size
    rng = np.random.default_rng(7)
    cases = [("params", 1, 1 * ps + at) for at in range(ps)]  # every byte of the activation's parameters
    cases += [("params", i, i * ps + int(rng.integers(ps))) for i in (0, 2)]
    given = [t for t, layout in enumerate(kept.tensors) if layout >= 0]
    add = [kept.starts[2] + 2]  # every compared byte of the addition's dst's description
    cases += [("desc", 2, t * ds + at) for t in add for at in range(compared)]
    cases += [("desc", int(np.searchsorted(kept.starts, t, "right")) - 1, t * ds + int(rng.integers(compared)))
              for t in given if t not in add]
    x2, w2, b2, y2, z2 = _net()
    calls = [(r.cls, r.args, r.kwargs) for r in _recalls(x2, w2, b2, y2, z2)]
    for what, i, at in cases:
        crafted = KeptDecisions.of(tuple(f.decision for f in first))
        blob = bytearray(crafted.params_blob if what == "params" else crafted.desc_blob)
        blob[at] ^= 1 << int(rng.integers(8))
        if what == "params":
            crafted.params_blob = bytes(blob)
        else:
            crafted.desc_blob = bytes(blob)
        made, why = configure_kept(calls, crafted)
        expected = "its native parameters differ" if what == "params" else "its kept description is not its array's"
        assert made is None and f"function {i} " in why and expected in why, (what, at, why)
    for g in (x2, y2, z2):
        assert g.untouched()
    made, why = configure_kept(calls, kept)  # the records as kept: made
    assert made is not None, why
    made.close()
