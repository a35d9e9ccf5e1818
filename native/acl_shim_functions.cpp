// acl_shim_functions.cpp -- the functions room: a function kind built on the backend of its
// tensors. Every kind lives in a family room, native/acl_shim_<family>.cpp, that registers
// itself (acl_shim_families.h); build_on hands the kind to each registered room in turn, and
// the one whose kind it is validate()s and configure()s it. A new kind is a row in its room
// (or a new room) plus its ACL_SHIM_FN_* constant in acl_shim.h; nothing here changes.
// Converters of params fields live in acl_shim_descriptions.cpp. Padding negotiation, the
// probe, check_layouts and function_create all go through build_on().
#include "acl_shim_functions.h"

#include "acl_shim_families.h"
#include "acl_shim_status.h"

#if ACL_SHIM_WITH_CL
#include "arm_compute/core/CL/ICLTensor.h"
#endif

#include <memory>
#include <string>
#include <vector>

namespace acl_shim_detail {

std::vector<FamilyRoom> &family_rooms() {
    static std::vector<FamilyRoom> rooms;  // filled while the module loads, read-only after
    return rooms;
}

namespace {

// The kind built by the room whose kind it is, on tensors of one backend (NEON: ITensor, CL:
// ICLTensor); an unknown kind is ACL_SHIM_ERR_INVALID_ARGUMENT.
template <typename T, typename Room>
std::unique_ptr<acl::IFunction> build_in_rooms(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                               const std::shared_ptr<acl::IMemoryManager> &mm, Room room) {
    for (const FamilyRoom &r : family_rooms()) {
        if (auto f = (r.*room)(kind, p, t, mm)) return f;
    }
    fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown function kind " + std::to_string(kind));
}

}  // namespace

std::unique_ptr<acl::IFunction> build_on(int32_t backend, int32_t kind, const acl_shim_params &p,
                                         const std::vector<TensorState *> &tensors,
                                         const std::shared_ptr<acl::IMemoryManager> &mm) {
    if (backend == ACL_SHIM_BACKEND_NEON) {
#if ACL_SHIM_WITH_NEON
        std::vector<acl::ITensor *> t(tensors.size(), nullptr);
        for (size_t i = 0; i < tensors.size(); ++i) t[i] = tensors[i] == nullptr ? nullptr : tensors[i]->ne.get();
        return build_in_rooms(kind, p, t, mm, &FamilyRoom::neon);
#else
        fail(ACL_SHIM_ERR_UNSUPPORTED, "this acl_bridge was built against an ACL without NE (NEON) functions "
                                       "(Debian's amd64 ACL is the OpenCL backend alone): use backend CL");
#endif
    }
    require(backend == ACL_SHIM_BACKEND_CL, "unknown backend " + std::to_string(backend) + " (0 NEON, 1 CL)");
#if ACL_SHIM_WITH_CL
    cl_ready();
    std::vector<acl::ICLTensor *> t(tensors.size(), nullptr);
    for (size_t i = 0; i < tensors.size(); ++i) t[i] = tensors[i] == nullptr ? nullptr : tensors[i]->cl.get();
    return build_in_rooms(kind, p, t, mm, &FamilyRoom::cl);
#else
    cl_ready();  // fails: no CL backend in this build
    return nullptr;
#endif
}

int32_t common_backend(const std::vector<int32_t> &backends, const std::vector<bool> &present) {
    int32_t backend = -1;
    for (size_t i = 0; i < backends.size(); ++i) {
        if (!present[i]) continue;
        if (backend < 0) backend = backends[i];
        require(backends[i] == backend, "tensors mix backends: tensor " + std::to_string(i) + " has backend " +
                                            std::to_string(backends[i]) + ", an earlier one " + std::to_string(backend) +
                                            " (0 NEON, 1 CL); all tensors of a function must be on one backend");
    }
    return backend < 0 ? ACL_SHIM_BACKEND_NEON : backend;
}

int32_t common_backend(const acl_shim_tensor_desc *const *descs, int32_t n) {
    std::vector<int32_t> backends(n, 0);
    std::vector<bool> present(n, false);
    for (int32_t i = 0; i < n; ++i) {
        present[i] = descs[i] != nullptr;
        backends[i] = present[i] ? descs[i]->backend : 0;
    }
    return common_backend(backends, present);
}

}  // namespace acl_shim_detail
