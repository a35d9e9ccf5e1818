"""ACL test helpers: the int8 rows' exact / one-step counts (tests/acl/test_int8_functions.py)
when any ran; with ACL_PADDING_REPORT=1 the session ends with what each function
asked for (padding per tensor, whether ACL wrote outside the elements, whether the probe's
layout run matched the dense run), as measured by tests/acl/test_functions.py."""

import os


def pytest_terminal_summary(terminalreporter):
    try:
        from .test_int8_functions import pytest_terminal_summary_lines
    except Exception:  # pragma: no cover
        pytest_terminal_summary_lines = None
    lines = pytest_terminal_summary_lines() if pytest_terminal_summary_lines else []
    if lines:
        terminalreporter.section("int8 functions vs numpy: exact and one-step elements")
        for line in lines:
            terminalreporter.write_line(line)
    if os.environ.get("ACL_PADDING_REPORT") != "1":
        return
    try:
        from .test_functions import PADDING_LOG
    except Exception:  # pragma: no cover
        return
    if not PADDING_LOG:
        return
    from acl_bridge import native

    tr = terminalreporter
    tr.section(f"ACL {native.acl_version()}: padding asked for (top, right, bottom, left), writes outside elements, layout ok")
    for (fn, params), roles in sorted(PADDING_LOG.items()):
        asked = {r: v for r, v in roles.items() if any(v[0]) or v[1] or v[2] is False}
        if asked:
            tr.write_line(f"{fn} {params}: {asked}")
