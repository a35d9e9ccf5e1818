"""``TfliteRunner.padded_buffers()`` (issue 41): what it names is what the runner allocated.

For BlazeFace on ACL, every buffer of the load's plan (``buffer_plans``) is checked against
the memory the runner holds for it: the padding is the largest each side any function asked
for (its ``asked_by``, summed up by the test), the buffer's cells outside the elements are
exactly that padding around numpy's last two dimensions (the ADR's padded buffer, counted
from the shape), and ``padded_buffers()`` names exactly the buffers with padding, each with
its shape and padding. ACL 20.08 pads the 42-channel pooling's buffers (docs/models.md);
24.11 asks for none, so there the text is empty and every buffer is dense."""

import math

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

pytestmark = pytest.mark.acl


@pytest.fixture(scope="module")
def front(front_path):
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    r = TfliteRunner(front_path)
    yield r
    r.close()


def test_padded_buffers_names_the_padding_the_runner_allocated(front, astronaut_input):
    from acl_bridge.native import acl_version

    front.run(astronaut_input[1])  # the buffers as an inference leaves them
    listed = {}
    for entry in filter(None, front.padded_buffers().split("; ")):
        name, rest = entry.split(" [", 1)
        shape, pad = rest.split("] ")
        listed[name] = (tuple(int(v) for v in shape.split(", ")), tuple(int(v) for v in pad.strip("()").split(", ")))
    padded = {}
    for b in front.buffer_plans.values():
        sides = (0, 0, 0, 0)  # top, right, bottom, left: the largest asked on each side
        for _, _, p in b.asked_by:
            sides = tuple(max(s, v) for s, v in zip(sides, (p.top, p.right, p.bottom, p.left)))
        if len(b.shape) < 2:
            sides = (0, sides[1], 0, sides[3])  # no y axis
        if b.has_views:
            sides = (0, 0, 0, 0)  # a buffer seen through views (reshape, concatenation) is dense
        assert b.padding.as_tuple() == sides, (b.name, b.asked_by)
        top, right, bottom, left = sides
        d = front.arrays[b.tensor].descriptor
        assert d.shape == b.shape
        rank = len(b.shape)
        want = list(b.shape)
        if rank >= 1:
            want[-1] += left + right
        if rank >= 2:
            want[-2] += top + bottom
        assert d.padded_shape == tuple(want) and d.alloc_size == math.prod(want), b.name
        offsets = (0,) * (rank - 2) + (top, left) if rank >= 2 else (left,) * rank
        assert d.padding_offsets == offsets, b.name
        mask = front.arrays[b.tensor].padding_mask()
        assert int(np.count_nonzero(mask)) == d.alloc_size - d.size
        if any(sides):
            padded[b.name] = (b.shape, sides)
    assert listed == padded
    if acl_version() == "20.08":
        assert padded, "ACL 20.08 pads the pooling buffers of BlazeFace (docs/models.md)"
    else:
        assert front.padded_buffers() == "" and not padded, "ACL 24.11 asks BlazeFace for no padding"
