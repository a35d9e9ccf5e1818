// acl_shim_plan.cpp -- the configured-plans room: many functions made in one call from native
// descriptions decided earlier (acl_shim.h, "configured plans"). Each function is made by the
// same entry points a single one is (acl_shim_tensor_create, acl_shim_function_create_in,
// acl_shim_tensor_import), in the same order; this room adds the bounds check of a kept
// description against the memory it is given, and all-or-nothing cleanup.
#include "acl_shim.h"
#include "acl_shim_descriptions.h"
#include "acl_shim_status.h"

#include <chrono>
#include <string>
#include <vector>

using namespace acl_shim_detail;

namespace {

// A kept description fits the memory it is given: the function's backend, the memory's element
// size (and an x stride of one element), and every byte it addresses (its total size, and one
// past its last element) within what the caller owns there. The description comes from a file:
// every product and the running sum are checked for overflow (a wrapped sum would pass as a
// small extent and address memory before the buffer).
void require_fits(const acl_shim_tensor_desc &d, int32_t backend, uint64_t available, uint32_t element_size,
                  int32_t i) {
    const std::string which = "tensor " + std::to_string(i);
    require(d.backend == backend, which + " is described for backend " + std::to_string(d.backend) +
                                      ", the function's is " + std::to_string(backend));
    require(d.num_dims >= 1 && d.num_dims <= ACL_SHIM_MAX_DIMS, which + ": num_dims must be 1.." +
                                                                    std::to_string(ACL_SHIM_MAX_DIMS));
    const acl::TensorInfo info = imported_info(d);
    require(info.element_size() == element_size && d.strides_in_bytes[0] == element_size,
            which + " is described with " + std::to_string(info.element_size()) + "-byte elements (x stride " +
                std::to_string(d.strides_in_bytes[0]) + "), its memory has " + std::to_string(element_size) +
                "-byte elements");
    uint64_t last = d.offset_first_element_in_bytes;
    bool wraps = false;
    for (int32_t k = 0; k < d.num_dims; ++k) {
        require(d.shape[k] >= 1, which + " has an empty dimension");
        uint64_t term = 0;
        wraps = wraps || __builtin_mul_overflow(static_cast<uint64_t>(d.shape[k] - 1), d.strides_in_bytes[k], &term) ||
                __builtin_add_overflow(last, term, &last);
    }
    uint64_t end = 0;
    wraps = wraps || __builtin_add_overflow(last, static_cast<uint64_t>(info.element_size()), &end);
    if (wraps) {
        fail(ACL_SHIM_ERR_INVALID_ARGUMENT, which + " addresses more than 2^64 bytes (offset " +
                                                std::to_string(d.offset_first_element_in_bytes) +
                                                "), its memory holds " + std::to_string(available));
    }
    if (end > available || d.total_size_in_bytes > available) {
        fail(ACL_SHIM_ERR_INVALID_ARGUMENT,
             which + " addresses " + std::to_string(end) + " bytes (total size " +
                 std::to_string(d.total_size_in_bytes) + "), its memory holds " + std::to_string(available));
    }
}

// What one function owns while the plan is being made (released to the caller at the end).
struct Made {
    acl_shim_function *function = nullptr;
    std::vector<acl_shim_tensor *> tensors;
};

void destroy(std::vector<Made> &made) {
    for (Made &m : made) {
        acl_shim_function_destroy(m.function);
        for (acl_shim_tensor *t : m.tensors) acl_shim_tensor_destroy(t);
    }
    made.clear();
}

// Rethrows a failed entry point's status with its message, naming the function.
void check_call(int32_t status, int32_t at, const char *what) {
    if (status != ACL_SHIM_OK) {
        fail(status, "function " + std::to_string(at) + ": " + what + ": " + last_error());
    }
}

void make_one(acl_shim_workspace *workspace, const acl_shim_planned_function &f, int32_t at, Made &m) {
    require(f.params != nullptr && f.descs != nullptr && f.bases != nullptr && f.available_in_bytes != nullptr &&
                f.element_sizes_in_bytes != nullptr,
            "function " + std::to_string(at) +
                ": params, descs, bases, available_in_bytes and element_sizes_in_bytes must not be NULL");
    require(f.num_tensors >= 1 && f.num_tensors <= ACL_SHIM_MAX_FUNCTION_TENSORS,
            "function " + std::to_string(at) + ": num_tensors must be 1..32");
    m.tensors.assign(static_cast<size_t>(f.num_tensors), nullptr);
    for (int32_t i = 0; i < f.num_tensors; ++i) {
        if (f.bases[i] == nullptr) continue;  // an absent optional tensor
        try {
            require_fits(f.descs[i], f.backend, f.available_in_bytes[i], f.element_sizes_in_bytes[i], i);
        } catch (const ShimError &e) {
            fail(e.code, "function " + std::to_string(at) + ": " + e.what());
        }
        check_call(acl_shim_tensor_create(&f.descs[i], &m.tensors[static_cast<size_t>(i)]), at, "tensor_create");
    }
    check_call(acl_shim_function_create_in(workspace, f.kind, f.params, m.tensors.data(), f.num_tensors, &m.function),
               at, "function_create");
    for (int32_t i = 0; i < f.num_tensors; ++i) {  // after configure (ACL 20.08 misconfigures otherwise)
        if (m.tensors[static_cast<size_t>(i)] == nullptr) continue;
        check_call(acl_shim_tensor_import(m.tensors[static_cast<size_t>(i)], f.bases[i]), at, "tensor_import");
    }
}

}  // namespace

extern "C" {

int32_t acl_shim_plan_create(acl_shim_workspace *workspace, const acl_shim_planned_function *functions, int32_t n,
                             acl_shim_function **out_functions, acl_shim_tensor **out_tensors,
                             double *seconds, int32_t *failed_index) {
    int32_t at = -1;
    std::vector<Made> made;
    const int32_t status = guarded([&] {
        require(functions != nullptr && out_functions != nullptr && out_tensors != nullptr && n >= 0,
                "functions, out_functions and out_tensors must not be NULL and n >= 0");
        made.resize(static_cast<size_t>(n));
        using clock = std::chrono::steady_clock;
        for (at = 0; at < n; ++at) {
            const clock::time_point t0 = clock::now();
            make_one(workspace, functions[at], at, made[static_cast<size_t>(at)]);
            if (seconds != nullptr) seconds[at] = std::chrono::duration<double>(clock::now() - t0).count();
        }
        at = -1;
        size_t k = 0;
        for (int32_t i = 0; i < n; ++i) {
            Made &m = made[static_cast<size_t>(i)];
            out_functions[i] = m.function;
            for (acl_shim_tensor *t : m.tensors) out_tensors[k++] = t;
        }
        made.clear();  // the caller owns them now
    });
    if (status != ACL_SHIM_OK) destroy(made);
    if (failed_index != nullptr) *failed_index = at;
    return status;
}

}  // extern "C"
