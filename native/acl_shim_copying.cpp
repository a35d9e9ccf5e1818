// acl_shim_copying.cpp -- the copying room: dst written from src's elements as they are
// (copy: NECopy / CLCopy), permuted (permute: params.perm, ACL order), padded (pad:
// params.pad_before / pad_after per ACL dimension, pad_mode, constant_value), or dst filled
// with params.constant_value (fill: dst alone); one row per kind in build<E>, for NEON
// (E = Neon) and CL (E = Cl) alike. A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its
// NE and CL types below, its row.
#include "acl_shim_families.h"

#include "acl_shim_descriptions.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NECopy.h"
#include "arm_compute/runtime/NEON/functions/NEFill.h"
#include "arm_compute/runtime/NEON/functions/NEPadLayer.h"
#include "arm_compute/runtime/NEON/functions/NEPermute.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLCopy.h"
#include "arm_compute/runtime/CL/functions/CLFill.h"
#include "arm_compute/runtime/CL/functions/CLPadLayer.h"
#include "arm_compute/runtime/CL/functions/CLPermute.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_COPYING_TYPES(P)              \
    using Permute = acl::P##Permute;           \
    using Copy = acl::P##Copy;                 \
    using Pad = acl::P##PadLayer;              \
    using Fill = acl::P##Fill;

ACL_SHIM_BACKEND_STRUCTS(ACL_SHIM_COPYING_TYPES)
#undef ACL_SHIM_COPYING_TYPES

template <typename E, typename T>
std::unique_ptr<acl::IFunction> pad(const acl_shim_params &p, const std::vector<T *> &t,
                                    const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 2, {0, 1}, "pad");
    require(p.pad_len >= 1 && p.pad_len <= ACL_SHIM_MAX_DIMS, "pad: pad_len must be 1..6");
    acl::PaddingList padding;
    for (int i = 0; i < p.pad_len; ++i) padding.emplace_back(p.pad_before[i], p.pad_after[i]);
    const acl::PaddingMode mode = to_pad_mode(p.pad_mode);
    const acl::PixelValue value = to_pixel(p.constant_value, t[0]->info());
#if ACL_SHIM_ACL_VERSION < 2411
    // Measured (bookworm, issue 37): 20.08's reflect padding of QASYMM8_SIGNED wrote
    // wrong values (2 of 98 right); its mirror modes on int8 are refused as a validate()
    // refusal, so the model runner's fallback pads instead.
    if (mode != acl::PaddingMode::CONSTANT && t[0]->info()->data_type() == acl::DataType::QASYMM8_SIGNED) {
        check_status(acl::Status(acl::ErrorCode::RUNTIME_ERROR,
                                 "reflect / symmetric padding of QASYMM8_SIGNED is unsupported on this ACL "
                                 "(measured wrong on 20.08)"),
                     name<E>("PadLayer").c_str());
    }
#endif
    check_status(E::Pad::validate(t[0]->info(), t[1]->info(), padding, value, mode), name<E>("PadLayer").c_str());
    auto f = make<typename E::Pad>(mm);
    f->configure(t[0], t[1], padding, value, mode);
    return f;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_PERMUTE: {
            need(t, 2, {0, 1}, "permute");
            require(p.perm_len >= 1 && p.perm_len <= ACL_SHIM_MAX_DIMS, "permute: perm_len must be 1..6");
            acl::PermutationVector perm;
            for (int i = 0; i < p.perm_len; ++i) perm.set(i, p.perm[i]);
            check_status(E::Permute::validate(t[0]->info(), t[1]->info(), perm), name<E>("Permute").c_str());
            auto f = make<typename E::Permute>(mm);
            f->configure(t[0], t[1], perm);
            return f;
        }
        case ACL_SHIM_FN_COPY: {
            need(t, 2, {0, 1}, "copy");
            check_status(E::Copy::validate(t[0]->info(), t[1]->info()), name<E>("Copy").c_str());
            auto f = make<typename E::Copy>(mm);
            f->configure(t[0], t[1]);
            return f;
        }
        case ACL_SHIM_FN_PAD: return pad<E>(p, t, mm);
        case ACL_SHIM_FN_FILL: {
            need(t, 1, {0}, "fill");
            const acl::PixelValue value = to_pixel(p.constant_value, t[0]->info());
            // NEFill has no validate() in 20.08; the data type was checked by to_pixel.
            auto f = make<typename E::Fill>(mm);
            f->configure(t[0], value);
            return f;
        }
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_copying)

}  // namespace acl_shim_detail
