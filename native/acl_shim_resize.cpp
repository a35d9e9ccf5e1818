// acl_shim_resize.cpp -- the resize room: resize (src, dst), NEScale / CLScale to dst's
// height and width with params.interpolation, sampling and align_corners (a ScaleKernelInfo:
// acl_shim_descriptions.cpp); one row per kind in build<E>, for NEON (E = Neon) and CL
// (E = Cl) alike. A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its NE and CL types
// below, its row.
#include "acl_shim_families.h"

#include "acl_shim_descriptions.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEScale.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLScale.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_SCALE_TYPES(P) using Scale = acl::P##Scale;
ACL_SHIM_BACKEND_STRUCTS(ACL_SHIM_SCALE_TYPES)
#undef ACL_SHIM_SCALE_TYPES

template <typename E, typename T>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_RESIZE: {
            need(t, 2, {0, 1}, "resize");
            const acl::ScaleKernelInfo info = to_scale_info(p);
            check_status(E::Scale::validate(t[0]->info(), t[1]->info(), info), name<E>("Scale").c_str());
            auto f = make<typename E::Scale>(mm);
            f->configure(t[0], t[1], info);
            return f;
        }
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_resize)

}  // namespace acl_shim_detail
