"""XLA shapes and layouts: ``f32[3,5]{1,0:T(2,2)}``, printed exactly as XLA prints them.

The user-facing module; the work is split by job:

* :mod:`ndarray.formats.xla_shape`: :class:`XlaShape` / :class:`XlaTuple`, the values (fields,
  printing, linear index, ShapeDescriptor conversion);
* :mod:`ndarray.formats.xla_text`: :func:`parse`, reading XLA's text;
* :mod:`ndarray.formats.xla_tiled`: tiled layouts as strided views (:class:`TiledView`).
"""

from .xla_shape import ELEMENT_TYPES, PADDING_VALUES, XlaShape, XlaTuple
from .xla_text import parse_shape as parse
from .xla_tiled import COMBINE, TiledView

__all__ = ["COMBINE", "ELEMENT_TYPES", "PADDING_VALUES", "TiledView", "XlaShape", "XlaTuple", "parse"]
