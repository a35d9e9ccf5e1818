// acl_shim_logic.cpp -- the logic family room: one row per kind in build<E>, for NEON (E = Neon)
// and CL (E = Cl) alike.
//   comparisons (a, b, dst): ACL's elementwise comparison (NEElementwiseComparison / CLComparison,
//     broadcasting over dimensions of size 1), dst U8. ACL writes 255 where true; the kind then
//     multiplies dst by itself in place at scale 1/2^15, rounded toward zero (255 * 255 / 32768
//     -> 1, 0 -> 0; NE/CLPixelWiseMultiplication, U8), so dst holds 0 or 1 as a bool does;
//   logical and / or (a, b, dst) and not (src, dst): NE/CLLogicalAnd, Or, Not (U8: any nonzero
//     is true, dst 0 or 1); ACL 24.x only, an ACL without them answers ACL_SHIM_ERR_UNSUPPORTED;
//   arg max / min (src, dst): NE/CLArgMinMaxLayer along params.axis (ACL's dimension order),
//     dst without that axis, S32 (S64: CL; NEON's validate() refuses it in 20.08 and 24.11);
//   select (condition, a, b, dst): NE/CLSelect, condition U8 (nonzero: a).
// A new kind: its ACL_SHIM_FN_* constant in acl_shim.h and its row below.
#include "acl_shim_families.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEArgMinMaxLayer.h"
#include "arm_compute/runtime/NEON/functions/NEElementwiseOperations.h"
#include "arm_compute/runtime/NEON/functions/NEPixelWiseMultiplication.h"
#include "arm_compute/runtime/NEON/functions/NESelect.h"
#if ACL_SHIM_ACL_VERSION >= 2411
#include "arm_compute/runtime/NEON/functions/NELogical.h"
#endif
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLArgMinMaxLayer.h"
#include "arm_compute/runtime/CL/functions/CLComparison.h"
#include "arm_compute/runtime/CL/functions/CLLogicalAnd.h"
#include "arm_compute/runtime/CL/functions/CLLogicalNot.h"
#include "arm_compute/runtime/CL/functions/CLLogicalOr.h"
#include "arm_compute/runtime/CL/functions/CLPixelWiseMultiplication.h"
#include "arm_compute/runtime/CL/functions/CLSelect.h"
#endif

namespace acl_shim_detail {

namespace {

// Where ACL has no logical functions (20.08, NEON): validate() answers ACL_SHIM_ERR_UNSUPPORTED
// naming them, which the model runner's fallback takes like a validate() refusal.
struct NoLogical : acl::IFunction {
    template <typename... A>
    static acl::Status validate(A...) {
        const int v = ACL_SHIM_ACL_VERSION;
        fail(ACL_SHIM_ERR_UNSUPPORTED, "ACL " + std::to_string(v / 100) + (v % 100 < 10 ? ".0" : ".") +
                                           std::to_string(v % 100) +
                                           " has no NELogicalAnd/Or/Not (ACL 21.05 and later have them)");
    }
    template <typename... A>
    void configure(A...) {}
    void run() override {}
};

// The functions of each backend: ACL names them alike, NE... and CL..., except the comparison
// (NEElementwiseComparison, CLComparison).
#define ACL_SHIM_LOGIC_TYPES(P, COMPARISON)               \
    static constexpr const char *comparison = #COMPARISON; \
    using Compare = acl::P##COMPARISON;                   \
    using Mul = acl::P##PixelWiseMultiplication;          \
    using ArgMinMax = acl::P##ArgMinMaxLayer;             \
    using Select = acl::P##Select;

#if ACL_SHIM_WITH_NEON
struct Neon : NeonTag {
    ACL_SHIM_LOGIC_TYPES(NE, ElementwiseComparison)
#if ACL_SHIM_ACL_VERSION >= 2411
    using And = acl::NELogicalAnd;
    using Or = acl::NELogicalOr;
    using Not = acl::NELogicalNot;
#else
    using And = NoLogical;
    using Or = NoLogical;
    using Not = NoLogical;
#endif
};
#endif
#if ACL_SHIM_WITH_CL
struct Cl : ClTag {
    ACL_SHIM_LOGIC_TYPES(CL, Comparison)
    using And = acl::CLLogicalAnd;
    using Or = acl::CLLogicalOr;
    using Not = acl::CLLogicalNot;
};
#endif
#undef ACL_SHIM_LOGIC_TYPES

template <typename E, typename T>
std::unique_ptr<acl::IFunction> compare(const std::vector<T *> &t, const char *kind, acl::ComparisonOperation op,
                                        const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 3, {0, 1, 2}, kind);
    check_status(E::Compare::validate(t[0]->info(), t[1]->info(), t[2]->info(), op), name<E>(E::comparison).c_str());
    // 255 (ACL's true) * 255 >> 15 = 1, toward zero; 0 stays 0
    const float scale = 1.0f / 32768.0f;
    const auto policy = acl::ConvertPolicy::SATURATE;
    const auto rounding = acl::RoundingPolicy::TO_ZERO;
    check_status(E::Mul::validate(t[2]->info(), t[2]->info(), t[2]->info(), scale, policy, rounding),
                 name<E>("PixelWiseMultiplication").c_str());
    auto seq = std::make_unique<Sequence>();
    auto c = make<typename E::Compare>(mm);
    c->configure(t[0], t[1], t[2], op);
    auto m = make<typename E::Mul>(mm);
    m->configure(t[2], t[2], t[2], scale, policy, rounding);
    seq->parts.push_back(std::move(c));
    seq->parts.push_back(std::move(m));
    return seq;
}

// Fn validate()d then configure()d on the tensors as given (their count need()ed by the caller).
template <typename Fn, typename... T>
std::unique_ptr<acl::IFunction> plain(const std::string &acl_name, const std::shared_ptr<acl::IMemoryManager> &mm,
                                      T *...t) {
    check_status(Fn::validate(t->info()...), acl_name.c_str());
    auto f = make<Fn>(mm);
    f->configure(t...);
    return f;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> arg_min_max(const std::vector<T *> &t, const acl_shim_params &p, const char *kind,
                                            acl::ReductionOperation op, const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 2, {0, 1}, kind);
    require(p.axis >= 0 && p.axis < 4, std::string(kind) + ": axis " + std::to_string(p.axis) +
                                           " (ACL's dimension order), expected 0..3");
    check_status(E::ArgMinMax::validate(t[0]->info(), p.axis, t[1]->info(), op), name<E>("ArgMinMaxLayer").c_str());
    auto f = make<typename E::ArgMinMax>(mm);
    f->configure(t[0], p.axis, t[1], op);
    return f;
}

template <typename E>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    using C = acl::ComparisonOperation;
    using R = acl::ReductionOperation;
    switch (kind) {
        case ACL_SHIM_FN_EQUAL: return compare<E>(t, "equal", C::Equal, mm);
        case ACL_SHIM_FN_NOT_EQUAL: return compare<E>(t, "not_equal", C::NotEqual, mm);
        case ACL_SHIM_FN_LESS: return compare<E>(t, "less", C::Less, mm);
        case ACL_SHIM_FN_LESS_EQUAL: return compare<E>(t, "less_equal", C::LessEqual, mm);
        case ACL_SHIM_FN_GREATER: return compare<E>(t, "greater", C::Greater, mm);
        case ACL_SHIM_FN_GREATER_EQUAL: return compare<E>(t, "greater_equal", C::GreaterEqual, mm);
        case ACL_SHIM_FN_LOGICAL_AND:
            need(t, 3, {0, 1, 2}, "logical_and");
            return plain<typename E::And>(name<E>("LogicalAnd"), mm, t[0], t[1], t[2]);
        case ACL_SHIM_FN_LOGICAL_OR:
            need(t, 3, {0, 1, 2}, "logical_or");
            return plain<typename E::Or>(name<E>("LogicalOr"), mm, t[0], t[1], t[2]);
        case ACL_SHIM_FN_LOGICAL_NOT:
            need(t, 2, {0, 1}, "logical_not");
            return plain<typename E::Not>(name<E>("LogicalNot"), mm, t[0], t[1]);
        case ACL_SHIM_FN_ARG_MAX: return arg_min_max<E>(t, p, "arg_max", R::ARG_IDX_MAX, mm);
        case ACL_SHIM_FN_ARG_MIN: return arg_min_max<E>(t, p, "arg_min", R::ARG_IDX_MIN, mm);
        case ACL_SHIM_FN_SELECT:
            need(t, 4, {0, 1, 2, 3}, "select");
            return plain<typename E::Select>(name<E>("Select"), mm, t[0], t[1], t[2], t[3]);
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_logic)

}  // namespace acl_shim_detail
