"""Fallback segments on TFLite's interpreter between ACL segments (emulated arm64): a boundary
buffer asked for no padding is the interpreter's own tensor (nothing copied), the runner's
padded buffers copied into and out of the interpreter at each boundary, counted,
padding cells and guard bytes as they were, outputs the numpy executor's (itself checked
against TFLite's interpreter on the host: test_fallback_engine.py). Where ai-edge-litert cannot
be used here (2.x under QEMU) the numpy kernels run and the summary says why."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.fallback.tflite_segments import SegmentRefused, _litert, read_after  # noqa: E402
from acl_bridge.models.runtime.boundary_memory import interpreter_owned  # noqa: E402

from .graph_tflite import chain  # noqa: E402
from .test_partition_acl import SHAPE, _acl_24, _check, _runner  # noqa: E402

pytestmark = pytest.mark.acl


def _interpreter_here() -> bool:
    try:
        _litert()
        return True
    except SegmentRefused:
        return False


def _boundary(plan):
    """The buffers of the tensors the fallback segments read from outside or write for outside
    (not those inside a segment: the interpreter keeps those)."""
    out = set()
    for side, ks in plan.segments():
        if side == "fallback":
            ops = [plan.fallbacks[k] for k in ks]
            written = {t for f in ops for t in f.outputs}
            after = read_after(plan.model, [f.op_index for f in ops])
            out |= {plan.root(t) for f in ops for t in f.inputs if t >= 0 and t not in written}
            out |= {plan.root(t) for t in written if t in after}
    return out


@pytest.mark.parametrize("opcodes, arena", [(["RELU", "COS", "RELU"], False),
                                            (["COS", "RELU", "COS", "CEIL", "RELU"], False),
                                            (["RELU", "COS", "RELU"], True)],
                         ids=["middle", "alternating", "middle-arena"])
def test_fallback_segments_on_the_interpreter_between_acl_segments(opcodes, arena):
    r = _runner(chain(opcodes, SHAPE), arena=arena, fallback_engine="tflite")  # without the arena: a buffer each
    try:
        engines = [e.engine for e in r.schedule.fallback_engines]
        segments = len(engines)
        if _interpreter_here():
            assert engines == ["tflite"] * segments, r.summary()
            # a boundary buffer asked for no padding is the interpreter's tensor (nothing copied);
            # a padded one is copied, 4 bytes an element each way, and counted
            shared = [t for t, a in r.arrays.items() if t in r.buffer_plans and interpreter_owned(a)]
            boundary = _boundary(r.plan)
            assert set(shared) == {t for t in boundary if not r.buffer_plans[t].padding}, r.buffer_plans
            if opcodes[0] == "COS":  # the graph input, read by the fallback alone: no padding asked
                assert r.plan.model.inputs[0] in shared
            assert r.copied_bytes_per_inference["fallback_boundaries"] == \
                (segments * 2 - len(shared)) * 4 * int(np.prod(SHAPE)), (shared, r.summary())
        else:
            assert engines == ["numpy"] * segments and "crashes loading models under QEMU" in r.summary()
        written = {o for f in r.plan.fallbacks for o in f.outputs}
        for t in written:  # a sentinel in every padding cell of the buffers the fallback writes
            r.arrays[t].buffer().view(np.uint8)[...] = 0xA5
        before = {t: (r.arrays[t].buffer().copy(), r.arrays[t].padding_mask()) for t in written}
        x = np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32)
        _check(r, x)
        _check(r, -x)  # a second run on other values: nothing left over from the first
        for t, (buf, mask) in before.items():
            if not _acl_24():  # (20.08 fills the borders of some of its inputs itself)
                break
            assert np.array_equal(r.arrays[t].buffer()[mask], buf[mask]), t
    finally:
        r.close()
