// acl_shim_tensors.h -- the tensors room: one tensor of either backend (TensorState), its
// lifetime (shared by its ABI handle and every function configured on it), and how host
// memory reaches it. acl_shim_tensors.cpp holds the tensor entry points of the ABI
// (create, import, describe, destroy); acl_shim_cl.cpp the memory side (make_tensor,
// import_host, the CL routes around runs) and OpenCL devices. Not part of the ABI:
// acl_shim.h is.
#ifndef ACL_SHIM_TENSORS_H
#define ACL_SHIM_TENSORS_H

#include "acl_shim.h"
#include "acl_shim_config.h"
#include "acl_shim_status.h"

#include "arm_compute/core/TensorInfo.h"
#include "arm_compute/runtime/Tensor.h"

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/CLTensor.h"
#endif

#include <memory>
#include <vector>

namespace acl_shim_detail {

// One tensor of either backend and how its memory reached the device.
struct TensorState {
    int32_t backend = ACL_SHIM_BACKEND_NEON;
    std::unique_ptr<acl::Tensor> ne;
#if ACL_SHIM_WITH_CL
    std::unique_ptr<acl::CLTensor> cl;
    cl::Buffer buffer;  // the cl_mem over (or, staged, beside) the host allocation
#endif
    bool imported = false;
    int32_t route = ACL_SHIM_MEMORY_NONE;
    void *host_base = nullptr;
    uint64_t size_in_bytes = 0;

    acl::ITensor *get() const;
};

using Tensors = std::vector<std::shared_ptr<TensorState>>;

// A tensor of the backend with this info (memory comes later, with import_host).
std::shared_ptr<TensorState> make_tensor(int32_t backend, const acl::TensorInfo &info);
// Hand size bytes of host memory at base to the tensor (NEON: the pointer; CL: a cl_mem).
void import_host(TensorState &t, void *base, uint64_t size);
// Around every run of a CL function: host bytes to the device before, results back after
// (CLScheduler::sync, then map/unmap or the staging copies). No-ops for NEON tensors.
void before_run(const Tensors &tensors);
void after_run(const Tensors &tensors);
// The tensor_memory report (acl_shim_tensor_memory_get).
void report_memory(const TensorState &t, acl_shim_tensor_memory &out);
// ACL's CLScheduler on the default device unless acl_shim_cl_init chose one; fails with
// ACL_SHIM_ERR_NO_DEVICE (message: what is missing and how to enable the layer).
void cl_ready();

}  // namespace acl_shim_detail

// The opaque ABI handle of a tensor.
struct acl_shim_tensor {
    std::shared_ptr<acl_shim_detail::TensorState> state;
};

#endif  // ACL_SHIM_TENSORS_H
