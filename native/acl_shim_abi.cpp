// acl_shim_abi.cpp -- the ABI layer: the library's extern "C" entry points (versions, last
// error, build information, threads, CPU report) and those of functions (create, run,
// schedule run, destroy). The rule every entry point of every room follows is in
// acl_shim_status.h: the body runs inside guarded(), so nothing throws across the ABI and
// each failure is one ACL_SHIM_* status plus this thread's last_error().
#include "acl_shim.h"
#include "acl_shim_functions.h"
#include "acl_shim_status.h"
#include "acl_shim_tensors.h"
#include "acl_shim_workspace.h"

#include "arm_compute/core/CPP/CPPTypes.h"
#include "arm_compute/core/TensorInfo.h"
#include "arm_compute/core/Types.h"
#include "arm_compute/core/Version.h"
#include "arm_compute/runtime/IFunction.h"
#include "arm_compute/runtime/NEON/NEScheduler.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEActivationLayer.h"
#endif

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace acl_shim_detail;

std::string &acl_shim_detail::last_error() {
    thread_local std::string message;
    return message;
}

// The opaque ABI handle of a function.
struct acl_shim_function {
    int32_t backend = ACL_SHIM_BACKEND_NEON;
    std::unique_ptr<arm_compute::IFunction> function;
    acl_shim_detail::Tensors tensors;  // shared ownership of the non-NULL tensors
    // The workspace the function's scratch tensors live in (none: the function's own).
    std::shared_ptr<acl_shim_detail::WorkspaceState> workspace;
    // Serialises the runs of this function (acl_shim_function_run and acl_shim_schedule_run):
    // an ACL function keeps per-run state (workspace, CL map state), so two threads may run
    // different functions at once but never the same one.
    std::mutex run_mutex;
};

namespace {
// The checks acl_shim_function_run makes before running (memory imported everywhere).
void require_imported(const acl_shim_function &function) {
    for (size_t i = 0; i < function.tensors.size(); ++i) {
        if (!function.tensors[i]->imported) {
            fail(ACL_SHIM_ERR_NOT_IMPORTED, "tensor " + std::to_string(i) + " has no memory imported");
        }
    }
}

// One run of one function, holding its run mutex.
void run_serialised(acl_shim_function &function) {
    const std::lock_guard<std::mutex> lock(function.run_mutex);
    require_imported(function);
    if (function.workspace) require_allocated(*function.workspace);
    run_on(*function.function, function.tensors);
}
}  // namespace

extern "C" {

int32_t acl_shim_abi_version(void) { return ACL_SHIM_ABI_VERSION; }

int32_t acl_shim_compiled_acl_version(void) { return ACL_SHIM_ACL_VERSION; }

const char *acl_shim_last_error(void) { return last_error().c_str(); }

int32_t acl_shim_build_information(char *buf, uint64_t capacity, uint64_t *needed) {
    return guarded([&] {
        const std::string s = acl::build_information();
        if (needed != nullptr) *needed = s.size() + 1;
        if (buf != nullptr && capacity > 0) {
            const size_t n = std::min<uint64_t>(s.size(), capacity - 1);
            std::memcpy(buf, s.data(), n);
            buf[n] = '\0';
        }
    });
}

int32_t acl_shim_set_num_threads(uint32_t num_threads) {
    return guarded([&] { acl::NEScheduler::get().set_num_threads(num_threads); });
}

int32_t acl_shim_num_threads(uint32_t *out) {
    return guarded([&] {
        require(out != nullptr, "out is NULL");
        *out = acl::NEScheduler::get().num_threads();
    });
}

int32_t acl_shim_cpu_report_get(acl_shim_cpu_report *out) {
    return guarded([&] {
        require(out != nullptr, "out is NULL");
        const acl::CPUInfo &ci = acl::NEScheduler::get().cpu_info();
        out->num_cpus = ci.get_cpu_num();
        out->num_threads = acl::NEScheduler::get().num_threads();
        out->has_fp16 = ci.has_fp16() ? 1 : 0;
        out->has_dotprod = ci.has_dotprod() ? 1 : 0;
#if ACL_SHIM_ACL_VERSION >= 2411
        out->has_sve = ci.has_sve() ? 1 : 0;
        out->has_sve2 = ci.has_sve2() ? 1 : 0;
        out->has_bf16 = ci.has_bf16() ? 1 : 0;
        out->has_i8mm = ci.has_i8mm() ? 1 : 0;
#else
        out->has_sve = out->has_sve2 = out->has_bf16 = out->has_i8mm = -1;
#endif
        const acl::TensorInfo f16(acl::TensorShape(8U), 1, acl::DataType::F16);
        const acl::ActivationLayerInfo relu(acl::ActivationLayerInfo::ActivationFunction::RELU);
#if ACL_SHIM_WITH_NEON
        out->f16_kernels = acl::NEActivationLayer::validate(&f16, &f16, relu).error_code() == acl::ErrorCode::OK;
#else
        out->f16_kernels = 0;  // no NE functions in this ACL
#endif
    });
}

int32_t acl_shim_function_create(int32_t kind, const acl_shim_params *params, acl_shim_tensor *const *tensors,
                                 int32_t n, acl_shim_function **out) {
    return acl_shim_function_create_in(nullptr, kind, params, tensors, n, out);
}

int32_t acl_shim_function_create_in(acl_shim_workspace *workspace, int32_t kind, const acl_shim_params *params,
                                    acl_shim_tensor *const *tensors, int32_t n, acl_shim_function **out) {
    return guarded([&] {
        require(params != nullptr && tensors != nullptr && out != nullptr,
                "params, tensors and out must not be NULL");
        require(n >= 1 && n <= ACL_SHIM_MAX_FUNCTION_TENSORS, "n must be 1..32");
        *out = nullptr;
        std::vector<int32_t> backends(n, 0);
        std::vector<bool> present(n, false);
        std::vector<TensorState *> t(n, nullptr);
        auto h = std::make_unique<acl_shim_function>();
        for (int i = 0; i < n; ++i) {
            if (tensors[i] == nullptr) continue;
            require(!tensors[i]->state->imported, "tensor " + std::to_string(i) +
                                                      " already has memory imported; import after configure");
            t[i] = tensors[i]->state.get();
            backends[i] = t[i]->backend;
            present[i] = true;
            h->tensors.push_back(tensors[i]->state);
        }
        h->backend = common_backend(backends, present);
        std::shared_ptr<acl::IMemoryManager> manager;
        if (workspace != nullptr) {
            h->workspace = workspace->state;
            manager = join(*h->workspace, h->backend);
        }
        h->function = build_on(h->backend, kind, *params, t, manager);
        *out = h.release();
    });
}

int32_t acl_shim_function_run(acl_shim_function *function) {
    return guarded([&] {
        require(function != nullptr, "function is NULL");
        run_serialised(*function);
    });
}

int32_t acl_shim_schedule_run(acl_shim_function *const *functions, int32_t n, int32_t *failed_index) {
    int32_t at = -1;
    const int32_t status = guarded([&] {
        require(functions != nullptr && n >= 0, "functions must not be NULL and n >= 0");
        for (at = 0; at < n; ++at) {
            if (functions[at] == nullptr) {  // the message is built only on failure
                fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "function " + std::to_string(at) + " is NULL");
            }
            run_serialised(*functions[at]);
        }
        at = -1;
    });
    if (failed_index != nullptr) *failed_index = at;
    return status;
}

void acl_shim_function_destroy(acl_shim_function *function) {
    try {
        delete function;
    } catch (...) {
    }
}

}  // extern "C"
