"""A first start's functions made in pieces beside its decision pass
(acl_bridge.configure_beside): the pieces, handed on in call order whatever order the
decisions come in, make the functions one native call after the pass makes, with the same
plans and bits, the padding and the bytes around every buffer unchanged; a staging call is
left to the caller; a piece ACL's bounds check refuses, a batch other than the one handed on,
or a pass given up lets every piece go and writes nothing."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from .test_configure_batch import _net, _one_at_a_time, _recalls

pytestmark = pytest.mark.acl


def _decided():
    """The three functions' decisions as one at a time makes them, with their outputs."""
    from acl_bridge.configure_session import ConfigureSession

    x, w, b, y, z = _net()
    first = _one_at_a_time(_recalls(x, w, b, y, z), ConfigureSession())
    for f in first:
        f.run()
    return [f.decision for f in first], (y.numpy().copy(), z.numpy().copy())


def _batches(monkeypatch) -> list:
    """Every PreparedBatch a MadeBeside prepares from now on, in order."""
    from acl_bridge import configure_beside

    made, real = [], configure_beside.prepare_kept

    def prepare(*a, **k):
        batch, why = real(*a, **k)
        made.append(batch)
        return batch, why

    monkeypatch.setattr(configure_beside, "prepare_kept", prepare)
    return made


def _beside(decisions, order=(0, 1, 2)):
    """A MadeBeside over fresh buffers of _net, given ``decisions`` in ``order``: (it, the
    buffers, the workspace, the session it ran in)."""
    from acl_bridge.configure_beside import MadeBeside
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.workspace import Workspace

    x, w, b, y, z = _net()
    workspace = Workspace()
    calls = [(r.cls, r.args, r.kwargs) for r in _recalls(x, w, b, y, z, workspace=workspace)]
    session = ConfigureSession()
    made = MadeBeside(calls)
    with session.active():
        for k in order:
            made.decided(k, decisions[k])
    return made, (x, y, z), workspace, session


@pytest.mark.parametrize("order, pieces", [((0, 1, 2), 2), ((2, 1, 0), 1), ((1, 0, 2), 2)])
def test_pieces_beside_the_pass_make_what_one_call_after_it_makes(order, pieces):
    from acl_bridge.schedule import Schedule

    decisions, (y_want, z_want) = _decided()
    made, (x, y, z), workspace, session = _beside(decisions, order)
    with session.active():
        functions, why = made.made([0, 1, 2])
    assert functions is not None and why == "", why
    assert not made.thread._running  # (closed: nothing of ACL left running)
    assert functions.kinds == ("convolution", "activation", "add")  # in call order
    assert functions.plans == tuple(d.plan for d in decisions) and len(functions.seconds) == 3
    # a piece per native call (the first as soon as call 0 is decided, with every call decided
    # in a row after it)
    assert pieces <= session.calls["configure"] <= 3
    workspace.allocate()
    Schedule(functions).run()
    assert np.array_equal(y.numpy(), y_want) and np.array_equal(z.numpy(), z_want)
    for g in (x, y, z):
        assert g.untouched(), "a function made beside the pass wrote outside the elements"
    assert [f.plan for f in functions] == [d.plan for d in decisions]  # the objects, when asked for
    functions.close()


def test_a_staging_call_is_left_to_the_caller():
    decisions, _ = _decided()
    made, _, _, session = _beside([decisions[0], None, decisions[2]])
    with session.active():
        functions, why = made.made([0, 2])
    assert functions is not None and why == "" and functions.kinds == ("convolution", "add")
    functions.close()


def _does_not_fit(d):
    """``d`` (the addition's decision) with its output described 64 rows past its buffer:
    refused by the native bounds check (a first start's decisions are not compared in Python)."""
    from acl_bridge.tensor import desc_content, desc_from_content

    big = desc_from_content(d.descs[2])
    big.shape[2] += 64
    return replace(d, descs=d.descs[:2] + (desc_content(big),))


@pytest.mark.parametrize("how", ["refused", "another batch", "given up"])
def test_a_refused_piece_or_a_pass_given_up_lets_every_piece_go(how, monkeypatch):
    decisions, _ = _decided()
    if how == "refused":
        decisions[2] = _does_not_fit(decisions[2])
    batches = _batches(monkeypatch)
    made, guarded, _, session = _beside(decisions)
    before = [g.raw.copy() for g in guarded]
    with session.active():
        if how == "given up":
            made.close()
            made.close()  # (idempotent)
        else:
            functions, why = made.made([0, 1, 2] if how == "refused" else [0, 1])
            assert functions is None
            # (a refusal names the call by its index in the pass)
            assert ("call 2 of the pass" in why and ("outside" in why or "bytes" in why)) if how == "refused" \
                else why == "3 functions made beside the pass, 2 to make", why
    assert not made.thread._running and batches
    # every piece made was owned (its functions destroyed when dropped): none left native
    assert all(b._owned for b in batches if b.status == 0)
    assert session.calls["configure"] == len(batches)
    assert all(np.array_equal(g.raw, r) for g, r in zip(guarded, before)), "a piece let go wrote memory"


def test_an_output_nobody_may_write_raises_as_the_constructor_raises_it():
    """A piece with a read-only output raises ReadOnlyError naming it, from the pass's call
    (as the one call after the pass and the constructor raise it); closing lets go what was
    made and ends the thread."""
    from ndarray import NdArray
    from ndarray.errors import ReadOnlyError

    from acl_bridge.configure_beside import MadeBeside
    from acl_bridge.functions import Add
    from acl_bridge.workspace import Workspace

    decisions, _ = _decided()
    x, _, _, y, z = _net()
    ro = NdArray(z.array.allocation, z.array.descriptor, readonly=True)
    made = MadeBeside([(Add, (y.array, x.array, ro), {"data_layout": "NHWC", "workspace": Workspace()})])
    with pytest.raises(ReadOnlyError, match="dst is written by add"):
        made.decided(0, decisions[2])
    made.close()
    assert not made.thread._running and not made._pieces and z.untouched()


def test_a_wait_cut_short_still_lets_every_piece_go(monkeypatch):
    """An interrupt while made() waits (here: the first piece's wait raises
    KeyboardInterrupt) reaches the caller; the thread is closed and every piece made is owned,
    so let go, not left native."""
    from acl_bridge.question_thread import Later

    decisions, _ = _decided()
    batches = _batches(monkeypatch)
    made, guarded, _, session = _beside(decisions)
    result = Later.result

    def interrupted(self):
        monkeypatch.setattr(Later, "result", result)
        raise KeyboardInterrupt

    monkeypatch.setattr(Later, "result", interrupted)
    before = [g.raw.copy() for g in guarded]
    with session.active(), pytest.raises(KeyboardInterrupt):
        made.made([0, 1, 2])
    assert not made.thread._running and not made._pieces
    assert len(batches) >= 2 and all(batch._owned for batch in batches)  # (made()'s own piece too)
    assert all(np.array_equal(g.raw, r) for g, r in zip(guarded, before))
