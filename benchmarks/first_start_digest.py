"""A digest per fetched model of what a first start decides: the negotiation (the last of each
load), every function's decision, each buffer's padding, the function plans and the constants'
layouts (``acl_bridge.models.apps.fetch`` models; empty caches per model). Run it with two
checkouts' packages on the same native module and compare the lines: a faster first start
(issue 40) must print the same.

    python3 benchmarks/first_start_digest.py [--backend neon|cl] > digests.txt
    PYTHONPATH=OTHER python3 benchmarks/first_start_digest.py > other.txt; diff digests.txt other.txt

Each line: model, functions, functions made in one native call, renegotiations, digest (or
``error`` and the exception). Not a timing; docs/performance.md (issue 40, part 6n) used it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import warnings
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="neon", choices=("neon", "cl"))
    args = ap.parse_args(argv)
    from acl_bridge import decisions, native
    from acl_bridge.models.apps.fetch import MODEL_FILES, FetchError, model_path
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    native.require_native()
    warnings.simplefilter("ignore")
    made: List[Optional[str]] = []  # per load, the repr of its last negotiation
    negotiate, negotiate_or_recall = TfliteRunner._negotiate, TfliteRunner._negotiate_or_recall

    def last_negotiation(self, *a, **k):  # a first start may negotiate again (configure_cold)
        r = negotiate(self, *a, **k)
        made[-1] = repr(r)
        return r

    def new_load(self, *a, **k):
        made.append(None)
        return negotiate_or_recall(self, *a, **k)

    TfliteRunner._negotiate, TfliteRunner._negotiate_or_recall = last_negotiation, new_load  # type: ignore
    for name in sorted(MODEL_FILES):
        try:
            path = model_path(name)
        except FetchError as e:
            print(name, "absent", e)
            continue
        caches = tempfile.mkdtemp(prefix="first-start-digest-")
        made.clear()
        try:
            m = TfliteRunner(str(path), backend=args.backend, model_cache=caches + "/m", facts_cache=caches + "/f")
        except Exception as e:  # noqa: BLE001 (reported, as the other checkout's must be)
            print(name, "error", type(e).__name__, str(e)[:80])
            continue
        f = m.functions
        ds = tuple(f.decisions) if hasattr(f, "decisions") else tuple(x.decision for x in f)
        text = json.dumps([decisions.encode(ds) if all(x is not None for x in ds) else repr(ds),
                           sorted((str(b), repr(p.padding)) for b, p in m.buffer_plans.items()),
                           repr(m.function_plans()), made, m.renegotiations,
                           [sorted((r, repr(a.descriptor)) for r, a in c.items()) for c in m.constants]],
                          sort_keys=True, default=repr)
        print(name, len(ds), m.functions_batched, m.renegotiations, hashlib.sha256(text.encode()).hexdigest()[:16],
              flush=True)
        m.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
