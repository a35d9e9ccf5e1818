"""The counts docs/robustness.md and the README state, derived from the test code (any
machine; nothing native runs):

    python docs/robustness_counts.py

tests/test_readme.py checks that docs/robustness.md states these numbers.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path
from typing import Dict

ROOT = Path(__file__).resolve().parent.parent


def counts() -> Dict[str, int]:
    """Run in a process of its own: the fuzzing module reads its bounds from the environment at import."""
    os.environ["HYPOTHESIS_PROFILE"] = "emulated"  # the bounds of the emulated runs docs/robustness.md reports
    for name in ("ACL_NDARRAY_FUZZ_CASES", "ACL_NDARRAY_MEMORY_CYCLES"):
        os.environ.pop(name, None)
    sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "acl"), str(ROOT / "tests" / "models")]
    import test_catalogue
    import test_cli_catalogue
    import test_catalogue_ndarray
    import test_concurrency
    import test_fuzz_guard_bytes
    import test_memory

    lifetime = ast.parse((ROOT / "tests" / "acl" / "test_lifetime.py").read_text(encoding="utf-8"))
    cases = test_catalogue.CASES
    return {
        "catalogue rows (bridge)": len(cases),
        "catalogue rows, pure Python": sum(not c.native for c in cases),
        "catalogue rows, native": sum(c.native for c in cases),
        "catalogue rows, strict xfail (fix=)": sum(c.fix is not None for c in cases),
        "catalogue rows (ndarray)": len(test_catalogue_ndarray.ROWS),
        "lifetime tests": sum(isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
                              for n in ast.walk(lifetime)),
        "fuzzed function kinds": len(test_fuzz_guard_bytes.BUILDERS),
        "fuzz cases, emulated default": test_fuzz_guard_bytes.FUZZ_CASES,
        "concurrency scenarios": len(test_concurrency.SCENARIOS),
        "memory cycles (target)": test_memory.CYCLES,
        "memory cycles (minimum)": test_memory.MIN_CYCLES,
        "memory warm-up cycles": test_memory.WARMUP,
        "model command rows": len(test_cli_catalogue.ROWS),
        "model command rows, API": sum(r.code is None for r in test_cli_catalogue.ROWS),
        "model command rows, accepted with an oracle": sum(r.code == 0 and r.check is not None
                                                           for r in test_cli_catalogue.ROWS),
        "model command themes": len({r.theme for r in test_cli_catalogue.ROWS}),
    }


if __name__ == "__main__":
    for key, value in counts().items():
        print(f"{key}: {value}")
