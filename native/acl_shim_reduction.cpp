// acl_shim_reduction.cpp -- the reduction family room: one row per kind in build<E>, for NEON
// (E = Neon) and CL (E = Cl) alike, all on ACL's reduction operation (NEReductionOperation /
// CLReductionOperation, the same validate(src, dst, axis, op, keep_dims) in 20.08 and 24.11)
// along params.axis, in ACL's dimension order, the axis kept (extent 1 in dst). A new kind:
// its ACL_SHIM_FN_* constant in acl_shim.h and its row below.
#include "acl_shim_families.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEReductionOperation.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLReductionOperation.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_REDUCTION_TYPES(P) using Reduction = acl::P##ReductionOperation;
ACL_SHIM_BACKEND_STRUCTS(ACL_SHIM_REDUCTION_TYPES)
#undef ACL_SHIM_REDUCTION_TYPES

template <typename E, typename T>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    using Op = acl::ReductionOperation;
    Op op;
    const char *what = nullptr;
    switch (kind) {  // one row per kind
        case ACL_SHIM_FN_REDUCE_SUM: op = Op::SUM, what = "reduce_sum"; break;
        case ACL_SHIM_FN_REDUCE_MEAN: op = Op::MEAN_SUM, what = "reduce_mean"; break;
        case ACL_SHIM_FN_REDUCE_MAX: op = Op::MAX, what = "reduce_max"; break;
        case ACL_SHIM_FN_REDUCE_MIN: op = Op::MIN, what = "reduce_min"; break;
        case ACL_SHIM_FN_REDUCE_PROD: op = Op::PROD, what = "reduce_prod"; break;
        default: return nullptr;
    }
    need(t, 2, {0, 1}, what);
    require(p.axis >= 0 && p.axis < 4, std::string(what) + ": axis " + std::to_string(p.axis) +
                                           " (ACL's dimension order), expected 0..3");
    const auto axis = static_cast<unsigned int>(p.axis);
    check_status(E::Reduction::validate(t[0]->info(), t[1]->info(), axis, op, true),
                 name<E>("ReductionOperation").c_str());
    auto f = make<typename E::Reduction>(mm);
    f->configure(t[0], t[1], axis, op, true);
    return f;
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_reduction)

}  // namespace acl_shim_detail
