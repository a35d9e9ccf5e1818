"""The planner, on the host, without ACL: a table of cases, each with the facts ACL gave
(negotiated padding, probe findings, validate()'s renegotiation), measured on ACL 20.08 and
24.11 where the case says so, and the decision expected for every tensor.

Every staging reason of acl_bridge.plan.Reason appears in the table (checked below)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acl_bridge.executor import bridge_allocate, describe_request, layout_of
from acl_bridge.layout import PaddingSize
from acl_bridge.mapping import acl_layout_padding, padded_descriptor, tensor_info
from acl_bridge.plan import AclFacts, Action, Origin, PlanOptions, Reason, plan_function
from ndarray import NdArray, NotRepresentableError

P = PaddingSize


def dense(shape, dtype="float32"):
    return NdArray.zeros(shape, dtype)


def padded(shape, pad: PaddingSize, *, bridge=False):
    d = padded_descriptor(shape, "float32", pad)
    return bridge_allocate(d) if bridge else NdArray.allocate(d)


def view_of_parent():
    """The centre 8x8 of a 12x12 numpy array: its "padding" is the parent's other elements."""
    x = np.zeros((1, 1, 12, 12), np.float32)
    return NdArray.from_numpy(x[:, :, 2:10, 2:10])


def transposed():
    return NdArray.from_numpy(np.zeros((1, 1, 8, 8), np.float32).transpose(0, 1, 3, 2))


def misaligned():
    raw = np.zeros(4 * 64 + 4, np.uint8)  # numpy allocations are at least 16-byte aligned
    return NdArray.from_numpy(np.ndarray((1, 1, 8, 8), np.float32, buffer=raw[1:257]))


def gapped_batches():
    """Two images with a gap between them: ACL collapses z and up, so this is unsafe."""
    x = np.zeros((2, 2, 9, 8), np.float32)
    return NdArray.from_numpy(x[:, :1, :8, :])


def bottom_row_per_batch():
    """Two one-channel images with a row after each: a padded view whose size-1 channel keeps
    its stride (mapping.size1_strides), so ACL reads it as one bottom row per image, in place."""
    x = np.zeros((2, 1, 9, 8), np.float32)
    return NdArray.from_numpy(x[:, :, :8, :])


def arrays_for(case):
    return {role: make() for role, make in case["arrays"].items()}


# Each case: arrays per role (src, dst), facts, options, expected {role: (action, reason)}.
CASES = {
    "dense, no padding asked (24.11 relu)": dict(
        arrays={"src": lambda: dense((1, 2, 8, 8)), "dst": lambda: dense((1, 2, 8, 8))},
        facts=AclFacts({"src": P(), "dst": P()}, {"src": False, "dst": False}, True),
        expect={"src": ("in_place", None), "dst": ("in_place", None)}),
    "not probed yet: plan asks for the probe": dict(
        arrays={"src": lambda: dense((1, 2, 8, 8)), "dst": lambda: dense((1, 2, 8, 8))},
        facts=AclFacts({"src": P(), "dst": P()}),
        expect={"src": ("in_place", None), "dst": ("in_place", None)}, needs_probe=True),
    "not probed yet, dense buffers of the bridge's own: no finding could stage them, no probe": dict(
        arrays={"src": lambda: padded((1, 2, 8, 8), P(), bridge=True), "dst": lambda: padded((1, 2, 8, 8), P(), bridge=True)},
        facts=AclFacts({"src": P(), "dst": P()}),
        expect={"src": ("in_place", None), "dst": ("in_place", None)}, needs_probe=False),
    "not probed yet, the user's dense weights that ACL takes as const, bridge buffers around: no probe": dict(
        arrays={"src": lambda: padded((1, 2, 8, 8), P(), bridge=True), "weights": lambda: dense((4, 2, 3, 3)),
                "dst": lambda: padded((1, 4, 6, 6), P(), bridge=True)},
        const=("weights",), facts=AclFacts({"src": P(), "weights": P(), "dst": P()}),
        expect={"src": ("in_place", None), "weights": ("in_place", None), "dst": ("in_place", None)},
        needs_probe=False),
    "not probed yet, the same weights not const to ACL (any other role): probe": dict(
        arrays={"src": lambda: padded((1, 2, 8, 8), P(), bridge=True), "weights": lambda: dense((4, 2, 3, 3)),
                "dst": lambda: padded((1, 4, 6, 6), P(), bridge=True)},
        facts=AclFacts({"src": P(), "weights": P(), "dst": P()}),
        expect={"src": ("in_place", None), "weights": ("in_place", None), "dst": ("in_place", None)},
        needs_probe=True),
    "not probed yet, the user's padded weights, const to ACL (a layout ACL might ignore): probe": dict(
        arrays={"src": lambda: padded((1, 2, 8, 8), P(), bridge=True), "weights": lambda: padded((4, 2, 3, 3), P(0, 1, 0, 0)),
                "dst": lambda: padded((1, 4, 6, 6), P(), bridge=True)},
        const=("weights",), facts=AclFacts({"src": P(), "weights": P(), "dst": P()}),
        expect={"src": ("in_place", None), "weights": ("in_place", None), "dst": ("in_place", None)},
        needs_probe=True),
    "not probed yet, one bridge buffer padded (a layout ACL might mis-address): probe": dict(
        arrays={"src": lambda: padded((1, 1, 8, 8), P(1, 2, 1, 1), bridge=True),
                "dst": lambda: padded((1, 1, 8, 8), P(), bridge=True)},
        facts=AclFacts({"src": P(1, 2, 1, 1), "dst": P()}),
        expect={"src": ("in_place", None), "dst": ("in_place", None)}, needs_probe=True),
    "20.08 NHWC pooling asks right 1 of a dense src": dict(
        arrays={"src": lambda: dense((1, 8, 8, 4)), "dst": lambda: dense((1, 8, 8, 4))},
        facts=AclFacts({"src": P(0, 1, 0, 0), "dst": P()}, {"src": False, "dst": False}, True),
        expect={"src": ("staged", Reason.PADDING_MISSING), "dst": ("in_place", None)}),
    "padding asked, buffer has it (ADR-style right 1 / bottom 1)": dict(
        arrays={"src": lambda: padded((2, 2, 5, 5), P(0, 1, 1, 0)), "dst": lambda: dense((2, 2, 5, 5))},
        facts=AclFacts({"src": P(0, 1, 1, 0), "dst": P()}, {"src": False, "dst": False}, True),
        expect={"src": ("in_place", None), "dst": ("in_place", None)}),
    "padding asked, buffer has less": dict(
        arrays={"src": lambda: padded((2, 2, 5, 5), P(0, 1, 1, 0)), "dst": lambda: dense((2, 2, 5, 5))},
        facts=AclFacts({"src": P(1, 2, 1, 1), "dst": P()}, {"src": False, "dst": False}, True),
        expect={"src": ("staged", Reason.PADDING_MISSING), "dst": ("in_place", None)}),
    "20.08 max pooling writes the border of a user's padded dst": dict(
        arrays={"src": lambda: padded((1, 1, 8, 8), P(1, 2, 1, 1)), "dst": lambda: padded((1, 1, 8, 8), P(1, 2, 1, 1))},
        facts=AclFacts({"src": P(1, 2, 1, 1), "dst": P(1, 2, 1, 1)}, {"src": True, "dst": False}, True),
        expect={"src": ("staged", Reason.WRITES_OUTSIDE), "dst": ("in_place", None)}),
    "the same on bridge-owned buffers: ACL may write their padding": dict(
        arrays={"src": lambda: padded((1, 1, 8, 8), P(1, 2, 1, 1), bridge=True),
                "dst": lambda: padded((1, 1, 8, 8), P(1, 2, 1, 1), bridge=True)},
        facts=AclFacts({"src": P(1, 2, 1, 1), "dst": P(1, 2, 1, 1)}, {"src": True, "dst": False}, True),
        expect={"src": ("in_place", None), "dst": ("in_place", None)}),
    "allow_padding_writes on a user's own padded buffer": dict(
        arrays={"src": lambda: padded((1, 1, 8, 8), P(1, 2, 1, 1)), "dst": lambda: dense((1, 1, 8, 8))},
        facts=AclFacts({"src": P(1, 2, 1, 1), "dst": P()}, {"src": True, "dst": False}, True),
        options=PlanOptions(allow_padding_writes=True),
        expect={"src": ("in_place", None), "dst": ("in_place", None)}),
    "a view's parent is never offered as padding: staged for the padding ACL asked for": dict(
        arrays={"src": view_of_parent, "dst": lambda: dense((1, 1, 8, 8))},
        facts=AclFacts({"src": P(1, 2, 1, 1), "dst": P()}, {"src": True, "dst": False}, True),
        options=PlanOptions(allow_padding_writes=True),
        expect={"src": ("staged", Reason.PADDING_MISSING), "dst": ("in_place", None)}),
    "allow_padding_writes never reaches a view's parent (20.08 softmax writes src's row ends)": dict(
        arrays={"src": view_of_parent, "dst": lambda: dense((1, 1, 8, 8))},
        facts=AclFacts({"src": P(), "dst": P()}, {"src": True, "dst": False}, True),
        options=PlanOptions(allow_padding_writes=True), free={"src": False},
        expect={"src": ("staged", Reason.PADDING_NOT_FREE), "dst": ("in_place", None)}),
    "vector stores past the end of the user's buffer: staged whatever the flags": dict(
        arrays={"src": lambda: padded((1, 1, 8, 8), P(1, 2, 1, 1)), "dst": lambda: dense((1, 1, 8, 8))},
        facts=AclFacts({"src": P(), "dst": P()}, {"src": False, "dst": True}, True, writes_beyond={"dst": True}),
        options=PlanOptions(allow_padding_writes=True),
        expect={"src": ("in_place", None), "dst": ("staged", Reason.WRITES_BEYOND)}),
    "20.08 1x1 NHWC convolution ignores strides: non-dense tensors staged": dict(
        arrays={"src": view_of_parent, "dst": lambda: dense((1, 1, 8, 8))},
        facts=AclFacts({"src": P(), "dst": P()}, {"src": False, "dst": False}, False),
        expect={"src": ("staged", Reason.LAYOUT_MISMATCH), "dst": ("in_place", None)}),
    "transposed view is not representable (x stride != element size)": dict(
        arrays={"src": transposed, "dst": lambda: dense((1, 1, 8, 8))},
        facts=AclFacts({"src": P(), "dst": P()}, {"src": False, "dst": False}, True),
        expect={"src": ("staged", Reason.NOT_REPRESENTABLE), "dst": ("in_place", None)}),
    "misaligned base address": dict(
        arrays={"src": misaligned, "dst": lambda: dense((1, 1, 8, 8))},
        facts=AclFacts({"src": P(), "dst": P()}, {"src": False, "dst": False}, True),
        expect={"src": ("staged", Reason.MISALIGNED), "dst": ("in_place", None)}),
    "gap between batches: ACL collapses z and up": dict(
        arrays={"src": gapped_batches, "dst": lambda: dense((2, 1, 8, 8))},
        facts=AclFacts({"src": P(), "dst": P()}, {"src": False, "dst": False}, True),
        expect={"src": ("staged", Reason.COLLAPSE_UNSAFE), "dst": ("in_place", None)}),
    "a row after each batch's one channel: ACL's bottom padding": dict(
        arrays={"src": bottom_row_per_batch, "dst": lambda: dense((2, 1, 8, 8))},
        facts=AclFacts({"src": P(), "dst": P()}, {"src": False, "dst": False}, True),
        expect={"src": ("in_place", None), "dst": ("in_place", None)}),
    "20.08 NHWC depthwise: validate() wants more than negotiated": dict(
        arrays={"src": lambda: dense((1, 8, 8, 4)), "dst": lambda: dense((1, 8, 8, 8))},
        facts=AclFacts({"src": P(1, 6, 1, 1), "dst": P()}, None, None, renegotiate="Insufficient Padding!",
                       auto_padding={"src": P(4, 36, 4, 4), "dst": P(4, 36, 4, 4)}),
        expect={"src": ("staged", Reason.RENEGOTIATED), "dst": ("staged", Reason.RENEGOTIATED)},
        padding={"src": P(4, 36, 4, 4), "dst": P(4, 36, 4, 4)}),
}


def _requests(arrays, free=None, const=()):
    reqs = []
    for role, a in arrays.items():
        r = describe_request(role, a, is_output=role == "dst", data_layout="NCHW", quantization=None,
                             acl_const=role in const)
        if free and role in free:
            from dataclasses import replace

            r = replace(r, padding_is_free=free[role])
        reqs.append(r)
    return reqs


@pytest.mark.parametrize("name", list(CASES))
def test_planner_table(name):
    case = CASES[name]
    arrays = arrays_for(case)
    plan = plan_function("test", _requests(arrays, case.get("free"), case.get("const", ())), case["facts"],
                         case.get("options", PlanOptions()))
    got = {t.role: (t.action.value, t.reason) for t in plan.tensors}
    assert got == case["expect"], plan.describe()
    assert plan.needs_probe == case.get("needs_probe", False)
    for t in plan.tensors:
        assert t.copies_per_run == (1 if t.action is Action.STAGED else 0)
        if t.action is Action.STAGED:
            assert t.detail and t.may_write_padding  # staging buffers are the bridge's
    for role, pad in case.get("padding", {}).items():
        assert plan[role].padding == pad


def test_every_reason_is_in_the_table():
    seen = {reason for case in CASES.values() for _, reason in case["expect"].values() if reason}
    assert seen == set(Reason)


def test_origin_of_bridge_buffers():
    a = padded((1, 1, 4, 4), P(1, 1, 1, 1), bridge=True)
    b = padded((1, 1, 4, 4), P(1, 1, 1, 1))
    assert describe_request("x", a, is_output=False, data_layout="NCHW", quantization=None).origin is Origin.BRIDGE
    assert describe_request("x", b, is_output=False, data_layout="NCHW", quantization=None).origin is Origin.USER
    # a view of a bridge buffer is a new object: the bridge does not vouch for it
    assert describe_request("x", a[0], is_output=False, data_layout="NCHW",
                            quantization=None).origin is Origin.USER


def test_a_whole_reshape_of_a_dense_bridge_buffer_is_the_bridges():
    """executor.bridge_reshape: a reshape holding every element of a dense bridge buffer (the
    runner's reshape views, models/runtime/buffers) is the bridge's, so no probe is made for it;
    a part of a buffer, a reshape of the caller's memory or of a padded buffer stays the caller's."""
    from acl_bridge.executor import bridge_reshape, bridge_slot, origin_of

    def request(a):
        return describe_request("x", a, is_output=False, data_layout="NHWC", quantization=None)

    arena = bridge_allocate(padded_descriptor((4096,), np.uint8, P()))
    for parent in (padded((1, 2, 2, 8), P(), bridge=True),
                   bridge_slot(arena, 64, padded_descriptor((1, 2, 2, 8), np.float32, P()))):
        whole = parent.reshape((1, 32))
        assert origin_of(whole) is Origin.USER  # until adopted
        assert bridge_reshape(parent, whole) and request(whole).origin is Origin.BRIDGE
        again = whole.reshape((32,))  # a reshape of the adopted reshape
        assert bridge_reshape(whole, again) and origin_of(again) is Origin.BRIDGE
        part = parent[:, :1]  # other elements of the buffer lie around it
        assert not bridge_reshape(parent, part) and request(part).origin is Origin.USER
    users = padded((1, 2, 2, 8), P())
    assert not bridge_reshape(users, users.reshape((1, 32))) and origin_of(users.reshape((1, 32))) is Origin.USER
    framed = padded((1, 1, 4, 4), P(1, 1, 1, 1), bridge=True)
    assert not bridge_reshape(framed, framed[0])  # not dense: its padding cells lie between elements
    other = padded((1, 2, 2, 8), P(), bridge=True)
    assert not bridge_reshape(other, padded((1, 2, 2, 8), P(), bridge=True).reshape((1, 32)))  # another's memory


def test_allow_copy_false_refuses_staging_naming_the_tensor():
    arrays = {"src": transposed(), "dst": dense((1, 1, 8, 8))}
    facts = AclFacts({"src": P(), "dst": P()})
    with pytest.raises(NotRepresentableError, match=r"test: src cannot be used in place \(not_representable"):
        plan_function("test", _requests(arrays), facts, PlanOptions(allow_copy=False))


def test_absent_optional_tensor_and_1d_staging_padding():
    src = NdArray.from_numpy(np.zeros(16, np.float32)[::2])  # strided 1-D: not representable
    req = describe_request("bias", src, is_output=False, data_layout="NCHW", quantization=None)
    plan = plan_function("test", [None, req], AclFacts({"bias": P(1, 3, 1, 2)}), roles=("c", "bias"))
    assert plan["c"].action is Action.ABSENT
    assert plan["bias"].padding == P(0, 3, 1, 2)  # a 1-D tensor: bottom rows after it, no top
    assert plan.copies_per_run == 1 and plan.staged == ("bias",)
    assert "bias: staged" in plan.describe()


def test_a_constant_asked_bottom_rows_is_a_copy_that_has_them():
    """The runner's constants (models/runtime/buffers.constant_array): a 1-D bias asked for bottom
    rows (ACL 20.08's per-channel depthwise) is a bridge copy with those rows, so ACL takes it
    in place (nothing staged per run); asked none, the model's own memory."""
    from acl_bridge import tensor_info
    from acl_bridge.executor import origin_of
    from acl_bridge.models.runtime.buffers import constant_array

    class Depthwise:
        const_roles = ("weights", "bias")

    bias = np.arange(-3, 5, dtype=np.int32)
    a = constant_array(Depthwise, "bias", bias, P(top=2, right=4, bottom=5), share_constants=True)
    assert origin_of(a) is Origin.BRIDGE and np.array_equal(a.numpy(), bias)
    got = tensor_info(a.descriptor).padding
    assert (got.top, got.bottom, got.left) == (0, 5, 0) and got.right >= 4  # no top for a 1-D tensor
    assert origin_of(constant_array(Depthwise, "bias", bias, P(top=2), share_constants=True)) is Origin.USER
    assert origin_of(constant_array(Depthwise, "bias", bias, P(), share_constants=False)) is Origin.BRIDGE


def test_plan_is_frozen():
    plan = plan_function("test", _requests({"src": dense((2, 2)), "dst": dense((2, 2))}),
                         AclFacts({"src": P(), "dst": P()}, {"src": False, "dst": False}, True))
    with pytest.raises(AttributeError):
        plan.kind = "other"  # type: ignore[misc]


@st.composite
def _arrays_to_describe(draw):
    """NdArrays of every kind describe_request meets: the bridge's (padded or not), the
    caller's dense, F-ordered, with odd strides on size-1 dimensions, views of a parent."""
    rank = draw(st.integers(0, 5))
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 1, 2, 3]), min_size=rank, max_size=rank)))
    dtype = np.dtype(draw(st.sampled_from(["float32", "int8", "int16", "float16", "int32"])))
    how = draw(st.sampled_from(["bridge", "bridge_padded", "zeros", "fortran", "size1_strides", "view"]))
    if how in ("bridge", "bridge_padded"):
        pad = P(*draw(st.lists(st.integers(0, 2), min_size=4, max_size=4))) if how == "bridge_padded" and \
            len(shape) >= 2 else P()
        try:
            return bridge_allocate(padded_descriptor(shape, dtype, pad))
        except NotRepresentableError:
            return bridge_allocate(padded_descriptor(shape, dtype, P()))
    if how == "zeros":
        return NdArray.zeros(shape, dtype)
    if how == "fortran":
        return NdArray.from_numpy(np.asfortranarray(np.zeros(shape, dtype)))
    base = np.zeros(tuple(n + 1 for n in shape) or (2,), dtype)
    if how == "view":
        return NdArray.from_numpy(base[tuple(slice(0, n) for n in shape)] if shape else base[:1])
    strides = list(np.zeros(shape, dtype).strides)  # dense, but any stride on a size-1 dimension
    for k, n in enumerate(shape):
        if n == 1:
            strides[k] = dtype.itemsize * draw(st.integers(1, 7))
    return NdArray.from_numpy(np.lib.stride_tricks.as_strided(base, shape, tuple(strides)))


@given(_arrays_to_describe(), st.sampled_from(["NCHW", "NHWC"]))
def test_describe_request_gives_a_dense_buffer_the_padding_acl_layout_padding_would(a, data_layout):
    """describe_request's shortcut for a dense buffer (its info's padding, without the
    reference layout) is exactly acl_layout_padding's answer; every other buffer gets that."""
    r = describe_request("src", a, is_output=False, data_layout=data_layout, quantization=None)
    try:
        info = tensor_info(layout_of(a), data_layout)
    except NotRepresentableError:
        assert r.info is None and r.acl_padding is None
        return
    assert r.info == info
    assert r.acl_padding == acl_layout_padding(layout_of(a), info)
