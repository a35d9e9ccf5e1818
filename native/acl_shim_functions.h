// acl_shim_functions.h -- the functions room: a function kind built by the family room that
// registered it (acl_shim_families.h), for NEON and CL alike, and the choice of backend from
// the tensors.
#ifndef ACL_SHIM_FUNCTIONS_H
#define ACL_SHIM_FUNCTIONS_H

#include "acl_shim.h"
#include "acl_shim_config.h"
#include "acl_shim_tensors.h"

#include "arm_compute/runtime/IFunction.h"
#include "arm_compute/runtime/IMemoryManager.h"

#include <memory>
#include <vector>

namespace acl_shim_detail {

// The one backend of a function's tensors (absent entries skipped; none present: NEON);
// tensors on different backends are an ACL_SHIM_ERR_INVALID_ARGUMENT.
int32_t common_backend(const std::vector<int32_t> &backends, const std::vector<bool> &present);
// The same for descs[0..n) (NULL entries are absent tensors).
int32_t common_backend(const acl_shim_tensor_desc *const *descs, int32_t n);

// validate() then configure() function kind on tensors of backend (which must be in this
// build); a NULL entry is an absent optional tensor. Unknown kinds and missing required
// tensors fail with ACL_SHIM_ERR_INVALID_ARGUMENT, ACL's refusals with ACL_SHIM_ERR_ACL_STATUS.
// manager (may be null): the memory manager of the function's scratch tensors, given to every
// ACL function whose constructor takes one (acl_shim_workspace.h); null: its own memory.
std::unique_ptr<acl::IFunction> build_on(int32_t backend, int32_t kind, const acl_shim_params &p,
                                         const std::vector<TensorState *> &tensors,
                                         const std::shared_ptr<acl::IMemoryManager> &manager = nullptr);

// Runs a configured function; CL: host bytes to the device before, results back after.
inline void run_on(acl::IFunction &f, const Tensors &tensors) {
    before_run(tensors);
    f.run();
    after_run(tensors);
}

}  // namespace acl_shim_detail

#endif  // ACL_SHIM_FUNCTIONS_H
