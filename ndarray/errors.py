"""The one small error hierarchy of the project.

Two different situations get two different exceptions (design guide, habit 7):

* :class:`InvalidLayoutError`: the input itself is wrong (a stride list of the wrong
  length, a negative dimension, strides that reach outside the allocation...).
* :class:`NotRepresentableError`: the layout is valid, but a *target* cannot express it
  (a negative stride is fine for numpy and unrepresentable for ACL; a padded buffer has
  no DLPack equivalent for its padding...).

Both derive from :class:`LayoutError`, itself a :class:`ValueError`, so callers who do not
care about the difference can catch one type. Messages name the field, the value, what was
expected and the whole object, e.g.::

    strides has 3 entries but shape has rank 4: shape=(2, 3, 4, 5), strides=(60, 20, 5)
"""


class LayoutError(ValueError):
    """Base class of every layout error raised by this project."""


class InvalidLayoutError(LayoutError):
    """The description is wrong in itself: no target could accept it."""


class NotRepresentableError(LayoutError):
    """The description is valid, but the named target cannot express it."""
