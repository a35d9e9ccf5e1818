"""Where the library keeps what it saves between processes (one rule for every cache).

A cache of kind ``name`` lives in ``$ENV`` when the caller's environment variable is set,
else in the per-user cache directory: ``$XDG_CACHE_HOME/acl-ndarray/NAME`` (an absolute
``XDG_CACHE_HOME`` only, as the XDG spec says), else ``~/.cache/acl-ndarray/NAME``.
Users: the OpenCL program cache (:mod:`acl_bridge.cl_program_cache`) and the parsed-model
cache (:mod:`acl_bridge.models.model_cache`).
"""

from __future__ import annotations

import os
from pathlib import Path


def user_cache_dir(name: str, env: str) -> Path:
    """``$env`` if set, else the per-user cache directory's ``acl-ndarray/name``."""
    explicit = os.environ.get(env)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path(os.path.expanduser("~")) / ".cache"
    return base / "acl-ndarray" / name


__all__ = ["user_cache_dir"]
