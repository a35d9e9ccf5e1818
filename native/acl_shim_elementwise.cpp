// acl_shim_elementwise.cpp -- the elementwise family room: one row per kind in build<E>, for
// NEON (E = Neon) and CL (E = Cl) alike.
//   binary (a, b, dst): ACL's validate(a, b, dst, act) / configure(a, b, dst, act) functions,
//     broadcasting over dimensions of size 1 (either input);
//   unary (src, dst): ACL's validate(src, dst) / configure(src, dst) functions.
// A new kind of either shape: its ACL_SHIM_FN_* constant in acl_shim.h, its NE and CL types in
// ACL_SHIM_ELEMENTWISE_TYPES, its row below. ACL 20.08 (bookworm) and 24.11 (trixie) have
// every function of this room under the same names (NEON); CL needs 24.x.
#include "acl_shim_families.h"

#include "acl_shim_descriptions.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEElementwiseOperations.h"
#include "arm_compute/runtime/NEON/functions/NEElementwiseUnaryLayer.h"
#include "arm_compute/runtime/NEON/functions/NEFloor.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLElementwiseOperations.h"
#include "arm_compute/runtime/CL/functions/CLElementwiseUnaryLayer.h"
#include "arm_compute/runtime/CL/functions/CLFloor.h"
#endif

namespace acl_shim_detail {

namespace {

// The functions of each backend. ACL names them alike, NE... and CL..., except the division
// (NEElementwiseDivision, CLArithmeticDivision).
#define ACL_SHIM_ELEMENTWISE_TYPES(P, DIVISION)          \
    static constexpr const char *division = #DIVISION;   \
    using Div = acl::P##DIVISION;                        \
    using Max = acl::P##ElementwiseMax;                  \
    using Min = acl::P##ElementwiseMin;                  \
    using SquaredDiff = acl::P##ElementwiseSquaredDiff;  \
    using Power = acl::P##ElementwisePower;              \
    using Abs = acl::P##AbsLayer;                        \
    using Exp = acl::P##ExpLayer;                        \
    using Log = acl::P##LogLayer;                        \
    using Neg = acl::P##NegLayer;                        \
    using Rsqrt = acl::P##RsqrtLayer;                    \
    using Sin = acl::P##SinLayer;                        \
    using Round = acl::P##RoundLayer;                    \
    using Floor = acl::P##Floor;

#if ACL_SHIM_WITH_NEON
struct Neon : NeonTag {
    ACL_SHIM_ELEMENTWISE_TYPES(NE, ElementwiseDivision)
};
#endif
#if ACL_SHIM_WITH_CL
struct Cl : ClTag {
    ACL_SHIM_ELEMENTWISE_TYPES(CL, ArithmeticDivision)
};
#endif
#undef ACL_SHIM_ELEMENTWISE_TYPES

template <typename Fn, typename T>
std::unique_ptr<acl::IFunction> binary(const std::vector<T *> &t, const char *kind, const std::string &acl_name,
                                       const acl::ActivationLayerInfo &act,
                                       const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 3, {0, 1, 2}, kind);
    check_status(Fn::validate(t[0]->info(), t[1]->info(), t[2]->info(), act), acl_name.c_str());
    auto f = make<Fn>(mm);
    f->configure(t[0], t[1], t[2], act);
    return f;
}

template <typename Fn, typename T>
std::unique_ptr<acl::IFunction> unary(const std::vector<T *> &t, const char *kind, const std::string &acl_name,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 2, {0, 1}, kind);
    check_status(Fn::validate(t[0]->info(), t[1]->info()), acl_name.c_str());
    auto f = make<Fn>(mm);
    f->configure(t[0], t[1]);
    return f;
}

template <typename E>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    const acl::ActivationLayerInfo act = to_activation(p.activation, p.act_a, p.act_b);
    switch (kind) {
        // binary: ACL's functions of this shape take no fused activation today ("Currently not
        // supported"); validate() says so where one is given
        case ACL_SHIM_FN_DIV: return binary<typename E::Div>(t, "div", name<E>(E::division), act, mm);
        case ACL_SHIM_FN_MAXIMUM: return binary<typename E::Max>(t, "maximum", name<E>("ElementwiseMax"), act, mm);
        case ACL_SHIM_FN_MINIMUM: return binary<typename E::Min>(t, "minimum", name<E>("ElementwiseMin"), act, mm);
        case ACL_SHIM_FN_SQUARED_DIFFERENCE:
            return binary<typename E::SquaredDiff>(t, "squared_difference", name<E>("ElementwiseSquaredDiff"), act, mm);
        case ACL_SHIM_FN_POWER: return binary<typename E::Power>(t, "power", name<E>("ElementwisePower"), act, mm);
        // unary
        case ACL_SHIM_FN_ABS: return unary<typename E::Abs>(t, "abs", name<E>("AbsLayer"), mm);
        case ACL_SHIM_FN_EXP: return unary<typename E::Exp>(t, "exp", name<E>("ExpLayer"), mm);
        case ACL_SHIM_FN_LOG: return unary<typename E::Log>(t, "log", name<E>("LogLayer"), mm);
        case ACL_SHIM_FN_NEG: return unary<typename E::Neg>(t, "neg", name<E>("NegLayer"), mm);
        case ACL_SHIM_FN_RSQRT: return unary<typename E::Rsqrt>(t, "rsqrt", name<E>("RsqrtLayer"), mm);
        case ACL_SHIM_FN_SIN: return unary<typename E::Sin>(t, "sin", name<E>("SinLayer"), mm);
        case ACL_SHIM_FN_ROUND: return unary<typename E::Round>(t, "round", name<E>("RoundLayer"), mm);
        case ACL_SHIM_FN_FLOOR: return unary<typename E::Floor>(t, "floor", name<E>("Floor"), mm);
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_elementwise)

}  // namespace acl_shim_detail
