"""Workspaces: ACL's internal scratch memory, shared by the functions of a model.

Many ACL functions keep tensors of their own between configure and run: the im2col and
GEMM buffers of a convolution, a softmax's temporaries, the reshaped input of a fully
connected layer. Alone, each function allocates them for its whole life. Configured with one
:class:`Workspace` (ACL's ``MemoryManagerOnDemand`` with one pool,
native/acl_shim_workspace.cpp), the functions of a model place them in one pool: since a
schedule runs its functions one after the other, on NEON (an ``OffsetLifetimeManager``: one
blob, tensors at offsets) the pool is as large as the largest single need, not the sum; on CL
(a ``BlobLifetimeManager``: CL buffers cannot be cut at any offset, so the i-th buffer is as
large as the largest i-th tensor of any function) it lies between the two. ACL decides which
of its functions take a memory manager (their constructors say so; 24.11's pooling does,
20.08's does not); the others keep their own.

Life: create a workspace, configure functions with ``workspace=`` (the runner does this for a
model), then :meth:`Workspace.allocate` once, before the first run; a function of a workspace
that is not allocated refuses to run (:class:`~acl_bridge.errors.AclError`), and no function
joins an allocated one. Two functions of one workspace run from two threads take turns for
the pool. The functions keep the pool alive after the workspace object is gone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ndarray.errors import ArgumentTypeError

from .backend import NEON, Backend, backend_named
from .native import check, require_native


@dataclass(frozen=True)
class WorkspaceReport:
    backend: str
    allocated: bool
    functions: int  # configured with this workspace
    size_in_bytes: int  # of the pool (before allocate: what it would be now)


class Workspace:
    """One ACL memory manager for the scratch tensors of the functions configured with it."""

    def __init__(self, backend=NEON):
        self.backend: Backend = backend_named(backend)
        ffi, lib = require_native()
        out = ffi.new("acl_shim_workspace **")
        check(lib.acl_shim_workspace_create(self.backend.code, out), "workspace")
        self.handle = ffi.gc(out[0], lib.acl_shim_workspace_destroy)

    def allocate(self) -> int:
        """Make the pool (after the last function joined, before the first run); its size in
        bytes. A second call is refused (the shim holds the state, under its own lock)."""
        ffi, lib = require_native()
        size = ffi.new("uint64_t *")
        check(lib.acl_shim_workspace_allocate(self.handle, size), "workspace allocate")
        return int(size[0])

    def report(self) -> WorkspaceReport:
        ffi, lib = require_native()
        out = ffi.new("acl_shim_workspace_report *")
        check(lib.acl_shim_workspace_report_get(self.handle, out), "workspace report")
        return WorkspaceReport(self.backend.name, bool(out.allocated), int(out.functions), int(out.size_in_bytes))

    @property
    def size_in_bytes(self) -> int:
        return self.report().size_in_bytes

    def __repr__(self) -> str:
        r = self.report()
        state = "allocated" if r.allocated else "open"
        return f"Workspace({r.backend}, {state}, {r.functions} functions, {r.size_in_bytes} bytes)"


def check_workspace(workspace: object) -> Optional[Workspace]:
    """``workspace=`` of a function: None or a :class:`Workspace`."""
    if workspace is not None and not isinstance(workspace, Workspace):
        raise ArgumentTypeError(f"workspace is {workspace!r}, expected an acl_bridge.Workspace or None")
    return workspace


__all__ = ["Workspace", "WorkspaceReport", "check_workspace"]
