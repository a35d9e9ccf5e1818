"""The PAD fold (acl_bridge.models.planning.tflite_plan._fold_channel_pads) on the host: a table of
small graphs ``x -> PAD (channels) -> ADD <- y <- convolution`` in which the fold applies, and
the variations where it must not (something else reads the PAD's output or y, y is a graph
output or made by another kind of step, the PAD pads more than the channels, the ADD is
quantized, the sum is a graph output); where it applies, the folded plan run by numpy gives
exactly what the unfolded one gives."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from acl_bridge.models.planning.numpy_executor import run_plan_tensors
from acl_bridge.models.planning.tflite_plan import Plan, Step, View, _fold_channel_pads
from acl_bridge.models.format.tflite_reader import ModelSpec, TensorSpec

C, K = 4, 3  # x's channels, the channels the PAD adds
# tensors: 0 input (1,4,4,C); 1 y (1,4,4,C+K) from a 1x1 convolution of 0; 2 the PAD's output;
# 3 the sum; 4 the graph output (a RELU of 3, in place); 5 an extra reader's output
SHAPES = {0: (1, 4, 4, C), 1: (1, 4, 4, C + K), 2: (1, 4, 4, C + K), 3: (1, 4, 4, C + K), 4: (1, 4, 4, C + K),
          5: (1, 4, 4, C + K)}


def _graph(*, pad_width=((0, 0), (0, 0), (0, 0), (0, K)), y_kind="convolution", add_params=(), outputs=(4,),
           extra_reader=None):
    rng = np.random.default_rng(0)
    tensors = tuple(TensorSpec(index=i, name=f"t{i}", shape=s, dtype=np.dtype("float32"), data=None)
                    for i, s in SHAPES.items())
    model = ModelSpec(version=3, description="", tensors=tensors, operators=(), inputs=(0,), outputs=outputs,
                      md5="")
    if y_kind == "convolution":
        produce_y = Step(0, "CONV_2D", "convolution", (0,), 1, (("stride", (1, 1)), ("padding", (0, 0, 0, 0))),
                         (("weights", rng.uniform(-1, 1, (C + K, 1, 1, C)).astype(np.float32)),
                          ("bias", rng.uniform(-1, 1, (C + K,)).astype(np.float32))))
    else:  # a PAD makes y: not a convolution's own buffer
        produce_y = Step(0, "PAD", "pad", (0,), 1, (("pad_width", ((0, 0), (0, 0), (0, 0), (0, K))),))
    steps = [produce_y,
             Step(1, "PAD", "pad", (0,), 2, (("pad_width", pad_width),)),
             Step(2, "ADD", "add", (2, 1), 3, add_params),
             Step(3, "RELU", "activation", (3,), 3, (("function", "relu"), ("a", 0.0), ("b", 0.0), ("in_place", True)))]
    views = [View(4, 3, ("alias",))]
    if extra_reader is not None:  # another step reads the PAD's output or y
        steps.append(Step(4, "RELU", "activation", (extra_reader,), 5, (("function", "relu"), ("a", 0.0), ("b", 0.0))))
    return model, steps, views


CASES = {
    "folds": (dict(), True),
    "the PAD's output read twice": (dict(extra_reader=2), False),
    "y read twice": (dict(extra_reader=1), False),
    "y is a graph output": (dict(outputs=(4, 1)), False),
    "the sum is a graph output": (dict(outputs=(3,)), False),
    "y is not a convolution's": (dict(y_kind="pad"), False),
    "the PAD pads the width too": (dict(pad_width=((0, 0), (0, 0), (0, 1), (0, K - 1))), False),
    "the PAD pads before the channels": (dict(pad_width=((0, 0), (0, 0), (0, 0), (1, K - 1))), False),
    "a quantized ADD": (dict(add_params=(("quantization", (("a", (0.1, 0)), ("b", (0.1, 0)), ("dst", (0.1, 0)))),)),
                        False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_fold_applies_only_where_nothing_can_see_it(name):
    kwargs, folds = CASES[name]
    model, steps, views = _graph(**kwargs)  # (the PADs of other widths are refused by their pad_width alone)
    out, folded, new_views, slices = _fold_channel_pads(steps, model, views)
    if not folds:
        assert (out, folded, new_views, slices) == (steps, [], [], [])
        return
    assert [s.kind for s in out] == ["convolution", "add", "activation"] and folded == [(1, 2)]
    (ys,) = slices
    assert ys.shape == SHAPES[0] and ys.index == len(model.tensors)
    assert out[1].inputs == (0, ys.index) and out[1].output == ys.index and out[1].opcode == "PAD+ADD"
    assert new_views == [View(ys.index, 1, ("slice", 3, 0)), View(3, 1, ("alias",))]


def test_the_folded_plan_computes_what_the_unfolded_one_does():
    model, steps, views = _graph()
    plain = Plan(model, tuple(steps), tuple(views), ())
    out, folded, new_views, slices = _fold_channel_pads(steps, model, views)
    folded_model = dataclasses.replace(model, tensors=tuple(model.tensors) + tuple(slices))
    folded_plan = Plan(folded_model, tuple(out), tuple(views) + tuple(new_views), (),
                       tuple(v.tensor for v in new_views if v.how[0] == "slice"), tuple(folded))
    x = np.random.default_rng(1).uniform(-1, 1, SHAPES[0]).astype(np.float32)
    want, got = run_plan_tensors(plain, x), run_plan_tensors(folded_plan, x)
    assert np.array_equal(got[4], want[4])
    assert folded_plan.root(4) == 1 and 2 not in folded_plan.buffers()  # the sum lives in y; no PAD buffer
