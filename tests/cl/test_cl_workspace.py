"""Workspaces on ACL's CL backend (acl_bridge.workspace; the checks are
tests/acl/test_workspace.py's): the CL functions of one workspace keep their scratch
tensors in one pool of CL buffers (ACL's BlobLifetimeManager and CLBufferAllocator), between
the largest single need and the sum, with the same bits as alone; no run before the pool exists, no join after; two threads
take turns."""

from __future__ import annotations

import pytest

from acl.test_workspace import (check_no_run_before_allocate_and_no_join_after, check_one_pool_is_the_largest_need,
                                check_two_threads_take_turns_for_the_pool)

pytestmark = pytest.mark.cl


def test_one_pool_is_the_largest_need_and_gives_the_same_bits_on_cl():
    check_one_pool_is_the_largest_need("cl")


def test_no_run_before_allocate_and_no_join_after_on_cl():
    check_no_run_before_allocate_and_no_join_after("cl")


def test_two_threads_take_turns_for_the_pool_on_cl():
    check_two_threads_take_turns_for_the_pool("cl")
