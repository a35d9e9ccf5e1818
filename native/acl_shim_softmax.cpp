// acl_shim_softmax.cpp -- the softmax room: softmax and log-softmax (src, dst) with params.beta
// along params.axis, NESoftmaxLayer / NELogSoftmaxLayer (CL alike); one row per kind in
// build<E>, for NEON (E = Neon) and CL (E = Cl) alike. A new kind: its ACL_SHIM_FN_* constant
// in acl_shim.h, its NE and CL types below, its row.
#include "acl_shim_families.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NESoftmaxLayer.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLSoftmaxLayer.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_SOFTMAX_TYPES(P)              \
    using Softmax = acl::P##SoftmaxLayer;      \
    using LogSoftmax = acl::P##LogSoftmaxLayer;

ACL_SHIM_BACKEND_STRUCTS(ACL_SHIM_SOFTMAX_TYPES)
#undef ACL_SHIM_SOFTMAX_TYPES

template <typename Function, typename E, typename T>
std::unique_ptr<acl::IFunction> softmax(const acl_shim_params &p, const std::vector<T *> &t,
                                        const std::shared_ptr<acl::IMemoryManager> &mm, const char *what,
                                        const char *acl_name) {
    need(t, 2, {0, 1}, what);
    check_status(Function::validate(t[0]->info(), t[1]->info(), p.beta, p.axis), name<E>(acl_name).c_str());
    auto f = make<Function>(mm);
    f->configure(t[0], t[1], p.beta, p.axis);
    return f;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_SOFTMAX: return softmax<typename E::Softmax, E>(p, t, mm, "softmax", "SoftmaxLayer");
        case ACL_SHIM_FN_LOG_SOFTMAX:
            return softmax<typename E::LogSoftmax, E>(p, t, mm, "log_softmax", "LogSoftmaxLayer");
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_softmax)

}  // namespace acl_shim_detail
