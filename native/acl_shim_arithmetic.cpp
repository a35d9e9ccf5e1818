// acl_shim_arithmetic.cpp -- the arithmetic room: addition, subtraction and multiplication
// (a, b, dst, broadcasting over dimensions of size 1) with ACL's convert policy and a fused
// activation; one row per kind in build<E>, for NEON (E = Neon) and CL (E = Cl) alike.
//   add / sub: NEArithmeticAddition / NEArithmeticSubtraction (CL: CLElementwiseOperations.h);
//     a fused activation ACL's function does not take (NEON's never: CpuAdd / CpuSub refuse
//     act_info.enabled()) runs as ACL's activation layer in place on dst, in the same function
//     (ABI 20);
//   mul: NEPixelWiseMultiplication / CLPixelWiseMultiplication, times params.scale with
//     params.rounding_policy.
// A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its NE and CL types below, its row.
#include "acl_shim_families.h"

#include "acl_shim_descriptions.h"

#include <type_traits>

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEActivationLayer.h"
#include "arm_compute/runtime/NEON/functions/NEArithmeticAddition.h"
#include "arm_compute/runtime/NEON/functions/NEArithmeticSubtraction.h"
#include "arm_compute/runtime/NEON/functions/NEPixelWiseMultiplication.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLActivationLayer.h"
#include "arm_compute/runtime/CL/functions/CLElementwiseOperations.h"
#include "arm_compute/runtime/CL/functions/CLPixelWiseMultiplication.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_ARITHMETIC_TYPES(P)               \
    using Add = acl::P##ArithmeticAddition;        \
    using Sub = acl::P##ArithmeticSubtraction;     \
    using Mul = acl::P##PixelWiseMultiplication;  \
    using Activation = acl::P##ActivationLayer;

ACL_SHIM_BACKEND_STRUCTS(ACL_SHIM_ARITHMETIC_TYPES)
#undef ACL_SHIM_ARITHMETIC_TYPES

// A function, then an activation in place on its output: one function to the caller.
struct ThenActivation : acl::IFunction {
    std::unique_ptr<acl::IFunction> first, activation;
    void run() override {
        first->run();
        activation->run();
    }
    void prepare() override {
        first->prepare();
        activation->prepare();
    }
};

// add and sub: validate(a, b, dst, policy, act) / configure(the same) alike; an activation
// the function refuses (NEON: always; CL: where its kernel has none for these types) made
// apart, in place on dst, after it
template <typename Function, typename E, typename T>
std::unique_ptr<acl::IFunction> add_like(const acl_shim_params &p, const std::vector<T *> &t,
                                         const std::shared_ptr<acl::IMemoryManager> &mm, const char *what,
                                         const char *acl_name) {
    need(t, 3, {0, 1, 2}, what);
    const auto policy = to_policy(p.convert_policy);
    const acl::ActivationLayerInfo act = to_activation(p.activation, p.act_a, p.act_b);
    const bool apart = act.enabled() &&
                       (std::is_base_of<NeonTag, E>::value ||
                        !bool(Function::validate(t[0]->info(), t[1]->info(), t[2]->info(), policy, act)));
    const acl::ActivationLayerInfo fused = apart ? acl::ActivationLayerInfo() : act;
    check_status(Function::validate(t[0]->info(), t[1]->info(), t[2]->info(), policy, fused),
                 name<E>(acl_name).c_str());
    if (apart) {
        check_status(E::Activation::validate(t[2]->info(), nullptr, act), name<E>("ActivationLayer").c_str());
    }
    auto f = make<Function>(mm);
    f->configure(t[0], t[1], t[2], policy, fused);
    if (!apart) return f;
    auto activation = make<typename E::Activation>(mm);
    activation->configure(t[2], nullptr, act);
    auto both = std::make_unique<ThenActivation>();
    both->first = std::move(f);
    both->activation = std::move(activation);
    return both;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_ADD: return add_like<typename E::Add, E>(p, t, mm, "add", "ArithmeticAddition");
        case ACL_SHIM_FN_SUB: return add_like<typename E::Sub, E>(p, t, mm, "sub", "ArithmeticSubtraction");
        case ACL_SHIM_FN_MUL: {
            need(t, 3, {0, 1, 2}, "mul");
            const auto policy = to_policy(p.convert_policy);
            const auto rounding = to_rounding(p.rounding_policy);
            const acl::ActivationLayerInfo act = to_activation(p.activation, p.act_a, p.act_b);
            check_status(E::Mul::validate(t[0]->info(), t[1]->info(), t[2]->info(), p.scale, policy, rounding, act),
                         name<E>("PixelWiseMultiplication").c_str());
            auto f = make<typename E::Mul>(mm);
            f->configure(t[0], t[1], t[2], p.scale, policy, rounding, act);
            return f;
        }
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_arithmetic)

}  // namespace acl_shim_detail
