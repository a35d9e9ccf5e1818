"""A function made from a kept decision (acl_bridge.decisions): given the decision of an
identical call, AclFunction describes, negotiates, plans and probes nothing (no question asked
of ACL), gives the same plan and the same bits as the function that decided, and leaves the
padding and the bytes around every buffer unchanged; a decision whose content differs from
the call (another layout, another memory origin, other options or parameters), or whose kept
description addresses more than the buffer holds, is ignored and the function is configured
as usual."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from .helpers import Guarded

pytestmark = pytest.mark.acl

QUESTIONS = ("negotiate", "check_layouts", "auto_padding", "probe")


def _conv(x: Guarded, w: np.ndarray, b: np.ndarray, dst: Guarded, session, activation="relu", **kw):
    from acl_bridge.functions import Convolution

    with session.active():
        return Convolution(x.array, w, b, dst.array, data_layout="NHWC", padding=1, activation=activation, **kw)


def _problem(variant="padded"):
    rng = np.random.default_rng(5)
    x = Guarded((1, 7, 7, 8), "float32", variant).set(rng.uniform(-1, 1, (1, 7, 7, 8)).astype(np.float32))
    w = rng.uniform(-1, 1, (16, 3, 3, 8)).astype(np.float32)
    b = rng.uniform(-1, 1, (16,)).astype(np.float32)
    return x, w, b, Guarded((1, 7, 7, 16), "float32", variant)


def test_a_function_made_from_a_kept_decision_asks_nothing_and_gives_the_same_bits():
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.decisions import decode, encode

    x, w, b, dst = _problem()
    first = _conv(x, w, b, dst, ConfigureSession())
    assert first.decision is not None and not first.decision_recalled
    first.run()
    want = dst.numpy().copy()
    assert x.untouched() and dst.untouched()

    kept = decode(encode((first.decision,)))[0]  # as another process reads it back
    x2, w2, b2, dst2 = _problem()
    session = ConfigureSession()
    second = _conv(x2, w2, b2, dst2, session, decided=kept)
    assert second.decision_recalled and second.decision == first.decision
    assert {c: session.calls.get(c, 0) for c in QUESTIONS} == {c: 0 for c in QUESTIONS}
    assert session.calls["configure"] == 1
    assert second.plan == first.plan and second.facts == first.facts
    assert {r: t.info for r, t in second._configured.tensors.items() if t is not None} == \
        {r: t.info for r, t in first._configured.tensors.items() if t is not None}
    assert [t.desc_content for t in second._configured.tensors.values() if t is not None] == \
        [t.desc_content for t in first._configured.tensors.values() if t is not None]
    second.run()
    assert np.array_equal(dst2.numpy(), want)
    assert x2.untouched() and dst2.untouched(), "a recalled function wrote outside the elements"


def _guarded_pair(bridge: bool):
    """Input and output of the convolution in buffers with ACL's own padding, owned by the
    bridge or brought by the user (the same descriptors either way)."""
    from acl_bridge.layout import PaddingSize

    rng = np.random.default_rng(5)
    pad = PaddingSize(1, 1, 1, 1)
    x = Guarded((1, 7, 7, 8), "float32", padding=pad, bridge=bridge).set(
        rng.uniform(-1, 1, (1, 7, 7, 8)).astype(np.float32))
    w = rng.uniform(-1, 1, (16, 3, 3, 8)).astype(np.float32)
    b = rng.uniform(-1, 1, (16,)).astype(np.float32)
    return x, w, b, Guarded((1, 7, 7, 16), "float32", padding=pad, bridge=bridge)


@pytest.mark.parametrize("other", ["layout", "origin", "options", "params", "does not fit", "other roles"])
def test_a_decision_of_other_content_or_that_does_not_fit_is_ignored(other):
    """Another layout, memory of another origin (the same descriptor), other options, other
    parameters, a plan of other roles: the decision does not match. A matching decision whose kept description
    addresses more than the buffer holds is refused before ACL sees it. Either way the
    function is configured as usual, with the usual results and untouched guard bytes."""
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.tensor import desc_content, desc_from_content

    if other == "origin":
        x, w, b, dst = _guarded_pair(bridge=True)
        x2, w2, b2, dst2 = _guarded_pair(bridge=False)
    else:
        x, w, b, dst = _problem()
        x2, w2, b2, dst2 = _problem("offset" if other == "layout" else "padded")
    kept = _conv(x, w, b, dst, ConfigureSession()).decision
    if other == "does not fit":
        big = desc_from_content(kept.descs[0])
        big.total_size_in_bytes = x2.array.allocation.nbytes + 4096
        big.shape[2] += 64  # rows past the end of the buffer
        kept = replace(kept, descs=(desc_content(big),) + kept.descs[1:])
    if other == "other roles":  # a plan of other roles (another kind's) is not this call's
        kept = replace(kept, plan=replace(kept.plan, tensors=tuple(replace(t, role=t.role + "_") for t in
                                                                     kept.plan.tensors)))
    kw = {"allow_padding_writes": True} if other == "options" else {}
    activation = None if other == "params" else "relu"
    session = ConfigureSession()
    f = _conv(x2, w2, b2, dst2, session, activation, decided=kept, **kw)
    assert not f.decision_recalled and session.calls["negotiate"] == 1
    f.run()
    ref = Guarded((1, 7, 7, 16), "float32")
    _conv(x2, w2, b2, ref, ConfigureSession(), activation).run()
    assert np.array_equal(dst2.numpy(), ref.numpy())
    assert x2.untouched() and dst2.untouched()
