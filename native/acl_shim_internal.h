// acl_shim_internal.h -- what acl_shim.cpp (functions, both backends) and acl_shim_cl.cpp
// (OpenCL devices and memory) share. Not part of the ABI: acl_shim.h is.
//
// Backends present in a build are chosen by acl_bridge/_build.py with two macros:
//   ACL_SHIM_WITH_NEON  ACL's NE functions (arm64 ACL builds)
//   ACL_SHIM_WITH_CL    ACL's CL functions (ACL >= 24.x with the CL runtime; Debian's amd64
//                       ACL 24.11 is the CL backend alone)
#ifndef ACL_SHIM_INTERNAL_H
#define ACL_SHIM_INTERNAL_H

#include "acl_shim.h"

#include "arm_compute/core/Error.h"
#include "arm_compute/core/TensorInfo.h"
#include "arm_compute/runtime/IFunction.h"
#include "arm_compute/runtime/Tensor.h"

#ifndef ACL_SHIM_WITH_NEON
#define ACL_SHIM_WITH_NEON 1
#endif
#ifndef ACL_SHIM_WITH_CL
#define ACL_SHIM_WITH_CL 0
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/CLTensor.h"
#endif

#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace acl_shim_detail {

namespace acl = arm_compute;

// An error that carries a shim status code out of the C++ body to guarded().
struct ShimError : std::runtime_error {
    int32_t code;
    ShimError(int32_t c, const std::string &m) : std::runtime_error(m), code(c) {}
};

[[noreturn]] inline void fail(int32_t code, const std::string &message) { throw ShimError(code, message); }

inline void require(bool condition, const std::string &message) {
    if (!condition) fail(ACL_SHIM_ERR_INVALID_ARGUMENT, message);
}
// For a fixed message: no std::string is built unless the condition fails (the run path
// calls this every time; a 16-character literal would otherwise cost a heap allocation).
inline void require(bool condition, const char *message) {
    if (!condition) fail(ACL_SHIM_ERR_INVALID_ARGUMENT, message);
}

inline void check_status(const acl::Status &status, const char *what) {
    if (status.error_code() != acl::ErrorCode::OK) {
        fail(ACL_SHIM_ERR_ACL_STATUS, std::string(what) + ": " + status.error_description());
    }
}

// The message of the last failure on this thread (acl_shim_last_error).
std::string &last_error();

// Runs body, turning every C++ exception into a status code + last_error() (the ABI rule).
// A success leaves last_error() alone: the message is read only after a failure, and not
// touching the thread-local string keeps a successful run free of TLS lookups.
template <typename F>
int32_t guarded(F &&body) {
    try {
        body();
        return ACL_SHIM_OK;
    } catch (const ShimError &e) {
        last_error() = e.what();
        return e.code;
    } catch (const std::bad_alloc &e) {
        last_error() = std::string("out of memory: ") + e.what();
        return ACL_SHIM_ERR_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        last_error() = std::string("C++ exception: ") + e.what();
        return ACL_SHIM_ERR_EXCEPTION;
    } catch (...) {
        last_error() = "unknown C++ exception";
        return ACL_SHIM_ERR_EXCEPTION;
    }
}

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

// The opaque ABI handles.
struct acl_shim_tensor {
    std::shared_ptr<acl_shim_detail::TensorState> state;
};

struct acl_shim_function {
    int32_t backend = ACL_SHIM_BACKEND_NEON;
    std::unique_ptr<arm_compute::IFunction> function;
    acl_shim_detail::Tensors tensors;  // shared ownership of the non-NULL tensors
    // Serialises the runs of this function (acl_shim_function_run and acl_shim_schedule_run):
    // an ACL function keeps per-run state (workspace, CL map state), so two threads may run
    // different functions at once but never the same one.
    std::mutex run_mutex;
};

#endif  // ACL_SHIM_INTERNAL_H
