// acl_shim_workspace.h -- the workspaces room: one ACL memory manager shared by the functions
// of a model, so that their internal scratch tensors (im2col buffers, GEMM workspaces,
// softmax temporaries...) live in one pool placed by lifetime and cost the largest function's
// need, not the sum. ACL's own parts: MemoryManagerOnDemand over a lifetime manager and a
// PoolManager. NEON: an OffsetLifetimeManager (every function's managed tensors at offsets of
// one blob, so the pool is the largest function's need). CL: a BlobLifetimeManager (a list of
// CL buffers, the i-th as large as the largest i-th tensor of any function; ACL's CL buffers
// cannot be cut at arbitrary offsets, so ACL's own graph and Arm NN use blobs on CL too,
// and the pool lies between the largest need and the sum). ONE pool:
// functions run one after the other, so one pool is enough, and a function that finds the
// pool taken waits for it (ACL's semaphore), it never shares it mid-run.
//
// The states, enforced here (a run before allocate would wait forever for a pool ACL never
// made): OPEN (functions are configured with it) -> ALLOCATED (the pool exists; runs may
// start; no function may join). acl_shim_workspace.cpp holds the ABI entry points.
#ifndef ACL_SHIM_WORKSPACE_H
#define ACL_SHIM_WORKSPACE_H

#include "acl_shim.h"
#include "acl_shim_config.h"
#include "acl_shim_status.h"

#include "arm_compute/runtime/IAllocator.h"
#include "arm_compute/runtime/IMemoryManager.h"
#include "arm_compute/runtime/BlobLifetimeManager.h"
#include "arm_compute/runtime/OffsetLifetimeManager.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace acl_shim_detail {

struct WorkspaceState {
    int32_t backend = ACL_SHIM_BACKEND_NEON;
    std::shared_ptr<acl::OffsetLifetimeManager> offsets;  // NEON (else null)
    std::shared_ptr<acl::BlobLifetimeManager> blobs;      // CL (else null)
    std::shared_ptr<acl::IMemoryManager> manager;
    std::unique_ptr<acl::IAllocator> allocator;  // outlives the pool it filled
    std::mutex mutex;                            // guards the fields below
    std::atomic<bool> allocated{false};
    int32_t functions = 0;        // configured with this workspace

    // The pool's size as the lifetime manager computes it: final once allocated (no
    // function joins after that), what it would be so far before.
    uint64_t size_in_bytes() const;
};

// The manager a function of this workspace is configured with (the workspace must be OPEN
// and on the function's backend); counts the function in.
std::shared_ptr<acl::IMemoryManager> join(WorkspaceState &w, int32_t backend);
// The check before every run of a function configured with w.
inline void require_allocated(const WorkspaceState &w) {
    if (!w.allocated.load(std::memory_order_acquire)) {
        fail(ACL_SHIM_ERR_INVALID_ARGUMENT,
             "the function's workspace is not allocated yet: call acl_shim_workspace_allocate after "
             "the last function of the workspace is created, before the first run");
    }
}

}  // namespace acl_shim_detail

// The opaque ABI handle of a workspace.
struct acl_shim_workspace {
    std::shared_ptr<acl_shim_detail::WorkspaceState> state;
};

#endif  // ACL_SHIM_WORKSPACE_H
