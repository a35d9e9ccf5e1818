// acl_shim_conversion.cpp -- the conversion room: a tensor's data type or quantization changed
// (src, dst): cast (NEDepthConvertLayer / CLDepthConvertLayer, params.convert_policy, shift
// 0), quantize (NEQuantizationLayer: float or quantized src to dst's quantization), dequantize
// (NEDequantizationLayer); one row per kind in build<E>, for NEON (E = Neon) and CL (E = Cl)
// alike. A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its NE and CL types below, its row.
#include "acl_shim_families.h"

#include "acl_shim_descriptions.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEDepthConvertLayer.h"
#include "arm_compute/runtime/NEON/functions/NEDequantizationLayer.h"
#include "arm_compute/runtime/NEON/functions/NEQuantizationLayer.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLDepthConvertLayer.h"
#include "arm_compute/runtime/CL/functions/CLDequantizationLayer.h"
#include "arm_compute/runtime/CL/functions/CLQuantizationLayer.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_CONVERSION_TYPES(P)                \
    using Cast = acl::P##DepthConvertLayer;         \
    using Quantize = acl::P##QuantizationLayer;     \
    using Dequantize = acl::P##DequantizationLayer;

ACL_SHIM_BACKEND_STRUCTS(ACL_SHIM_CONVERSION_TYPES)
#undef ACL_SHIM_CONVERSION_TYPES

// quantize and dequantize: validate(src, dst) / configure(src, dst) alike
template <typename Function, typename E, typename T>
std::unique_ptr<acl::IFunction> requantize(const std::vector<T *> &t, const std::shared_ptr<acl::IMemoryManager> &mm,
                                           const char *what, const char *acl_name) {
    need(t, 2, {0, 1}, what);
    check_status(Function::validate(t[0]->info(), t[1]->info()), name<E>(acl_name).c_str());
    auto f = make<Function>(mm);
    f->configure(t[0], t[1]);
    return f;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_CAST: {
            need(t, 2, {0, 1}, "cast");
            const auto policy = to_policy(p.convert_policy);
            check_status(E::Cast::validate(t[0]->info(), t[1]->info(), policy, 0), name<E>("DepthConvertLayer").c_str());
            auto f = make<typename E::Cast>(mm);
            f->configure(t[0], t[1], policy, 0);
            return f;
        }
        case ACL_SHIM_FN_QUANTIZE: return requantize<typename E::Quantize, E>(t, mm, "quantize", "QuantizationLayer");
        case ACL_SHIM_FN_DEQUANTIZE:
            return requantize<typename E::Dequantize, E>(t, mm, "dequantize", "DequantizationLayer");
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_conversion)

}  // namespace acl_shim_detail
