"""What a lowering rule hands back: bridge function calls (:class:`Step`), and for the
operators that only move memory (RESHAPE, CONCATENATION) a description of the placement
(:class:`Reshape`, :class:`Concatenate`) that the plan's view pass turns into views or
counted copies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple, Union

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

    def param(self, name: str, default: object = None) -> object:
        return dict(self.params).get(name, default)

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


Lowered = Union[Step, Reshape, Concatenate]

__all__ = ["Step", "Reshape", "Concatenate", "Lowered", "Params"]
