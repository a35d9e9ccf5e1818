// acl_shim_workspace.cpp -- the workspaces room's entry points (acl_shim.h, "workspaces"):
// create a workspace (ACL's MemoryManagerOnDemand, the backend's lifetime manager and
// allocator, a PoolManager), allocate its one pool, report its size, destroy the handle.
// Functions join a workspace in acl_shim_function_create_in (acl_shim_abi.cpp), and every
// run of such a function checks require_allocated() first (acl_shim_workspace.h).
#include "acl_shim_workspace.h"

#include "acl_shim_tensors.h"

#include "arm_compute/runtime/Allocator.h"
#include "arm_compute/runtime/MemoryManagerOnDemand.h"
#include "arm_compute/runtime/PoolManager.h"

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/CLBufferAllocator.h"
#endif

#include <string>

using namespace acl_shim_detail;

namespace acl_shim_detail {

uint64_t WorkspaceState::size_in_bytes() const {
    if (offsets) return offsets->info().size;
    uint64_t total = 0;
    for (const auto &b : blobs->info()) total += b.size;
    return total;
}

std::shared_ptr<acl::IMemoryManager> join(WorkspaceState &w, int32_t backend) {
    const std::lock_guard<std::mutex> lock(w.mutex);
    require(!w.allocated.load(), "the workspace is already allocated: a function can join a workspace only "
                                 "before acl_shim_workspace_allocate");
    require(backend == w.backend, "the function's tensors are on backend " + std::to_string(backend) +
                                      ", its workspace on " + std::to_string(w.backend) + " (0 NEON, 1 CL)");
    ++w.functions;
    return w.manager;
}

}  // namespace acl_shim_detail

extern "C" {

int32_t acl_shim_workspace_create(int32_t backend, acl_shim_workspace **out) {
    return guarded([&] {
        require(out != nullptr, "out is NULL");
        *out = nullptr;
        auto w = std::make_shared<WorkspaceState>();
        w->backend = backend;
        std::shared_ptr<acl::ILifetimeManager> lifetime;
        if (backend == ACL_SHIM_BACKEND_NEON) {
#if ACL_SHIM_WITH_NEON
            w->allocator = std::make_unique<acl::Allocator>();
#else
            fail(ACL_SHIM_ERR_UNSUPPORTED, "this acl_bridge was built against an ACL without NE (NEON) functions: "
                                           "a NEON workspace has no functions to serve");
#endif
            lifetime = w->offsets = std::make_shared<acl::OffsetLifetimeManager>();
        } else {
            require(backend == ACL_SHIM_BACKEND_CL, "unknown backend " + std::to_string(backend) + " (0 NEON, 1 CL)");
            cl_ready();  // fails without a CL backend or device
#if ACL_SHIM_WITH_CL
            w->allocator = std::make_unique<acl::CLBufferAllocator>();
#endif
            lifetime = w->blobs = std::make_shared<acl::BlobLifetimeManager>();
        }
        w->manager = std::make_shared<acl::MemoryManagerOnDemand>(lifetime, std::make_shared<acl::PoolManager>());
        auto h = std::make_unique<acl_shim_workspace>();
        h->state = std::move(w);
        *out = h.release();
    });
}

int32_t acl_shim_workspace_allocate(acl_shim_workspace *workspace, uint64_t *size_in_bytes) {
    return guarded([&] {
        require(workspace != nullptr, "workspace is NULL");
        WorkspaceState &w = *workspace->state;
        const std::lock_guard<std::mutex> lock(w.mutex);
        require(!w.allocated.load(), "the workspace is already allocated");
        // one pool: the functions of a workspace run one after the other (a schedule)
        w.manager->populate(*w.allocator, 1);
        w.allocated.store(true, std::memory_order_release);
        if (size_in_bytes != nullptr) *size_in_bytes = w.size_in_bytes();
    });
}

int32_t acl_shim_workspace_report_get(const acl_shim_workspace *workspace, acl_shim_workspace_report *out) {
    return guarded([&] {
        require(workspace != nullptr && out != nullptr, "workspace and out must not be NULL");
        WorkspaceState &w = *workspace->state;
        const std::lock_guard<std::mutex> lock(w.mutex);
        out->backend = w.backend;
        out->allocated = w.allocated.load() ? 1 : 0;
        out->functions = w.functions;
        out->size_in_bytes = w.size_in_bytes();
    });
}

void acl_shim_workspace_destroy(acl_shim_workspace *workspace) {
    try {
        delete workspace;  // the functions configured with it keep the manager (and its pool) alive
    } catch (...) {
    }
}

}  // extern "C"
