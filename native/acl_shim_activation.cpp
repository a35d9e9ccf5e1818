// acl_shim_activation.cpp -- the activation room: one row per kind in build<E>, for NEON
// (E = Neon) and CL (E = Cl) alike.
//   activation (src, dst): NEActivationLayer / CLActivationLayer, params.activation with
//     act_a / act_b (ACL's ActivationLayerInfo; none is refused);
//   prelu (src, alpha, dst): NEPReluLayer / CLPReluLayer, alpha broadcasting.
// A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its NE and CL types below, its row.
#include "acl_shim_families.h"

#include "acl_shim_descriptions.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEActivationLayer.h"
#include "arm_compute/runtime/NEON/functions/NEPReluLayer.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLActivationLayer.h"
#include "arm_compute/runtime/CL/functions/CLPReluLayer.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_ACTIVATION_TYPES(P)             \
    using Activation = acl::P##ActivationLayer;  \
    using PRelu = acl::P##PReluLayer;

ACL_SHIM_BACKEND_STRUCTS(ACL_SHIM_ACTIVATION_TYPES)
#undef ACL_SHIM_ACTIVATION_TYPES

template <typename E, typename T>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_ACTIVATION: {
            need(t, 2, {0, 1}, "activation");
            require(p.activation != ACL_SHIM_ACT_NONE, "activation: no activation function given");
            const acl::ActivationLayerInfo act = to_activation(p.activation, p.act_a, p.act_b);
            check_status(E::Activation::validate(t[0]->info(), t[1]->info(), act), name<E>("ActivationLayer").c_str());
            auto f = make<typename E::Activation>(mm);
            f->configure(t[0], t[1], act);
            return f;
        }
        case ACL_SHIM_FN_PRELU: {
            need(t, 3, {0, 1, 2}, "prelu");
            check_status(E::PRelu::validate(t[0]->info(), t[1]->info(), t[2]->info()), name<E>("PReluLayer").c_str());
            auto f = make<typename E::PRelu>(mm);
            f->configure(t[0], t[1], t[2]);
            return f;
        }
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_activation)

}  // namespace acl_shim_detail
