"""The option names a function kind takes by keyword (acl_bridge.functions._keyword_options),
read off a plain classmethod's code object on a first start, are those inspect.signature
gives: for every registered kind's ``_params`` and for the forms a signature can take."""

from __future__ import annotations

import functools

import pytest

from acl_bridge import functions
from acl_bridge.families import CLASSES
from acl_bridge.functions import _NOT_PLAIN, _keyword_options_inspected, _keyword_options_of_code


def test_every_kinds_options_read_off_its_code_are_its_signatures():
    plain = 0
    for kind, cls in sorted(CLASSES.items()):
        fast = _keyword_options_of_code(cls._params)
        if fast is not _NOT_PLAIN:
            plain += 1
            assert fast == _keyword_options_inspected(cls._params), kind
        assert functions._keyword_options(cls._params) == _keyword_options_inspected(cls._params), kind
    assert plain == len(CLASSES)  # every kind's _params is a plain classmethod: none asks inspect


def _decorated(f):
    @functools.wraps(f)
    def wrapper(*a, **k):
        return f(*a, **k)
    return wrapper


class _Forms:
    @classmethod
    def plain(cls, a, b=1, *, c, d=2):
        pass

    @classmethod
    def no_options(cls):
        pass

    @classmethod
    def positional_only(cls, a, /, b=1):
        pass

    @classmethod
    def class_positional_only(cls, /, a, b=1):
        pass

    @classmethod
    def var_positional(cls, a, *rest):
        pass

    @classmethod
    def var_keyword(cls, a=1, **rest):
        pass

    @classmethod
    @_decorated
    def wrapped(cls, a, b=1):
        pass

    @staticmethod
    def static(a, b=1):
        pass

    @classmethod
    def defaults_all(cls, a=0, b=1, *, c=3):
        pass


@pytest.mark.parametrize("name", ["plain", "no_options", "positional_only", "class_positional_only",
                                  "var_positional", "var_keyword", "wrapped", "static", "defaults_all"])
def test_each_form_of_signature_gives_what_inspect_gives(name):
    method = getattr(_Forms, name)
    assert functions._keyword_options(method) == _keyword_options_inspected(method)
    fast = _keyword_options_of_code(method)
    assert fast is _NOT_PLAIN or fast == _keyword_options_inspected(method)
    if name in ("wrapped", "static"):
        assert fast is _NOT_PLAIN  # inspect follows __wrapped__; a static method has no class to drop
