// acl_shim_pooling3d.cpp -- the 3-D pooling room: one row per kind in build<E>, for NEON
// (E = Neon) and CL (E = Cl) alike.
//   pooling_3d (src, dst): NEPooling3dLayer / CLPooling3dLayer on NDHWC tensors (the shim marks
//     them so), max or average (exclude_padding as given), window kernel_w x kernel_h x
//     kernel_d, strides stride_x / _y / _z, pad_* with pad_front / pad_back (ACL 24.11; 20.08
//     has none: refused as ACL's own refusal, ACL_SHIM_ERR_ACL_STATUS naming
//     NEPooling3dLayer::validate, so the runner's fallback runs it).
// A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its NE and CL types below, its row.
#include "acl_shim_families.h"

#include "acl_shim_descriptions.h"

#if ACL_SHIM_WITH_NEON && ACL_SHIM_ACL_VERSION >= 2411
#include "arm_compute/runtime/NEON/functions/NEPooling3dLayer.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLPooling3dLayer.h"
#endif

namespace acl_shim_detail {

namespace {

#if ACL_SHIM_WITH_NEON
struct Neon : NeonTag {
#if ACL_SHIM_ACL_VERSION >= 2411
    using Pooling3d = acl::NEPooling3dLayer;
#endif
};
#endif
#if ACL_SHIM_WITH_CL
struct Cl : ClTag {
    using Pooling3d = acl::CLPooling3dLayer;
};
#endif

// The 3-D pooling where this ACL has it (24.11): src and dst marked NDHWC (the bridge
// describes them NHWC; their ACL order is the same C, W, H, D, N).
template <typename E>
std::unique_ptr<acl::IFunction> pooling_3d(const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                           const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 2, {0, 1}, "pooling_3d");
    require(p.kernel_w >= 1 && p.kernel_h >= 1 && p.kernel_d >= 1,
            "pooling_3d: kernel_w, kernel_h and kernel_d must be >= 1");
    require(p.stride_x >= 1 && p.stride_y >= 1 && p.stride_z >= 1, "pooling_3d: strides must be >= 1");
#if ACL_SHIM_ACL_VERSION >= 2411
    for (auto *tensor : t) tensor->info()->set_data_layout(acl::DataLayout::NDHWC);
    const acl::Pooling3dLayerInfo info(
        to_pool(p.pool_type), acl::Size3D(p.kernel_w, p.kernel_h, p.kernel_d),
        acl::Size3D(p.stride_x, p.stride_y, p.stride_z),
        acl::Padding3D(p.pad_left, p.pad_right, p.pad_top, p.pad_bottom, p.pad_front, p.pad_back),
        p.exclude_padding != 0);
    check_status(E::Pooling3d::validate(t[0]->info(), t[1]->info(), info), name<E>("Pooling3dLayer").c_str());
    auto f = make<typename E::Pooling3d>(mm);
    f->configure(t[0], t[1], info);
    return f;
#else
    (void)mm;
    fail(ACL_SHIM_ERR_ACL_STATUS, name<E>("Pooling3dLayer") + ": ACL " + std::to_string(ACL_SHIM_ACL_VERSION) +
                                      " has no Pooling3dLayer function (24.11 has one)");
#endif
}

template <typename E>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {  // one row per kind
        case ACL_SHIM_FN_POOLING_3D: return pooling_3d<E>(p, t, mm);
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_pooling3d)

}  // namespace acl_shim_detail
