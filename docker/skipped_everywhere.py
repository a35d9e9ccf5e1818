"""Tests that skip in every stage of `docker/emulate.sh test`.

    python3 docker/skipped_everywhere.py [--warn-only] OUTCOMES_FILE...

Each file is one pytest run's outcomes (tests/conftest.py writes it with ACL_NDARRAY_OUTCOMES):
"ran|skipped <TAB> node id <TAB> reason [<TAB> seconds]" per line. A test skips everywhere when some run
skipped it and no run ran it; a module skipped at import (its node id is the file) counts as
run where any test of that file ran. Prints the count and each test with the reason of each run
that skipped it; exit 1 when the count is above 0, unless the test is in
docker/skip-allowlist.txt (one node id per line, then " # " and why it cannot run anywhere)."""

import os
import sys


def read(paths):
    ran, skipped = set(), {}
    for path in paths:
        stage = os.path.basename(path).rsplit(".", 1)[0]
        with open(path, encoding="utf-8") as f:
            for line in f:
                outcome, nodeid, reason = (line.rstrip("\n").split("\t") + ["", ""])[:3]
                if outcome == "ran":
                    ran.add(nodeid)
                elif outcome == "skipped":
                    skipped.setdefault(nodeid, []).append(f"{stage}: {reason}")
    return ran, skipped


def everywhere(ran, skipped):
    files = {n.split("::", 1)[0] for n in ran}
    return {n: why for n, why in skipped.items()
            if n not in ran and not ("::" not in n and n in files)}


def allowlist(path):
    allowed = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    nodeid, _, why = line.partition(" # ")
                    if not why.strip():
                        sys.exit(f"{path}: '{line.strip()}' gives no reason (node id, then ' # ' and why)")
                    allowed[nodeid.strip()] = why.strip()
    return allowed


def main(argv):
    warn_only = "--warn-only" in argv
    paths = [a for a in argv if a != "--warn-only"]
    if not paths:
        print("skipped everywhere: no outcome files (no stage ran pytest)")
        return 1
    ran, skipped = read(paths)
    found = everywhere(ran, skipped)
    allowed = allowlist(os.path.join(os.path.dirname(os.path.abspath(__file__)), "skip-allowlist.txt"))
    failing = {n: why for n, why in found.items() if n not in allowed}
    print(f"skipped everywhere: {len(failing)} test(s) skip in every stage that collected them "
          f"({len(paths)} runs, {len(ran)} tests ran, {len(found) - len(failing)} allowed by docker/skip-allowlist.txt)")
    for nodeid in sorted(failing):
        print(f"  {nodeid}")
        for why in sorted(set(failing[nodeid])):
            print(f"      {why}")
    return 0 if warn_only or not failing else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
