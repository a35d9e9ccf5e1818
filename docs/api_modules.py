"""The module list of the API reference (docs/api.md): every public module of ``ndarray`` and
``acl_bridge``, found on disk, so a new module is documented without editing a list.

    python docs/api_modules.py              # the modules, one per line
    python docs/api_modules.py -o docs/api  # run pdoc on all of them into docs/api/

A module is public when no part of its dotted name starts with ``_`` (``acl_bridge._build``,
``__main__`` are not). Left out on purpose: ``ndarray.picture`` (leaving ndarray/, issue 11).
pdoc is given every module by name because a package with an ``__all__`` (``ndarray``,
``acl_bridge``) would otherwise hide its submodules.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ndarray", "acl_bridge")
EXCLUDED = ("ndarray.picture",)


def public_modules(root: Path = ROOT) -> List[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join(parts)
            if not any(p.startswith("_") for p in parts) and name not in EXCLUDED:
                names.append(name)
    return sorted(names)


def pdoc_arguments(root: Path = ROOT) -> List[str]:
    """The modules pdoc must be named: a submodule of a package without ``__all__`` is found by
    pdoc itself (naming it again makes pdoc warn about a repeated module)."""
    modules = public_modules(root)

    def found_by_pdoc(name: str) -> bool:
        parent = name.rpartition(".")[0]
        return parent in modules and "__all__" not in root.joinpath(*parent.split("."), "__init__.py").read_text(
            encoding="utf-8")

    return [m for m in modules if not found_by_pdoc(m)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("\n".join(public_modules()))
        return 0
    if len(args) != 2 or args[0] != "-o":
        print(f"usage: python {Path(__file__).name} [-o FOLDER]", file=sys.stderr)
        return 2
    return subprocess.run([sys.executable, "-m", "pdoc", "-o", args[1], *pdoc_arguments()], cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
