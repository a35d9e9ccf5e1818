"""``python -m acl_bridge`` and the ``acl-ndarray`` console script; see acl_bridge.cli."""

import sys

from acl_bridge.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
