// acl_shim_functions.cpp -- the functions room: every function kind of the ABI, configured by
// ONE template, build<F>, for NEON (F = NeonFunctions) and CL (F = ClFunctions) alike, and
// the choice of backend from the tensors. ACL names the two backends' functions alike
// (NE... and CL...), so one builder per kind serves both.
//
// THE RULE: a new function kind of a family that has a room (acl_shim_elementwise.cpp:
// elementwise binary and unary; acl_shim_reduction.cpp: reductions along one axis) is one row
// there; any other kind touches one C++ place, this
// file, plus its ACL_SHIM_FN_* constant (and tensor order) in acl_shim.h:
//   1. its NE and CL function headers (the two include blocks below),
//   2. its type in ACL_SHIM_FUNCTION_TYPES,
//   3. its builder: one case in build<F> (need() the tensors, validate(), configure()).
// A kind build<F> does not know goes to the family rooms (build_elementwise, build_reduction:
// one overload per backend's tensor type), each of which answers nullptr for kinds not its own. Converters of params fields live in
// acl_shim_descriptions.cpp; a kind that reads a field no kind read before adds that field to
// acl_shim_params (an ABI change) and, when it is an enum, its converter there. Nothing else in
// native/ knows the kinds: padding negotiation, the probe, check_layouts and function_create
// all go through build_on().
#include "acl_shim_functions.h"

#include "acl_shim_builders.h"
#include "acl_shim_descriptions.h"
#include "acl_shim_families.h"
#include "acl_shim_status.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEActivationLayer.h"
#include "arm_compute/runtime/NEON/functions/NEArithmeticAddition.h"
#include "arm_compute/runtime/NEON/functions/NEArithmeticSubtraction.h"
#include "arm_compute/runtime/NEON/functions/NEConvolutionLayer.h"
#include "arm_compute/runtime/NEON/functions/NECopy.h"
#include "arm_compute/runtime/NEON/functions/NEDepthConvertLayer.h"
#include "arm_compute/runtime/NEON/functions/NEDepthwiseConvolutionLayer.h"
#include "arm_compute/runtime/NEON/functions/NEDequantizationLayer.h"
#include "arm_compute/runtime/NEON/functions/NEFill.h"
#include "arm_compute/runtime/NEON/functions/NEFullyConnectedLayer.h"
#include "arm_compute/runtime/NEON/functions/NEGEMM.h"
#include "arm_compute/runtime/NEON/functions/NEPadLayer.h"
#include "arm_compute/runtime/NEON/functions/NEPermute.h"
#include "arm_compute/runtime/NEON/functions/NEPixelWiseMultiplication.h"
#include "arm_compute/runtime/NEON/functions/NEPReluLayer.h"
#include "arm_compute/runtime/NEON/functions/NEPoolingLayer.h"
#include "arm_compute/runtime/NEON/functions/NEQuantizationLayer.h"
#include "arm_compute/runtime/NEON/functions/NEScale.h"
#include "arm_compute/runtime/NEON/functions/NESoftmaxLayer.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLActivationLayer.h"
#include "arm_compute/runtime/CL/functions/CLConvolutionLayer.h"
#include "arm_compute/runtime/CL/functions/CLCopy.h"
#include "arm_compute/runtime/CL/functions/CLDepthConvertLayer.h"
#include "arm_compute/runtime/CL/functions/CLDepthwiseConvolutionLayer.h"
#include "arm_compute/runtime/CL/functions/CLDequantizationLayer.h"
#include "arm_compute/runtime/CL/functions/CLElementwiseOperations.h"
#include "arm_compute/runtime/CL/functions/CLFill.h"
#include "arm_compute/runtime/CL/functions/CLFullyConnectedLayer.h"
#include "arm_compute/runtime/CL/functions/CLGEMM.h"
#include "arm_compute/runtime/CL/functions/CLPadLayer.h"
#include "arm_compute/runtime/CL/functions/CLPermute.h"
#include "arm_compute/runtime/CL/functions/CLPixelWiseMultiplication.h"
#include "arm_compute/runtime/CL/functions/CLPReluLayer.h"
#include "arm_compute/runtime/CL/functions/CLPoolingLayer.h"
#include "arm_compute/runtime/CL/functions/CLQuantizationLayer.h"
#include "arm_compute/runtime/CL/functions/CLScale.h"
#include "arm_compute/runtime/CL/functions/CLSoftmaxLayer.h"
#endif

#include <memory>
#include <string>
#include <vector>

namespace acl_shim_detail {

namespace {

// The function types of each backend, for build<F>: ACL names them alike, NE... and CL...
#define ACL_SHIM_FUNCTION_TYPES(P)                           \
    static constexpr const char *prefix = #P;                \
    using Activation = acl::P##ActivationLayer;              \
    using Add = acl::P##ArithmeticAddition;                  \
    using Sub = acl::P##ArithmeticSubtraction;               \
    using Mul = acl::P##PixelWiseMultiplication;             \
    using Pooling = acl::P##PoolingLayer;                    \
    using Convolution = acl::P##ConvolutionLayer;            \
    using Depthwise = acl::P##DepthwiseConvolutionLayer;     \
    using FullyConnected = acl::P##FullyConnectedLayer;      \
    using Gemm = acl::P##GEMM;                               \
    using Softmax = acl::P##SoftmaxLayer;                    \
    using LogSoftmax = acl::P##LogSoftmaxLayer;              \
    using Permute = acl::P##Permute;                         \
    using Copy = acl::P##Copy;                               \
    using Pad = acl::P##PadLayer;                            \
    using Fill = acl::P##Fill;                               \
    using Cast = acl::P##DepthConvertLayer;                  \
    using Quantize = acl::P##QuantizationLayer;              \
    using Dequantize = acl::P##DequantizationLayer;          \
    using Scale = acl::P##Scale;                             \
    using PRelu = acl::P##PReluLayer;

#if ACL_SHIM_WITH_NEON
struct NeonFunctions {
    ACL_SHIM_FUNCTION_TYPES(NE)
    using ITensor = acl::ITensor;
    static ITensor *of(const TensorState &t) { return t.ne.get(); }
    static bool gemm_bias_by_addition(const acl::ITensorInfo *c) {
        return c->dimension(1) > 1 || ACL_SHIM_ACL_VERSION < 2411;
    }
};
#endif

#if ACL_SHIM_WITH_CL
struct ClFunctions {
    ACL_SHIM_FUNCTION_TYPES(CL)
    using ITensor = acl::ICLTensor;
    static ITensor *of(const TensorState &t) { return t.cl.get(); }
    static bool gemm_bias_by_addition(const acl::ITensorInfo *) { return true; }
};
#endif
#undef ACL_SHIM_FUNCTION_TYPES

// validate() then configure() one function kind on the given tensors of backend F, scratch
// tensors in mm's pool where mm is not null.
template <typename F>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p,
                                      const std::vector<typename F::ITensor *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    const acl::ActivationLayerInfo act = to_activation(p.activation, p.act_a, p.act_b);
    switch (kind) {
        case ACL_SHIM_FN_ACTIVATION: {
            need(t, 2, {0, 1}, "activation");
            require(p.activation != ACL_SHIM_ACT_NONE, "activation: no activation function given");
            check_status(F::Activation::validate(t[0]->info(), t[1]->info(), act), name<F>("ActivationLayer").c_str());
            auto f = make<typename F::Activation>(mm);
            f->configure(t[0], t[1], act);
            return f;
        }
        case ACL_SHIM_FN_ADD: {
            need(t, 3, {0, 1, 2}, "add");
            const auto policy = to_policy(p.convert_policy);
            check_status(F::Add::validate(t[0]->info(), t[1]->info(), t[2]->info(), policy, act),
                         name<F>("ArithmeticAddition").c_str());
            auto f = make<typename F::Add>(mm);
            f->configure(t[0], t[1], t[2], policy, act);
            return f;
        }
        case ACL_SHIM_FN_SUB: {
            need(t, 3, {0, 1, 2}, "sub");
            const auto policy = to_policy(p.convert_policy);
            check_status(F::Sub::validate(t[0]->info(), t[1]->info(), t[2]->info(), policy, act),
                         name<F>("ArithmeticSubtraction").c_str());
            auto f = make<typename F::Sub>(mm);
            f->configure(t[0], t[1], t[2], policy, act);
            return f;
        }
        case ACL_SHIM_FN_MUL: {
            need(t, 3, {0, 1, 2}, "mul");
            const auto policy = to_policy(p.convert_policy);
            const auto rounding = to_rounding(p.rounding_policy);
            check_status(F::Mul::validate(t[0]->info(), t[1]->info(), t[2]->info(), p.scale,
                                                                  policy, rounding, act),
                         name<F>("PixelWiseMultiplication").c_str());
            auto f = make<typename F::Mul>(mm);
            f->configure(t[0], t[1], t[2], p.scale, policy, rounding, act);
            return f;
        }
        case ACL_SHIM_FN_POOLING: {
            need(t, 2, {0, 1}, "pooling");
            require(p.kernel_w >= 1 && p.kernel_h >= 1, "pooling: kernel_w and kernel_h must be >= 1");
            const acl::PoolingLayerInfo info(to_pool(p.pool_type), acl::Size2D(p.kernel_w, p.kernel_h),
                                             t[0]->info()->data_layout(), to_pad_stride(p), p.exclude_padding != 0);
            check_status(F::Pooling::validate(t[0]->info(), t[1]->info(), info), name<F>("PoolingLayer").c_str());
            auto f = make<typename F::Pooling>(mm);
            f->configure(t[0], t[1], info);
            return f;
        }
        case ACL_SHIM_FN_CONVOLUTION: {
            need(t, 4, {0, 1, 3}, "convolution");
            const auto ps = to_pad_stride(p);
            check_status(F::Convolution::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), ps,
                                                           acl::WeightsInfo(), acl::Size2D(1U, 1U), act),
                         name<F>("ConvolutionLayer").c_str());
            auto f = make<typename F::Convolution>(mm);
            f->configure(t[0], t[1], t[2], t[3], ps, acl::WeightsInfo(), acl::Size2D(1U, 1U), act);
            return f;
        }
        case ACL_SHIM_FN_DEPTHWISE: {
            need(t, 4, {0, 1, 3}, "depthwise");
            const auto ps = to_pad_stride(p);
            const unsigned int dm = p.depth_multiplier == 0 ? 1 : p.depth_multiplier;
            check_status(F::Depthwise::validate(t[0]->info(), t[1]->info(), info_of(t[2]),
                                                                    t[3]->info(), ps, dm, act),
                         name<F>("DepthwiseConvolutionLayer").c_str());
            auto f = make<typename F::Depthwise>(mm);
            f->configure(t[0], t[1], t[2], t[3], ps, dm, act);
            return f;
        }
        case ACL_SHIM_FN_FULLY_CONNECTED: {
            need(t, 4, {0, 1, 3}, "fully_connected");
            acl::FullyConnectedLayerInfo fc;
            fc.transpose_weights = p.transpose_weights != 0;
            fc.activation_info = act;
            check_status(F::FullyConnected::validate(t[0]->info(), t[1]->info(), info_of(t[2]),
                                                              t[3]->info(), fc),
                         name<F>("FullyConnectedLayer").c_str());
            auto f = make<typename F::FullyConnected>(mm);
            f->configure(t[0], t[1], t[2], t[3], fc);
            return f;
        }
        case ACL_SHIM_FN_GEMM: {
            need(t, 4, {0, 1, 3}, "gemm");
            // reshape_b_only_on_first_run=false: b may change between runs.
            acl::GEMMInfo gi(false, false, false);
            if (t[2] != nullptr && p.beta == 1.0f && F::gemm_bias_by_addition(t[2]->info())) {
                // Measured on 24.11: with beta == 1 NEGEMM takes c as a bias row and
                // broadcasts its first row (validate() accepts a full matrix); 20.08 rejects
                // a bias row; CLGEMM takes a bias row only with broadcast_bias. So compute
                // dst = alpha*a@b, then dst += c (broadcasting).
                check_status(F::Gemm::validate(t[0]->info(), t[1]->info(), nullptr, t[3]->info(), p.alpha, 0.0f, gi),
                             name<F>("GEMM").c_str());
                check_status(F::Add::validate(t[3]->info(), t[2]->info(), t[3]->info(),
                                                                 acl::ConvertPolicy::SATURATE),
                             name<F>("ArithmeticAddition").c_str());
                auto seq = std::make_unique<Sequence>();
                auto g = make<typename F::Gemm>(mm);
                g->configure(t[0], t[1], nullptr, t[3], p.alpha, 0.0f, gi);
                auto add = make<typename F::Add>(mm);
                add->configure(t[3], t[2], t[3], acl::ConvertPolicy::SATURATE);
                seq->parts.push_back(std::move(g));
                seq->parts.push_back(std::move(add));
                return seq;
            }
            check_status(F::Gemm::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), p.alpha,
                                               p.beta, gi),
                         name<F>("GEMM").c_str());
            auto f = make<typename F::Gemm>(mm);
            f->configure(t[0], t[1], t[2], t[3], p.alpha, p.beta, gi);
            return f;
        }
        case ACL_SHIM_FN_SOFTMAX: {
            need(t, 2, {0, 1}, "softmax");
            check_status(F::Softmax::validate(t[0]->info(), t[1]->info(), p.beta, p.axis),
                         name<F>("SoftmaxLayer").c_str());
            auto f = make<typename F::Softmax>(mm);
            f->configure(t[0], t[1], p.beta, p.axis);
            return f;
        }
        case ACL_SHIM_FN_LOG_SOFTMAX: {
            need(t, 2, {0, 1}, "log_softmax");
            check_status(F::LogSoftmax::validate(t[0]->info(), t[1]->info(), p.beta, p.axis),
                         name<F>("LogSoftmaxLayer").c_str());
            auto f = make<typename F::LogSoftmax>(mm);
            f->configure(t[0], t[1], p.beta, p.axis);
            return f;
        }
        case ACL_SHIM_FN_PERMUTE: {
            need(t, 2, {0, 1}, "permute");
            require(p.perm_len >= 1 && p.perm_len <= ACL_SHIM_MAX_DIMS, "permute: perm_len must be 1..6");
            acl::PermutationVector perm;
            for (int i = 0; i < p.perm_len; ++i) perm.set(i, p.perm[i]);
            check_status(F::Permute::validate(t[0]->info(), t[1]->info(), perm), name<F>("Permute").c_str());
            auto f = make<typename F::Permute>(mm);
            f->configure(t[0], t[1], perm);
            return f;
        }
        case ACL_SHIM_FN_COPY: {
            need(t, 2, {0, 1}, "copy");
            check_status(F::Copy::validate(t[0]->info(), t[1]->info()), name<F>("Copy").c_str());
            auto f = make<typename F::Copy>(mm);
            f->configure(t[0], t[1]);
            return f;
        }
        case ACL_SHIM_FN_PAD: {
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
                             name<F>("PadLayer").c_str());
            }
#endif
            check_status(F::Pad::validate(t[0]->info(), t[1]->info(), padding, value, mode),
                         name<F>("PadLayer").c_str());
            auto f = make<typename F::Pad>(mm);
            f->configure(t[0], t[1], padding, value, mode);
            return f;
        }
        case ACL_SHIM_FN_FILL: {
            need(t, 1, {0}, "fill");
            const acl::PixelValue value = to_pixel(p.constant_value, t[0]->info());
            // NEFill has no validate() in 20.08; the data type was checked by to_pixel.
            auto f = make<typename F::Fill>(mm);
            f->configure(t[0], value);
            return f;
        }
        case ACL_SHIM_FN_CAST: {
            need(t, 2, {0, 1}, "cast");
            const auto policy = to_policy(p.convert_policy);
            check_status(F::Cast::validate(t[0]->info(), t[1]->info(), policy, 0),
                         name<F>("DepthConvertLayer").c_str());
            auto f = make<typename F::Cast>(mm);
            f->configure(t[0], t[1], policy, 0);
            return f;
        }
        case ACL_SHIM_FN_QUANTIZE: {
            need(t, 2, {0, 1}, "quantize");
            check_status(F::Quantize::validate(t[0]->info(), t[1]->info()),
                         name<F>("QuantizationLayer").c_str());
            auto f = make<typename F::Quantize>(mm);
            f->configure(t[0], t[1]);
            return f;
        }
        case ACL_SHIM_FN_DEQUANTIZE: {
            need(t, 2, {0, 1}, "dequantize");
            check_status(F::Dequantize::validate(t[0]->info(), t[1]->info()),
                         name<F>("DequantizationLayer").c_str());
            auto f = make<typename F::Dequantize>(mm);
            f->configure(t[0], t[1]);
            return f;
        }
        case ACL_SHIM_FN_RESIZE: {
            need(t, 2, {0, 1}, "resize");
            const acl::ScaleKernelInfo info = to_scale_info(p);
            check_status(F::Scale::validate(t[0]->info(), t[1]->info(), info), name<F>("Scale").c_str());
            auto f = make<typename F::Scale>(mm);
            f->configure(t[0], t[1], info);
            return f;
        }
        case ACL_SHIM_FN_PRELU: {
            need(t, 3, {0, 1, 2}, "prelu");
            check_status(F::PRelu::validate(t[0]->info(), t[1]->info(), t[2]->info()), name<F>("PReluLayer").c_str());
            auto f = make<typename F::PRelu>(mm);
            f->configure(t[0], t[1], t[2]);
            return f;
        }
        default: {
            // the family rooms: each answers nullptr for a kind that is not of its family
            if (auto f = build_elementwise(kind, p, t, mm)) return f;
            if (auto f = build_reduction(kind, p, t, mm)) return f;
            if (auto f = build_logic(kind, p, t, mm)) return f;
            if (auto f = build_movement(kind, p, t, mm)) return f;
            if (auto f = build_nn(kind, p, t, mm)) return f;
            if (auto f = build_detection(kind, p, t, mm)) return f;
            fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown function kind " + std::to_string(kind));
        }
    }
}


template <typename F>
std::unique_ptr<acl::IFunction> build_typed(int32_t kind, const acl_shim_params &p,
                                            const std::vector<TensorState *> &tensors,
                                            const std::shared_ptr<acl::IMemoryManager> &mm) {
    std::vector<typename F::ITensor *> t(tensors.size(), nullptr);
    for (size_t i = 0; i < tensors.size(); ++i) t[i] = tensors[i] == nullptr ? nullptr : F::of(*tensors[i]);
    return build<F>(kind, p, t, mm);
}

}  // namespace

std::unique_ptr<acl::IFunction> build_on(int32_t backend, int32_t kind, const acl_shim_params &p,
                                         const std::vector<TensorState *> &tensors,
                                         const std::shared_ptr<acl::IMemoryManager> &mm) {
    if (backend == ACL_SHIM_BACKEND_NEON) {
#if ACL_SHIM_WITH_NEON
        return build_typed<NeonFunctions>(kind, p, tensors, mm);
#else
        fail(ACL_SHIM_ERR_UNSUPPORTED, "this acl_bridge was built against an ACL without NE (NEON) functions "
                                       "(Debian's amd64 ACL is the OpenCL backend alone): use backend CL");
#endif
    }
    require(backend == ACL_SHIM_BACKEND_CL, "unknown backend " + std::to_string(backend) + " (0 NEON, 1 CL)");
#if ACL_SHIM_WITH_CL
    cl_ready();
    return build_typed<ClFunctions>(kind, p, tensors, mm);
#else
    cl_ready();  // fails: no CL backend in this build
    return nullptr;
#endif
}

int32_t common_backend(const std::vector<int32_t> &backends, const std::vector<bool> &present) {
    int32_t backend = -1;
    for (size_t i = 0; i < backends.size(); ++i) {
        if (!present[i]) continue;
        if (backend < 0) backend = backends[i];
        require(backends[i] == backend, "tensors mix backends: tensor " + std::to_string(i) + " has backend " +
                                            std::to_string(backends[i]) + ", an earlier one " + std::to_string(backend) +
                                            " (0 NEON, 1 CL); all tensors of a function must be on one backend");
    }
    return backend < 0 ? ACL_SHIM_BACKEND_NEON : backend;
}

int32_t common_backend(const acl_shim_tensor_desc *const *descs, int32_t n) {
    std::vector<int32_t> backends(n, 0);
    std::vector<bool> present(n, false);
    for (int32_t i = 0; i < n; ++i) {
        present[i] = descs[i] != nullptr;
        backends[i] = present[i] ? descs[i]->backend : 0;
    }
    return common_backend(backends, present);
}

}  // namespace acl_shim_detail
