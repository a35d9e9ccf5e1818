// acl_shim_pooling.cpp -- the 2-D pooling room: pooling (src, dst) over width and height,
// NEPoolingLayer / CLPoolingLayer with params.pool_type, kernel_w / kernel_h, the window's
// stride and pad_* (a PadStrideInfo) and exclude_padding; one row per kind in build<E>, for
// NEON (E = Neon) and CL (E = Cl) alike. A new kind: its ACL_SHIM_FN_* constant in
// acl_shim.h, its NE and CL types below, its row.
#include "acl_shim_families.h"

#include "acl_shim_descriptions.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEPoolingLayer.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLPoolingLayer.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_POOLING_TYPES(P) using Pooling = acl::P##PoolingLayer;
ACL_SHIM_BACKEND_STRUCTS(ACL_SHIM_POOLING_TYPES)
#undef ACL_SHIM_POOLING_TYPES

template <typename E, typename T>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_POOLING: {
            need(t, 2, {0, 1}, "pooling");
            require(p.kernel_w >= 1 && p.kernel_h >= 1, "pooling: kernel_w and kernel_h must be >= 1");
            const acl::PoolingLayerInfo info(to_pool(p.pool_type), acl::Size2D(p.kernel_w, p.kernel_h),
                                             t[0]->info()->data_layout(), to_pad_stride(p), p.exclude_padding != 0);
            check_status(E::Pooling::validate(t[0]->info(), t[1]->info(), info), name<E>("PoolingLayer").c_str());
            auto f = make<typename E::Pooling>(mm);
            f->configure(t[0], t[1], info);
            return f;
        }
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_pooling)

}  // namespace acl_shim_detail
