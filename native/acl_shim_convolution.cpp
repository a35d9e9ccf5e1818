// acl_shim_convolution.cpp -- the weighted layers room: one row per kind in build<E>, for NEON
// (E = Neon) and CL (E = Cl) alike, each with an optional bias / c operand.
//   convolution (src, weights, bias, dst): NEConvolutionLayer / CLConvolutionLayer, stride and
//     pad_* as a PadStrideInfo, a fused activation;
//   depthwise (src, weights, bias, dst): NEDepthwiseConvolutionLayer, depth_multiplier (0: 1);
//   fully_connected (src, weights, bias, dst): NEFullyConnectedLayer, transpose_weights;
//   gemm (a, b, c, dst): NEGEMM / CLGEMM, dst = alpha * a @ b + beta * c; with beta == 1 and
//     a c that ACL would take as a bias row (below), GEMM then an addition (a Sequence).
// A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its NE and CL types below, its row.
#include "acl_shim_families.h"

#include "acl_shim_descriptions.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEArithmeticAddition.h"
#include "arm_compute/runtime/NEON/functions/NEConvolutionLayer.h"
#include "arm_compute/runtime/NEON/functions/NEDepthwiseConvolutionLayer.h"
#include "arm_compute/runtime/NEON/functions/NEFullyConnectedLayer.h"
#include "arm_compute/runtime/NEON/functions/NEGEMM.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLConvolutionLayer.h"
#include "arm_compute/runtime/CL/functions/CLDepthwiseConvolutionLayer.h"
#include "arm_compute/runtime/CL/functions/CLElementwiseOperations.h"
#include "arm_compute/runtime/CL/functions/CLFullyConnectedLayer.h"
#include "arm_compute/runtime/CL/functions/CLGEMM.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_CONVOLUTION_TYPES(P)                        \
    using Add = acl::P##ArithmeticAddition;                  \
    using Convolution = acl::P##ConvolutionLayer;            \
    using Depthwise = acl::P##DepthwiseConvolutionLayer;     \
    using FullyConnected = acl::P##FullyConnectedLayer;      \
    using Gemm = acl::P##GEMM;

#if ACL_SHIM_WITH_NEON
struct Neon : NeonTag {
    ACL_SHIM_CONVOLUTION_TYPES(NE)
    static bool gemm_bias_by_addition(const acl::ITensorInfo *c) {
        return c->dimension(1) > 1 || ACL_SHIM_ACL_VERSION < 2411;
    }
};
#endif
#if ACL_SHIM_WITH_CL
struct Cl : ClTag {
    ACL_SHIM_CONVOLUTION_TYPES(CL)
    static bool gemm_bias_by_addition(const acl::ITensorInfo *) { return true; }
};
#endif
#undef ACL_SHIM_CONVOLUTION_TYPES

template <typename E, typename T>
std::unique_ptr<acl::IFunction> gemm(const acl_shim_params &p, const std::vector<T *> &t,
                                     const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 4, {0, 1, 3}, "gemm");
    // reshape_b_only_on_first_run=false: b may change between runs.
    acl::GEMMInfo gi(false, false, false);
    if (t[2] != nullptr && p.beta == 1.0f && E::gemm_bias_by_addition(t[2]->info())) {
        // Measured on 24.11: with beta == 1 NEGEMM takes c as a bias row and
        // broadcasts its first row (validate() accepts a full matrix); 20.08 rejects
        // a bias row; CLGEMM takes a bias row only with broadcast_bias. So compute
        // dst = alpha*a@b, then dst += c (broadcasting).
        check_status(E::Gemm::validate(t[0]->info(), t[1]->info(), nullptr, t[3]->info(), p.alpha, 0.0f, gi),
                     name<E>("GEMM").c_str());
        check_status(E::Add::validate(t[3]->info(), t[2]->info(), t[3]->info(), acl::ConvertPolicy::SATURATE),
                     name<E>("ArithmeticAddition").c_str());
        auto seq = std::make_unique<Sequence>();
        auto g = make<typename E::Gemm>(mm);
        g->configure(t[0], t[1], nullptr, t[3], p.alpha, 0.0f, gi);
        auto add = make<typename E::Add>(mm);
        add->configure(t[3], t[2], t[3], acl::ConvertPolicy::SATURATE);
        seq->parts.push_back(std::move(g));
        seq->parts.push_back(std::move(add));
        return seq;
    }
    check_status(E::Gemm::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), p.alpha, p.beta, gi),
                 name<E>("GEMM").c_str());
    auto f = make<typename E::Gemm>(mm);
    f->configure(t[0], t[1], t[2], t[3], p.alpha, p.beta, gi);
    return f;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_CONVOLUTION: {
            need(t, 4, {0, 1, 3}, "convolution");
            const auto ps = to_pad_stride(p);
            const acl::ActivationLayerInfo act = to_activation(p.activation, p.act_a, p.act_b);
            check_status(E::Convolution::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), ps,
                                                  acl::WeightsInfo(), acl::Size2D(1U, 1U), act),
                         name<E>("ConvolutionLayer").c_str());
            auto f = make<typename E::Convolution>(mm);
            f->configure(t[0], t[1], t[2], t[3], ps, acl::WeightsInfo(), acl::Size2D(1U, 1U), act);
            return f;
        }
        case ACL_SHIM_FN_DEPTHWISE: {
            need(t, 4, {0, 1, 3}, "depthwise");
            const auto ps = to_pad_stride(p);
            const unsigned int dm = p.depth_multiplier == 0 ? 1 : p.depth_multiplier;
            const acl::ActivationLayerInfo act = to_activation(p.activation, p.act_a, p.act_b);
            check_status(E::Depthwise::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), ps, dm, act),
                         name<E>("DepthwiseConvolutionLayer").c_str());
            auto f = make<typename E::Depthwise>(mm);
            f->configure(t[0], t[1], t[2], t[3], ps, dm, act);
            return f;
        }
        case ACL_SHIM_FN_FULLY_CONNECTED: {
            need(t, 4, {0, 1, 3}, "fully_connected");
            acl::FullyConnectedLayerInfo fc;
            fc.transpose_weights = p.transpose_weights != 0;
            fc.activation_info = to_activation(p.activation, p.act_a, p.act_b);
            check_status(E::FullyConnected::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), fc),
                         name<E>("FullyConnectedLayer").c_str());
            auto f = make<typename E::FullyConnected>(mm);
            f->configure(t[0], t[1], t[2], t[3], fc);
            return f;
        }
        case ACL_SHIM_FN_GEMM: return gemm<E>(p, t, mm);
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_convolution)

}  // namespace acl_shim_detail
