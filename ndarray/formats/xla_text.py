"""Reading XLA's shape text: ``f32[3,5]{1,0:T(2,2)}``, ``bf16[<=8,128]``, tuples ``(f32[2]{0}, s32[])``.

The grammar, as XLA's ``Shape::Print`` / ``Layout::Print`` write it (printing lives on the
values in :mod:`ndarray.formats.xla_shape`)::

    shape  := tuple | array
    tuple  := '(' [shape (', ' shape)*] ')'
    array  := TYPE '[' [dim (',' dim)*] ']' [layout]
    dim    := ['<='] INT | '?'
    layout := '{' [INT (',' INT)*] [':' attr+] '}'
    attr   := 'T' ('(' tile ')')+ | 'L(' INT ')' | '#(' TYPE ')' | '*(' TYPE ')' | 'E(' INT ')'
            | 'S(' INT ')' | 'M(' INT ')' | 'pad(' INT,... [';' NAME] ')'    (pad: this library's)
            | 'D(' ... ')' | 'SC(' ... ')' | 'P(' ... ')'                     (refused, named)

The element type may be in any case (``F32`` reads as ``f32``). Every error names the field,
the value, the expectation and the whole text.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ..errors import ArgumentTypeError, InvalidLayoutError, NotRepresentableError
from .xla_fields import validate
from .xla_shape import XlaShape, XlaTuple
from .xla_tiled import COMBINE

__all__ = ["parse_shape"]

_TYPE_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_INT_RE = re.compile(r"-?\d+")
_TILE_RE = re.compile(r"\(([^()]*)\)")
_PAD_RE = re.compile(r"pad\(([^();]*)(?:;([A-Za-z_]+))?\)")
_SINGLE_RE = re.compile(r"(L|E|S|M|#|\*)\(([^()]*)\)")
_SINGLE_FIELDS = {"L": "tail_padding_alignment_in_elements", "E": "element_size_in_bits", "S": "memory_space",
                  "M": "dynamic_shape_metadata_prefix_bytes", "#": "index_primitive_type",
                  "*": "pointer_primitive_type"}
_REFUSED = {"D(": "sparse dim level types D(...)", "SC(": "split configs SC(...)", "P(": "a physical shape P(...)"}


def _int_list(text: str, field: str, shown: str, whole: str, allow_star: bool = False) -> Tuple[int, ...]:
    if text == "":
        return ()
    values = []
    for item in text.split(","):
        if allow_star and item == "*":
            values.append(COMBINE)
        elif _INT_RE.fullmatch(item):
            values.append(int(item))
        else:
            expected = "integers or *" if allow_star else "integers"
            raise InvalidLayoutError(f"{field} {shown} has {item!r}, expected comma-separated {expected} in '{whole}'")
    return tuple(values)


def _dimensions(text: str, whole: str) -> Tuple[Tuple[int, ...], Tuple[bool, ...]]:
    dims: List[int] = []
    dynamic: List[bool] = []
    for item in text.split(",") if text else []:
        if item == "?":
            raise NotRepresentableError(
                f"dimensions [{text}] has '?', an unbounded dynamic dimension: its buffer has no size, "
                f"expected sizes or '<=' bounds in '{whole}'"
            )
        bounded = item.startswith("<=")
        dims.extend(_int_list(item[2:] if bounded else item, "dimensions", f"[{text}]", whole))
        dynamic.append(bounded)
    return tuple(dims), tuple(dynamic)


def _attributes(attrs: str, layout_text: str, whole: str) -> Dict[str, Any]:
    fields: Dict[str, Any] = {}
    tiles: List[Tuple[int, ...]] = []
    pos = 0
    while pos < len(attrs):
        rest = attrs[pos:]
        single = _SINGLE_RE.match(attrs, pos)
        refused = next((name for prefix, name in _REFUSED.items() if rest.startswith(prefix)), None)
        if refused:
            raise NotRepresentableError(
                f"layout attribute {rest!r} is {refused}, which this library does not model (no strided "
                f"buffer), expected T, L, #, *, E, S, M or pad attributes in '{whole}'"
            )
        if rest.startswith("T(") and "tiles" not in fields:
            pos += 1
            while attrs.startswith("(", pos):
                tile_match = _TILE_RE.match(attrs, pos)
                if tile_match is None:
                    raise InvalidLayoutError(f"tile {attrs[pos:]!r} is missing its closing ')', expected '(size,...)' in '{whole}'")
                tiles.append(_int_list(tile_match.group(1), "tile", tile_match.group(0), whole, allow_star=True))
                pos = tile_match.end()
            fields["tiles"] = tuple(tiles)
        elif rest.startswith("pad(") and "padded_dimensions" not in fields:
            pad_match = _PAD_RE.match(attrs, pos)
            if pad_match is None:
                raise InvalidLayoutError(
                    f"padded_dimensions {rest!r} is malformed, expected 'pad(size,...)' or 'pad(size,...;ZERO)' in '{whole}'"
                )
            fields["padded_dimensions"] = _int_list(pad_match.group(1), "padded_dimensions", f"({pad_match.group(1)})", whole)
            value = pad_match.group(2).upper() if pad_match.group(2) else None
            fields["padding_value"] = value[: -len("_PAD")] if value and value.endswith("_PAD") else value
            pos = pad_match.end()
        elif single is not None and _SINGLE_FIELDS[single.group(1)] not in fields:
            name, value = _SINGLE_FIELDS[single.group(1)], single.group(2)
            if single.group(1) in "#*":
                fields[name] = value
            elif _INT_RE.fullmatch(value):
                fields[name] = int(value)
            else:
                raise InvalidLayoutError(f"{name} {single.group(0)!r} has {value!r}, expected an integer in '{whole}'")
            pos = single.end()
        else:
            raise InvalidLayoutError(
                f"layout attribute {rest!r} is not supported, expected T(...) tiles, L(n), #(type), *(type), E(n), "
                f"S(n), M(n) or pad(...), once each, in '{whole}'"
            )
    return fields


def _array(text: str, whole: str) -> XlaShape:
    type_match = _TYPE_RE.match(text)
    if type_match is None or not text.startswith("[", type_match.end()):
        raise InvalidLayoutError(
            f"shape {text!r} is not an element type followed by [dimensions], expected e.g. "
            f"'f32[3,5]' or 'f32[3,5]{{1,0:T(2,2)}}' in '{whole}'"
        )
    close = text.find("]", type_match.end())
    if close < 0:
        raise InvalidLayoutError(f"dimensions {text[type_match.end():]!r} are missing their closing ']' in '{whole}'")
    element_type = type_match.group(0).lower()
    dims_text, layout_text = text[type_match.end() + 1 : close], text[close + 1 :]
    dims, dynamic = _dimensions(dims_text, whole)
    m2m: Optional[Tuple[int, ...]] = None
    fields: Dict[str, Any] = {}
    if layout_text:
        if not layout_text.startswith("{"):
            raise InvalidLayoutError(f"layout {layout_text!r} does not start with '{{', expected '{{minor_to_major...}}' in '{whole}'")
        if not layout_text.endswith("}"):
            raise InvalidLayoutError(f"layout {layout_text!r} is missing its closing '}}', expected '{{...}}' in '{whole}'")
        body = layout_text[1:-1]
        m2m_text, colon, attrs = body.partition(":")
        m2m = _int_list(m2m_text, "minor_to_major", "{" + m2m_text + "}", whole)
        if colon and not attrs:
            raise InvalidLayoutError(f"layout {layout_text} has an empty attribute list after ':', expected T(...) or pad(...) in '{whole}'")
        fields = _attributes(attrs, layout_text, whole)
    if m2m is None:
        m2m = tuple(range(len(dims) - 1, -1, -1))
    validate(element_type, dims, m2m, fields.get("tiles", ()), fields.get("padded_dimensions", ()) or (),
              fields.get("padding_value"), whole)
    return XlaShape.create(element_type, dims, m2m, fields.pop("tiles", ()), fields.pop("padded_dimensions", None),
                           fields.pop("padding_value", None), has_layout=bool(layout_text),
                           dynamic_dimensions=dynamic, **fields)


def _split_tuple(body: str, whole: str) -> List[str]:
    """The top-level, comma-separated parts of a tuple's body (brackets nest)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth < 0:
            raise InvalidLayoutError(f"tuple {body!r} closes a bracket it never opened in '{whole}'")
        if ch == "," and depth == 0:
            parts.append(body[start:i].strip())
            start = i + 1
    if body.strip():
        parts.append(body[start:].strip())
    return parts


def _shape(text: str, whole: str) -> Any:
    if text.startswith("("):
        if not text.endswith(")"):
            raise InvalidLayoutError(f"tuple {text!r} is missing its closing ')', expected '(shape, ...)' in '{whole}'")
        return XlaTuple(tuple(_shape(part, whole) for part in _split_tuple(text[1:-1], whole)))
    return _array(text, whole)


def parse_shape(text: Any) -> Any:
    """Parse XLA's shape notation: ``f32[3,5]{1,0:T(2,2)}``, ``F32[3,5]``, ``bf16[<=8,128]``,
    ``s4[16]{0:E(4)}``, tuples ``(f32[2]{0}, s32[])`` (an :class:`XlaTuple`), and this library's
    ``f32[2,3]{0,1:pad(3,5)}``. Raises InvalidLayoutError naming the field, the value, the
    expectation and the whole text; NotRepresentableError for XLA fields refused here."""
    if not isinstance(text, str):
        raise ArgumentTypeError(f"text {text!r} is not a string, expected XLA notation such as 'f32[3,5]{{1,0}}'")
    whole = text.strip()
    return _shape(whole, whole)
