"""The README's code runs as written: the quick start everywhere, the ACL example on arm64."""

import re
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_quick_start_runs_as_written():
    block = re.search(r"python - <<'EOF'\n(.*?)\nEOF\n", README, re.S)
    assert block, "README lost its quick-start heredoc"
    exec(compile(block.group(1), "README quick start", "exec"), {})


@pytest.mark.acl
def test_acl_example_runs_as_written():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    acl = [b for b in blocks if "required_padding" in b]
    assert acl, "README lost its ACL example"
    exec(compile(acl[0], "README ACL example", "exec"), {})
