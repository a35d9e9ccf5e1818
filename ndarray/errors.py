"""The one error hierarchy of the project (ndarray and acl_bridge alike).

Everything this library raises on purpose derives from :class:`AclNdarrayError`, so
``except AclNdarrayError`` catches "anything from this library". Subclasses say what went
wrong, and also derive from the builtin a numpy user already catches for that meaning
(numpy's own habit: ``AxisError(ValueError, IndexError)``)::

    AclNdarrayError
    +-- LayoutError (ValueError)
    |   +-- InvalidLayoutError          the description is wrong in itself
    |   +-- NotRepresentableError       valid, but the named target cannot express it
    +-- ArgumentTypeError (TypeError)   an argument of the wrong type (bool for an int...)
    +-- UnsupportedOptionError (ValueError)  an option name or value this call does not know
    +-- ReadOnlyError (ValueError)      a read-only buffer given where one is written
    |   +-- PaddingNotFreeError         cells outside the elements that may be someone's data
    +-- IndexOutOfRangeError (IndexError)  an element index outside the shape
    +-- ExportRefusedError (BufferError)   a buffer protocol export (DLPack) refused, numpy's way
    +-- MissingPackageError (ImportError)  an optional package a call needs is not installed
    +-- (acl_bridge) AclError (RuntimeError) and its native-status subclasses,
        ArmnnError / ArmnnUnavailableError (RuntimeError),
        KeptValueError (ValueError, acl_bridge.decisions): a kept answer or decision that does not decode

Invalid input and "valid, but this target cannot express it" are different errors (design
guide, habit 7): a negative stride is fine for numpy and unrepresentable for ACL. Messages
name the field, the value, what was expected and the whole object, e.g.::

    strides has 3 entries but shape has rank 4: shape=(2, 3, 4, 5), strides=(60, 20, 5)
"""


class AclNdarrayError(Exception):
    """Base class of every exception this library raises on purpose."""


class LayoutError(AclNdarrayError, ValueError):
    """Base class of every layout error raised by this project."""


class InvalidLayoutError(LayoutError):
    """The description is wrong in itself: no target could accept it."""


class NotRepresentableError(LayoutError):
    """The description is valid, but the named target cannot express it."""


class ArgumentTypeError(AclNdarrayError, TypeError):
    """An argument has the wrong type (e.g. a bool or a float where an int is expected)."""


class UnsupportedOptionError(AclNdarrayError, ValueError):
    """An option name or value that this function does not know (the message lists the known ones)."""


class ReadOnlyError(AclNdarrayError, ValueError):
    """A read-only buffer was given where the library must write (numpy raises ValueError too)."""


class PaddingNotFreeError(ReadOnlyError):
    """A write to cells outside an array's elements that this library did not allocate as
    padding: they may hold other elements of the memory the array views (``from_numpy`` of a
    slice, a slice of a padded buffer), so they are read-only to the library."""


class IndexOutOfRangeError(AclNdarrayError, IndexError):
    """An element index outside the shape, or with the wrong number of entries (numpy: IndexError)."""


class ExportRefusedError(AclNdarrayError, BufferError):
    """A buffer export (``__dlpack__``) refused because a known consumer cannot take the layout;
    BufferError is what numpy raises for an export it will not make."""


class MissingPackageError(AclNdarrayError, ImportError):
    """An optional package the call needs (Pillow, tflite, ...) is not installed; the message
    names it and how to install it (the command line: exit 1, like any missing piece of the
    machine)."""
