"""What a lowering rule hands back: bridge function calls (:class:`Step`), and for the
operators that only move memory (RESHAPE, CONCATENATION, SPLIT, unit-step slices) a
description of the placement (:class:`Reshape`, :class:`Concatenate`, :class:`Slice`) that
the plan's view pass turns into views, counted copies or (a slice) its strided-slice step; :class:`Intermediate`, a tensor the rule needs that the model has not
(MEAN without keep_dims: the pooling's (N, 1, 1, C) result, of which the output is a view)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, Tuple, Union

import numpy as np

Params = Tuple[Tuple[str, object], ...]


@dataclass(frozen=True)
class Step:
    """One bridge function call. Tensor ids refer to the model's tensors; ``constants`` are
    (role, value) arrays prepared at load time (weights in the bridge's layout, bias)."""

    op_index: int
    opcode: str
    kind: str
    inputs: Tuple[int, ...]
    output: int
    params: Params = ()
    constants: Tuple[Tuple[str, np.ndarray], ...] = ()

    @functools.cached_property
    def params_by_name(self) -> Dict[str, object]:
        """:attr:`params` as a dict (a later duplicate name wins), made once per step (not a
        field: equality, hashing and ``dataclasses.replace`` see :attr:`params` only): the
        negotiation, the configure pass and the arena ask each step's parameters several times.
        Not to be changed by callers."""
        return dict(self.params)

    def param(self, name: str, default: object = None) -> object:
        return self.params_by_name.get(name, default)

    @property
    def written(self) -> Tuple[int, ...]:
        """The model tensors the step's function writes, in its output roles' order: ``output``,
        or for a function of several outputs (the detection post-process) its ``outputs``
        parameter, whose first is ``output``."""
        more = self.param("outputs")
        return tuple(more) if more else (self.output,) if self.output >= 0 else ()  # type: ignore[arg-type]

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params)
        return f"Step(op #{self.op_index} {self.opcode} -> {self.kind}({list(self.inputs)} -> {self.output}) {params})"


@dataclass(frozen=True)
class Reshape:
    """``output`` holds ``source``'s elements in a new shape (element counts checked)."""

    op_index: int
    opcode: str
    source: int
    output: int


@dataclass(frozen=True)
class Concatenate:
    """``output`` is its ``parts`` side by side along ``axis``: (input tensor, its first index
    along ``axis`` in the output), shapes checked."""

    op_index: int
    opcode: str
    output: int
    axis: int
    parts: Tuple[Tuple[int, int], ...]


@dataclass(frozen=True)
class Slice:
    """``output`` is the part of ``source`` from ``start`` along ``axis`` (as long as the
    output is there): a view of ``source``'s buffer where the plan can make one, else ``step``
    (the same slice as a bridge call)."""

    op_index: int
    opcode: str
    source: int
    output: int
    axis: int
    start: int
    step: Step


@dataclass(frozen=True)
class Intermediate:
    """A tensor of ``shape`` that the plan adds to the model for one operator's rule, with the
    dtype and quantization of tensor ``like``. The rule's steps and placements name it by
    ``key`` (a placeholder id, -2 or lower, local to the rule's result) until
    :func:`~..tflite_plan.plan_model` appends it to the model's tensors and renumbers them."""

    op_index: int
    opcode: str
    key: int
    shape: Tuple[int, ...]
    like: int

    def __post_init__(self) -> None:
        if self.key > -2:
            raise ValueError(f"Intermediate key is {self.key}, expected -2 or lower (-1 means 'no tensor')")


Lowered = Union[Step, Reshape, Concatenate, Slice, Intermediate]


def slice_index(rank: int, axis: int, start: int, length: int) -> Tuple[slice, ...]:
    """The index of the part of a rank-``rank`` array from ``start`` along ``axis``, ``length``
    long (a :class:`Concatenate` part's place in its output)."""
    idx = [slice(None)] * rank
    idx[axis] = slice(start, start + length)
    return tuple(idx)

__all__ = ["Step", "Reshape", "Concatenate", "Slice", "Intermediate", "Lowered", "Params", "slice_index"]
