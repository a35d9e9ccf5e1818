// acl_shim_arithmetic.cpp -- the arithmetic room: addition, subtraction and multiplication
// (a, b, dst, broadcasting over dimensions of size 1) with ACL's convert policy and a fused
// activation; one row per kind in build<E>, for NEON (E = Neon) and CL (E = Cl) alike.
//   add / sub: NEArithmeticAddition / NEArithmeticSubtraction (CL: CLElementwiseOperations.h);
//   mul: NEPixelWiseMultiplication / CLPixelWiseMultiplication, times params.scale with
//     params.rounding_policy.
// A fused activation the function does not take (NEON's never: CpuAdd, CpuSub and CpuMul refuse
// act_info.enabled()) runs as ACL's activation layer in place on dst, in the same function (ABI 20).
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

// The function ``configure(act)`` makes, with fused activation ``act``: ACL's own where
// ``validate(act)`` accepts it, else (NEON's arithmetic never takes one: CpuAdd, CpuSub and
// CpuMul refuse act_info.enabled()) the function without it, then ACL's activation in place
// on ``dst``, as one function. Both validated (each question asked once) before anything is
// configured.
template <typename E, typename T, typename Validate, typename Configure>
std::unique_ptr<acl::IFunction> with_activation(const acl::ActivationLayerInfo &act, T *dst, const Validate &validate,
                                                const Configure &configure, const char *acl_name,
                                                const std::shared_ptr<acl::IMemoryManager> &mm) {
    const bool neon = std::is_base_of<NeonTag, E>::value;
    acl::Status status = validate(act.enabled() && !neon ? act : acl::ActivationLayerInfo());
    const bool apart = act.enabled() && (neon || !bool(status));
    if (apart && !neon) status = validate(acl::ActivationLayerInfo());  // CL refused it fused: without
    check_status(status, name<E>(acl_name).c_str());
    const acl::ActivationLayerInfo fused = apart ? acl::ActivationLayerInfo() : act;
    if (apart) check_status(E::Activation::validate(dst->info(), nullptr, act), name<E>("ActivationLayer").c_str());
    std::unique_ptr<acl::IFunction> f = configure(fused);
    if (!apart) return f;
    auto activation = make<typename E::Activation>(mm);
    activation->configure(dst, nullptr, act);
    auto both = std::make_unique<ThenActivation>();
    both->first = std::move(f);
    both->activation = std::move(activation);
    return both;
}

// add and sub: validate(a, b, dst, policy, act) / configure(the same) alike
template <typename Function, typename E, typename T>
std::unique_ptr<acl::IFunction> add_like(const acl_shim_params &p, const std::vector<T *> &t,
                                         const std::shared_ptr<acl::IMemoryManager> &mm, const char *what,
                                         const char *acl_name) {
    need(t, 3, {0, 1, 2}, what);
    const auto policy = to_policy(p.convert_policy);
    return with_activation<E>(
        to_activation(p.activation, p.act_a, p.act_b), t[2],
        [&](const acl::ActivationLayerInfo &a) {
            return Function::validate(t[0]->info(), t[1]->info(), t[2]->info(), policy, a);
        },
        [&](const acl::ActivationLayerInfo &a) {
            auto f = make<Function>(mm);
            f->configure(t[0], t[1], t[2], policy, a);
            return std::unique_ptr<acl::IFunction>(std::move(f));
        },
        acl_name, mm);
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
            return with_activation<E>(
                to_activation(p.activation, p.act_a, p.act_b), t[2],
                [&](const acl::ActivationLayerInfo &a) {
                    return E::Mul::validate(t[0]->info(), t[1]->info(), t[2]->info(), p.scale, policy, rounding, a);
                },
                [&](const acl::ActivationLayerInfo &a) {
                    auto f = make<typename E::Mul>(mm);
                    f->configure(t[0], t[1], t[2], p.scale, policy, rounding, a);
                    return std::unique_ptr<acl::IFunction>(std::move(f));
                },
                "PixelWiseMultiplication", mm);
        }
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_arithmetic)

}  // namespace acl_shim_detail
