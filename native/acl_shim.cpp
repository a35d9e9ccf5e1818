// acl_shim.cpp -- the C ABI of acl_shim.h implemented on the Arm Compute Library.
//
// Compiles against ACL 20.08 (Debian bookworm) and ACL 24.11 (Debian trixie).
// The version is detected at compile time from the headers (ACL_SHIM_ACL_VERSION);
// every API difference between the two is behind that one macro. The backends in the build
// (ACL_SHIM_WITH_NEON, ACL_SHIM_WITH_CL) are set by acl_bridge/_build.py; each function
// kind is configured by ONE template, build<Functions>, over the backend's function types.
//
// Boundary rule: every extern "C" function runs its body inside guarded(), which
// catches every C++ exception and turns it into a status + thread-local message.

#include "acl_shim.h"
#include "acl_shim_internal.h"

// ACL >= 23.05 moved ActivationLayerInfo & co. into arm_compute/function_info/.
#if __has_include("arm_compute/function_info/ActivationLayerInfo.h")
#define ACL_SHIM_ACL_VERSION 2411
#else
#define ACL_SHIM_ACL_VERSION 2008
#endif

#include "arm_compute/core/CPP/CPPTypes.h"
#include "arm_compute/core/Error.h"
#include "arm_compute/core/TensorInfo.h"
#include "arm_compute/core/Types.h"
#include "arm_compute/core/Version.h"
#include "arm_compute/runtime/NEON/NEScheduler.h"
#include "arm_compute/runtime/Tensor.h"

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

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

using namespace acl_shim_detail;

std::string &acl_shim_detail::last_error() {
    thread_local std::string message;
    return message;
}

namespace {

acl::DataType to_data_type(int32_t dt) {
    switch (dt) {
        case ACL_SHIM_DT_F32: return acl::DataType::F32;
        case ACL_SHIM_DT_F16: return acl::DataType::F16;
        case ACL_SHIM_DT_S32: return acl::DataType::S32;
        case ACL_SHIM_DT_U8: return acl::DataType::U8;
        case ACL_SHIM_DT_QASYMM8: return acl::DataType::QASYMM8;
        case ACL_SHIM_DT_QASYMM8_SIGNED: return acl::DataType::QASYMM8_SIGNED;
        case ACL_SHIM_DT_S8: return acl::DataType::S8;
        case ACL_SHIM_DT_S16: return acl::DataType::S16;
        case ACL_SHIM_DT_U16: return acl::DataType::U16;
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown data_type " + std::to_string(dt));
    }
}

acl::DataLayout to_layout(int32_t layout) {
    switch (layout) {
        case ACL_SHIM_LAYOUT_NCHW: return acl::DataLayout::NCHW;
        case ACL_SHIM_LAYOUT_NHWC: return acl::DataLayout::NHWC;
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown data_layout " + std::to_string(layout));
    }
}

acl::TensorShape to_shape(const acl_shim_tensor_desc &d) {
    require(d.num_dims >= 1 && d.num_dims <= ACL_SHIM_MAX_DIMS,
            "num_dims is " + std::to_string(d.num_dims) + ", expected 1..6");
    acl::TensorShape shape;
    for (int i = 0; i < d.num_dims; ++i) {
        require(d.shape[i] >= 1, "shape[" + std::to_string(i) + "] is 0; ACL cannot express empty tensors");
        shape.set(i, d.shape[i]);
    }
    return shape;
}

void set_common(acl::TensorInfo &info, const acl_shim_tensor_desc &d) {
    info.set_data_layout(to_layout(d.data_layout));
    if (d.data_type == ACL_SHIM_DT_QASYMM8 || d.data_type == ACL_SHIM_DT_QASYMM8_SIGNED) {
        require(d.quantization_scale > 0.0f, "quantized tensor needs quantization_scale > 0");
        info.set_quantization_info(acl::QuantizationInfo(d.quantization_scale, d.quantization_offset));
    }
}

std::string describe(const acl::ITensorInfo &info) {
    std::string s = "shape [";
    for (size_t i = 0; i < info.num_dimensions(); ++i) s += (i ? "," : "") + std::to_string(info.tensor_shape()[i]);
    s += "] strides [";
    for (size_t i = 0; i < info.num_dimensions(); ++i) s += (i ? "," : "") + std::to_string(info.strides_in_bytes()[i]);
    s += "] offset " + std::to_string(info.offset_first_element_in_bytes()) + " total " +
         std::to_string(info.total_size());
    return s;
}

// An info that describes existing memory exactly, not resizable: either ACL's own padded
// layout with the padding declared (extend_padding), or custom strides (padding() = 0).
acl::TensorInfo imported_info(const acl_shim_tensor_desc &d) {
    acl::TensorShape shape = to_shape(d);
    acl::TensorInfo info;
    if (d.declare_padding) {
        info = acl::TensorInfo(shape, 1, to_data_type(d.data_type));
        info.extend_padding(acl::PaddingSize(d.padding_top, d.padding_right, d.padding_bottom, d.padding_left));
        bool same = info.offset_first_element_in_bytes() == d.offset_first_element_in_bytes &&
                    info.total_size() <= d.total_size_in_bytes;
        // dimensions of size 1 are never stepped along (ACL leaves trailing ones out)
        for (int i = 0; i < d.num_dims; ++i)
            same = same && (d.shape[i] == 1 || info.strides_in_bytes()[i] == d.strides_in_bytes[i]);
        require(same, "declared padding gives ACL layout " + describe(info) +
                          " which is not the memory described (offset " +
                          std::to_string(d.offset_first_element_in_bytes) + ", total " +
                          std::to_string(d.total_size_in_bytes) + ")");
    } else {
        acl::Strides strides;
        for (int i = 0; i < d.num_dims; ++i) {
            require(d.strides_in_bytes[i] <= 0xffffffffu, "stride does not fit ACL's uint32 strides");
            strides.set(i, static_cast<uint32_t>(d.strides_in_bytes[i]));
        }
        info.init(shape, 1, to_data_type(d.data_type), strides, d.offset_first_element_in_bytes,
                  d.total_size_in_bytes);
    }
    set_common(info, d);
    info.set_is_resizable(false);
    return info;
}

// Marks the bytes of every element of a tensor described by d (true = element byte).
[[maybe_unused]] void mark_elements(const acl_shim_tensor_desc &d, size_t element_size, std::vector<bool> &mask) {
    std::vector<uint64_t> coord(d.num_dims, 0);
    for (;;) {
        uint64_t off = d.offset_first_element_in_bytes;
        for (int i = 0; i < d.num_dims; ++i) off += coord[i] * d.strides_in_bytes[i];
        for (size_t b = 0; b < element_size && off + b < mask.size(); ++b) mask[off + b] = true;
        int i = 0;
        while (i < d.num_dims && ++coord[i] == d.shape[i]) coord[i++] = 0;
        if (i == d.num_dims) break;
    }
}

// An info with the shape and type only, resizable: ACL may ask for padding.
acl::TensorInfo resizable_info(const acl_shim_tensor_desc &d) {
    acl::TensorInfo info(to_shape(d), 1, to_data_type(d.data_type));
    set_common(info, d);
    return info;
}

acl::ActivationLayerInfo to_activation(int32_t act, float a, float b) {
    using F = acl::ActivationLayerInfo::ActivationFunction;
    F f;
    switch (act) {
        case ACL_SHIM_ACT_NONE: return acl::ActivationLayerInfo();
        case ACL_SHIM_ACT_RELU: f = F::RELU; break;
        case ACL_SHIM_ACT_BOUNDED_RELU: f = F::BOUNDED_RELU; break;
        case ACL_SHIM_ACT_LU_BOUNDED_RELU: f = F::LU_BOUNDED_RELU; break;
        case ACL_SHIM_ACT_LEAKY_RELU: f = F::LEAKY_RELU; break;
        case ACL_SHIM_ACT_LOGISTIC: f = F::LOGISTIC; break;
        case ACL_SHIM_ACT_TANH: f = F::TANH; break;
        case ACL_SHIM_ACT_SOFT_RELU: f = F::SOFT_RELU; break;
        case ACL_SHIM_ACT_ELU: f = F::ELU; break;
        case ACL_SHIM_ACT_ABS: f = F::ABS; break;
        case ACL_SHIM_ACT_SQUARE: f = F::SQUARE; break;
        case ACL_SHIM_ACT_SQRT: f = F::SQRT; break;
        case ACL_SHIM_ACT_LINEAR: f = F::LINEAR; break;
        case ACL_SHIM_ACT_IDENTITY: f = F::IDENTITY; break;
        case ACL_SHIM_ACT_HARD_SWISH: f = F::HARD_SWISH; break;
#if ACL_SHIM_ACL_VERSION >= 2411
        case ACL_SHIM_ACT_SWISH: f = F::SWISH; break;
        case ACL_SHIM_ACT_GELU: f = F::GELU; break;
#else
        case ACL_SHIM_ACT_SWISH:
        case ACL_SHIM_ACT_GELU:
            fail(ACL_SHIM_ERR_UNSUPPORTED, "activation " + std::to_string(act) + " needs ACL >= 24.11");
#endif
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown activation " + std::to_string(act));
    }
    return acl::ActivationLayerInfo(f, a, b);
}

acl::ConvertPolicy to_policy(int32_t p) {
    switch (p) {
        case ACL_SHIM_POLICY_WRAP: return acl::ConvertPolicy::WRAP;
        case ACL_SHIM_POLICY_SATURATE: return acl::ConvertPolicy::SATURATE;
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown convert_policy " + std::to_string(p));
    }
}

acl::RoundingPolicy to_rounding(int32_t p) {
    switch (p) {
        case ACL_SHIM_ROUND_TO_ZERO: return acl::RoundingPolicy::TO_ZERO;
        case ACL_SHIM_ROUND_TO_NEAREST_UP: return acl::RoundingPolicy::TO_NEAREST_UP;
        case ACL_SHIM_ROUND_TO_NEAREST_EVEN: return acl::RoundingPolicy::TO_NEAREST_EVEN;
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown rounding_policy " + std::to_string(p));
    }
}

acl::PoolingType to_pool(int32_t p) {
    switch (p) {
        case ACL_SHIM_POOL_MAX: return acl::PoolingType::MAX;
        case ACL_SHIM_POOL_AVG: return acl::PoolingType::AVG;
        case ACL_SHIM_POOL_L2: return acl::PoolingType::L2;
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown pool_type " + std::to_string(p));
    }
}

// Resize: TFLite samples outside the input at the nearest edge element (its indices are
// clamped), which is ACL's REPLICATE border. Both 20.08 and 24.11 take a ScaleKernelInfo.
// use_padding: 24.11 refused it on the first case tried (NCHW bilinear with align_corners:
// "CpuScaleKernel.cpp:354: Padding is not supported") and passes every case without it, its
// kernels clamping at the border; 20.08's read the border from the input's padding
// (negotiated like any other padding).
acl::ScaleKernelInfo to_scale_info(const acl_shim_params &p) {
    acl::InterpolationPolicy policy;
    switch (p.interpolation) {
        case ACL_SHIM_INTERP_NEAREST: policy = acl::InterpolationPolicy::NEAREST_NEIGHBOR; break;
        case ACL_SHIM_INTERP_BILINEAR: policy = acl::InterpolationPolicy::BILINEAR; break;
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown interpolation " + std::to_string(p.interpolation));
    }
    acl::SamplingPolicy sampling;
    switch (p.sampling) {
        case ACL_SHIM_SAMPLING_CENTER: sampling = acl::SamplingPolicy::CENTER; break;
        case ACL_SHIM_SAMPLING_TOP_LEFT: sampling = acl::SamplingPolicy::TOP_LEFT; break;
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown sampling " + std::to_string(p.sampling));
    }
    require(!p.align_corners || p.sampling == ACL_SHIM_SAMPLING_TOP_LEFT,
            "resize: align_corners needs TOP_LEFT sampling (ACL ignores it with CENTER)");
    const bool use_padding = ACL_SHIM_ACL_VERSION < 2411;
    return acl::ScaleKernelInfo(policy, acl::BorderMode::REPLICATE, acl::PixelValue(), sampling, use_padding,
                                p.align_corners != 0);
}

acl::PadStrideInfo to_pad_stride(const acl_shim_params &p) {
    require(p.stride_x >= 1 && p.stride_y >= 1, "stride_x and stride_y must be >= 1");
    return acl::PadStrideInfo(p.stride_x, p.stride_y, p.pad_left, p.pad_right, p.pad_top, p.pad_bottom,
                              acl::DimensionRoundingType::FLOOR);
}

acl::PixelValue to_pixel(double v, const acl::ITensorInfo *info) {
    switch (info->data_type()) {
        case acl::DataType::F32: return acl::PixelValue(static_cast<float>(v));
        case acl::DataType::F16: return acl::PixelValue(static_cast<double>(v), acl::DataType::F16);
        case acl::DataType::S32: return acl::PixelValue(static_cast<int32_t>(v));
        case acl::DataType::U8: return acl::PixelValue(static_cast<uint8_t>(v));
        case acl::DataType::S8: return acl::PixelValue(static_cast<int8_t>(v));
        case acl::DataType::S16: return acl::PixelValue(static_cast<int16_t>(v));
        case acl::DataType::U16: return acl::PixelValue(static_cast<uint16_t>(v));
        // quantized: the value given is already the stored (quantized) integer
        case acl::DataType::QASYMM8: return acl::PixelValue(static_cast<uint8_t>(v));
        case acl::DataType::QASYMM8_SIGNED: return acl::PixelValue(static_cast<int8_t>(v));
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "no constant value for this data type");
    }
}

acl::ITensorInfo *info_of(acl::ITensor *t) { return t == nullptr ? nullptr : t->info(); }

template <typename T>
void need(const std::vector<T *> &t, size_t n, std::initializer_list<size_t> required,
          const char *name) {
    require(t.size() == n, std::string(name) + " takes " + std::to_string(n) + " tensors, got " +
                               std::to_string(t.size()));
    for (size_t i : required) {
        require(t[i] != nullptr, std::string(name) + ": tensor " + std::to_string(i) + " is required");
    }
}

// Functions run one after the other (for compositions the shim adds around ACL quirks).
struct Sequence : acl::IFunction {
    std::vector<std::unique_ptr<acl::IFunction>> parts;
    void run() override {
        for (auto &f : parts) f->run();
    }
    void prepare() override {
        for (auto &f : parts) f->prepare();
    }
};

// "NE" or "CL" + the function's name + "::validate", for messages.
template <typename F>
std::string name(const char *function) {
    return std::string(F::prefix) + function + "::validate";
}

// validate() then configure() one function kind on the given tensors of backend F.
template <typename F>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p,
                                      const std::vector<typename F::ITensor *> &t) {
    const acl::ActivationLayerInfo act = to_activation(p.activation, p.act_a, p.act_b);
    switch (kind) {
        case ACL_SHIM_FN_ACTIVATION: {
            need(t, 2, {0, 1}, "activation");
            require(p.activation != ACL_SHIM_ACT_NONE, "activation: no activation function given");
            check_status(F::Activation::validate(t[0]->info(), t[1]->info(), act), name<F>("ActivationLayer").c_str());
            auto f = std::make_unique<typename F::Activation>();
            f->configure(t[0], t[1], act);
            return f;
        }
        case ACL_SHIM_FN_ADD: {
            need(t, 3, {0, 1, 2}, "add");
            const auto policy = to_policy(p.convert_policy);
            check_status(F::Add::validate(t[0]->info(), t[1]->info(), t[2]->info(), policy, act),
                         name<F>("ArithmeticAddition").c_str());
            auto f = std::make_unique<typename F::Add>();
            f->configure(t[0], t[1], t[2], policy, act);
            return f;
        }
        case ACL_SHIM_FN_SUB: {
            need(t, 3, {0, 1, 2}, "sub");
            const auto policy = to_policy(p.convert_policy);
            check_status(F::Sub::validate(t[0]->info(), t[1]->info(), t[2]->info(), policy, act),
                         name<F>("ArithmeticSubtraction").c_str());
            auto f = std::make_unique<typename F::Sub>();
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
            auto f = std::make_unique<typename F::Mul>();
            f->configure(t[0], t[1], t[2], p.scale, policy, rounding, act);
            return f;
        }
        case ACL_SHIM_FN_POOLING: {
            need(t, 2, {0, 1}, "pooling");
            require(p.kernel_w >= 1 && p.kernel_h >= 1, "pooling: kernel_w and kernel_h must be >= 1");
            const acl::PoolingLayerInfo info(to_pool(p.pool_type), acl::Size2D(p.kernel_w, p.kernel_h),
                                             t[0]->info()->data_layout(), to_pad_stride(p), p.exclude_padding != 0);
            check_status(F::Pooling::validate(t[0]->info(), t[1]->info(), info), name<F>("PoolingLayer").c_str());
            auto f = std::make_unique<typename F::Pooling>();
            f->configure(t[0], t[1], info);
            return f;
        }
        case ACL_SHIM_FN_CONVOLUTION: {
            need(t, 4, {0, 1, 3}, "convolution");
            const auto ps = to_pad_stride(p);
            check_status(F::Convolution::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), ps,
                                                           acl::WeightsInfo(), acl::Size2D(1U, 1U), act),
                         name<F>("ConvolutionLayer").c_str());
            auto f = std::make_unique<typename F::Convolution>();
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
            auto f = std::make_unique<typename F::Depthwise>();
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
            auto f = std::make_unique<typename F::FullyConnected>();
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
                auto g = std::make_unique<typename F::Gemm>();
                g->configure(t[0], t[1], nullptr, t[3], p.alpha, 0.0f, gi);
                auto add = std::make_unique<typename F::Add>();
                add->configure(t[3], t[2], t[3], acl::ConvertPolicy::SATURATE);
                seq->parts.push_back(std::move(g));
                seq->parts.push_back(std::move(add));
                return seq;
            }
            check_status(F::Gemm::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), p.alpha,
                                               p.beta, gi),
                         name<F>("GEMM").c_str());
            auto f = std::make_unique<typename F::Gemm>();
            f->configure(t[0], t[1], t[2], t[3], p.alpha, p.beta, gi);
            return f;
        }
        case ACL_SHIM_FN_SOFTMAX: {
            need(t, 2, {0, 1}, "softmax");
            check_status(F::Softmax::validate(t[0]->info(), t[1]->info(), p.beta, p.axis),
                         name<F>("SoftmaxLayer").c_str());
            auto f = std::make_unique<typename F::Softmax>();
            f->configure(t[0], t[1], p.beta, p.axis);
            return f;
        }
        case ACL_SHIM_FN_LOG_SOFTMAX: {
            need(t, 2, {0, 1}, "log_softmax");
            check_status(F::LogSoftmax::validate(t[0]->info(), t[1]->info(), p.beta, p.axis),
                         name<F>("LogSoftmaxLayer").c_str());
            auto f = std::make_unique<typename F::LogSoftmax>();
            f->configure(t[0], t[1], p.beta, p.axis);
            return f;
        }
        case ACL_SHIM_FN_PERMUTE: {
            need(t, 2, {0, 1}, "permute");
            require(p.perm_len >= 1 && p.perm_len <= ACL_SHIM_MAX_DIMS, "permute: perm_len must be 1..6");
            acl::PermutationVector perm;
            for (int i = 0; i < p.perm_len; ++i) perm.set(i, p.perm[i]);
            check_status(F::Permute::validate(t[0]->info(), t[1]->info(), perm), name<F>("Permute").c_str());
            auto f = std::make_unique<typename F::Permute>();
            f->configure(t[0], t[1], perm);
            return f;
        }
        case ACL_SHIM_FN_COPY: {
            need(t, 2, {0, 1}, "copy");
            check_status(F::Copy::validate(t[0]->info(), t[1]->info()), name<F>("Copy").c_str());
            auto f = std::make_unique<typename F::Copy>();
            f->configure(t[0], t[1]);
            return f;
        }
        case ACL_SHIM_FN_PAD: {
            need(t, 2, {0, 1}, "pad");
            require(p.pad_len >= 1 && p.pad_len <= ACL_SHIM_MAX_DIMS, "pad: pad_len must be 1..6");
            acl::PaddingList padding;
            for (int i = 0; i < p.pad_len; ++i) padding.emplace_back(p.pad_before[i], p.pad_after[i]);
            acl::PaddingMode mode;
            switch (p.pad_mode) {
                case ACL_SHIM_PAD_CONSTANT: mode = acl::PaddingMode::CONSTANT; break;
                case ACL_SHIM_PAD_REFLECT: mode = acl::PaddingMode::REFLECT; break;
                case ACL_SHIM_PAD_SYMMETRIC: mode = acl::PaddingMode::SYMMETRIC; break;
                default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown pad_mode " + std::to_string(p.pad_mode));
            }
            const acl::PixelValue value = to_pixel(p.constant_value, t[0]->info());
            check_status(F::Pad::validate(t[0]->info(), t[1]->info(), padding, value, mode),
                         name<F>("PadLayer").c_str());
            auto f = std::make_unique<typename F::Pad>();
            f->configure(t[0], t[1], padding, value, mode);
            return f;
        }
        case ACL_SHIM_FN_FILL: {
            need(t, 1, {0}, "fill");
            const acl::PixelValue value = to_pixel(p.constant_value, t[0]->info());
            // NEFill has no validate() in 20.08; the data type was checked by to_pixel.
            auto f = std::make_unique<typename F::Fill>();
            f->configure(t[0], value);
            return f;
        }
        case ACL_SHIM_FN_CAST: {
            need(t, 2, {0, 1}, "cast");
            const auto policy = to_policy(p.convert_policy);
            check_status(F::Cast::validate(t[0]->info(), t[1]->info(), policy, 0),
                         name<F>("DepthConvertLayer").c_str());
            auto f = std::make_unique<typename F::Cast>();
            f->configure(t[0], t[1], policy, 0);
            return f;
        }
        case ACL_SHIM_FN_QUANTIZE: {
            need(t, 2, {0, 1}, "quantize");
            check_status(F::Quantize::validate(t[0]->info(), t[1]->info()),
                         name<F>("QuantizationLayer").c_str());
            auto f = std::make_unique<typename F::Quantize>();
            f->configure(t[0], t[1]);
            return f;
        }
        case ACL_SHIM_FN_DEQUANTIZE: {
            need(t, 2, {0, 1}, "dequantize");
            check_status(F::Dequantize::validate(t[0]->info(), t[1]->info()),
                         name<F>("DequantizationLayer").c_str());
            auto f = std::make_unique<typename F::Dequantize>();
            f->configure(t[0], t[1]);
            return f;
        }
        case ACL_SHIM_FN_RESIZE: {
            need(t, 2, {0, 1}, "resize");
            const acl::ScaleKernelInfo info = to_scale_info(p);
            check_status(F::Scale::validate(t[0]->info(), t[1]->info(), info), name<F>("Scale").c_str());
            auto f = std::make_unique<typename F::Scale>();
            f->configure(t[0], t[1], info);
            return f;
        }
        case ACL_SHIM_FN_PRELU: {
            need(t, 3, {0, 1, 2}, "prelu");
            check_status(F::PRelu::validate(t[0]->info(), t[1]->info(), t[2]->info()), name<F>("PReluLayer").c_str());
            auto f = std::make_unique<typename F::PRelu>();
            f->configure(t[0], t[1], t[2]);
            return f;
        }
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown function kind " + std::to_string(kind));
    }
}

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

std::vector<int32_t> backends_of(const acl_shim_tensor_desc *const *descs, int32_t n) {
    std::vector<int32_t> b(n, 0);
    for (int32_t i = 0; i < n; ++i) b[i] = descs[i] == nullptr ? 0 : descs[i]->backend;
    return b;
}

std::vector<bool> present_of(const acl_shim_tensor_desc *const *descs, int32_t n) {
    std::vector<bool> p(n, false);
    for (int32_t i = 0; i < n; ++i) p[i] = descs[i] != nullptr;
    return p;
}

// The one backend of a function's tensors (NULL entries skipped); mixing is an error.
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

template <typename F>
std::unique_ptr<acl::IFunction> build_typed(int32_t kind, const acl_shim_params &p,
                                            const std::vector<TensorState *> &tensors) {
    std::vector<typename F::ITensor *> t(tensors.size(), nullptr);
    for (size_t i = 0; i < tensors.size(); ++i) t[i] = tensors[i] == nullptr ? nullptr : F::of(*tensors[i]);
    return build<F>(kind, p, t);
}

// build<> of the tensors' backend (which must be in this build).
std::unique_ptr<acl::IFunction> build_on(int32_t backend, int32_t kind, const acl_shim_params &p,
                                         const std::vector<TensorState *> &tensors) {
    if (backend == ACL_SHIM_BACKEND_NEON) {
#if ACL_SHIM_WITH_NEON
        return build_typed<NeonFunctions>(kind, p, tensors);
#else
        fail(ACL_SHIM_ERR_UNSUPPORTED, "this acl_bridge was built against an ACL without NE (NEON) functions "
                                       "(Debian's amd64 ACL is the OpenCL backend alone): use backend CL");
#endif
    }
    require(backend == ACL_SHIM_BACKEND_CL, "unknown backend " + std::to_string(backend) + " (0 NEON, 1 CL)");
#if ACL_SHIM_WITH_CL
    cl_ready();
    return build_typed<ClFunctions>(kind, p, tensors);
#else
    cl_ready();  // fails: no CL backend in this build
    return nullptr;
#endif
}

// Runs a configured function; CL: host bytes to the device before, results back after.
void run_on(acl::IFunction &f, const Tensors &tensors) {
    before_run(tensors);
    f.run();
    after_run(tensors);
}

// Calls fn(linear index, byte offset in a, byte offset in b) for every element of two
// tensors of the same shape (a and b may have different strides and offsets).
template <typename Fn>
void for_each_element(const acl::ITensorInfo &a, const acl::ITensorInfo &b, Fn &&fn) {
    const acl::TensorShape &shape = a.tensor_shape();
    const size_t dims = std::max<size_t>(1, shape.num_dimensions());
    std::vector<size_t> coord(dims, 0);
    for (uint64_t k = 0;; ++k) {
        size_t oa = a.offset_first_element_in_bytes(), ob = b.offset_first_element_in_bytes();
        for (size_t i = 0; i < dims; ++i) {
            oa += coord[i] * a.strides_in_bytes()[i];
            ob += coord[i] * b.strides_in_bytes()[i];
        }
        fn(k, oa, ob);
        size_t i = 0;
        while (i < dims && ++coord[i] == shape[i]) coord[i++] = 0;
        if (i == dims) break;
    }
}

// IEEE half bits of a float that is exactly representable (the probe's values are).
uint16_t to_half_bits(float v) {
    uint32_t x;
    std::memcpy(&x, &v, 4);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
    if ((x & 0x7fffffffu) == 0 || exp <= 0) return sign;
    return static_cast<uint16_t>(sign | (exp << 10) | ((x >> 13) & 0x3ffu));
}

float from_half_bits(uint16_t h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    const int exp = (h >> 10) & 0x1f;
    const uint32_t mant = h & 0x3ffu;
    uint32_t x;
    if (exp == 0) {
        float f = std::ldexp(static_cast<float>(mant), -24);
        return (h & 0x8000u) ? -f : f;
    } else if (exp == 31) {
        x = sign | 0x7f800000u | (mant << 13);
    } else {
        x = sign | static_cast<uint32_t>(exp - 15 + 127) << 23 | (mant << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

// The probe's element values: small, varied, exact in every data type.
void write_value(acl::DataType dt, uint64_t k, uint8_t *p) {
    const int v = static_cast<int>(k % 13);
    switch (dt) {
        case acl::DataType::F32: { float f = (v - 6) * 0.125f; std::memcpy(p, &f, 4); break; }
        case acl::DataType::F16: { uint16_t h = to_half_bits((v - 6) * 0.125f); std::memcpy(p, &h, 2); break; }
        case acl::DataType::S32: { int32_t i = v - 6; std::memcpy(p, &i, 4); break; }
        case acl::DataType::S16: { int16_t i = static_cast<int16_t>(v - 6); std::memcpy(p, &i, 2); break; }
        case acl::DataType::U16: { uint16_t i = static_cast<uint16_t>(v); std::memcpy(p, &i, 2); break; }
        case acl::DataType::S8:
        case acl::DataType::QASYMM8_SIGNED: *reinterpret_cast<int8_t *>(p) = static_cast<int8_t>(v - 6); break;
        default: *p = static_cast<uint8_t>(v); break;
    }
}

bool same_float(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::fabs(a - b) <= 1e-3f * std::max(1.0f, std::fabs(b));
}

bool same_value(acl::DataType dt, const uint8_t *a, const uint8_t *b) {
    switch (dt) {
        case acl::DataType::F32: { float x, y; std::memcpy(&x, a, 4); std::memcpy(&y, b, 4); return same_float(x, y); }
        case acl::DataType::F16: { uint16_t x, y; std::memcpy(&x, a, 2); std::memcpy(&y, b, 2);
                                   return same_float(from_half_bits(x), from_half_bits(y)); }
        case acl::DataType::S32: { int32_t x, y; std::memcpy(&x, a, 4); std::memcpy(&y, b, 4);
                                   return std::llabs(static_cast<long long>(x) - y) <= 1; }
        case acl::DataType::S16: { int16_t x, y; std::memcpy(&x, a, 2); std::memcpy(&y, b, 2); return std::abs(x - y) <= 1; }
        case acl::DataType::U16: { uint16_t x, y; std::memcpy(&x, a, 2); std::memcpy(&y, b, 2); return std::abs(x - y) <= 1; }
        case acl::DataType::S8:
        case acl::DataType::QASYMM8_SIGNED:
            return std::abs(*reinterpret_cast<const int8_t *>(a) - *reinterpret_cast<const int8_t *>(b)) <= 1;
        default: return std::abs(static_cast<int>(*a) - static_cast<int>(*b)) <= 1;
    }
}

// Tensors without memory for descs[0..n) on one backend, their infos made by make_info
// (resizable_info: ACL may pad them; imported_info: exactly the described layout); a NULL
// desc stays an absent tensor. ptrs receives the pointers build_on() takes.
Tensors scratch_tensors(int32_t backend, const acl_shim_tensor_desc *const *descs, int32_t n,
                        acl::TensorInfo (*make_info)(const acl_shim_tensor_desc &),
                        std::vector<TensorState *> &ptrs) {
    Tensors owned(n);
    ptrs.assign(n, nullptr);
    for (int i = 0; i < n; ++i) {
        if (descs[i] == nullptr) continue;
        owned[i] = make_tensor(backend, make_info(*descs[i]));
        ptrs[i] = owned[i].get();
    }
    return owned;
}

}  // namespace

extern "C" {

int32_t acl_shim_abi_version(void) { return ACL_SHIM_ABI_VERSION; }

int32_t acl_shim_compiled_acl_version(void) { return ACL_SHIM_ACL_VERSION; }

const char *acl_shim_last_error(void) { return last_error().c_str(); }

int32_t acl_shim_build_information(char *buf, uint64_t capacity, uint64_t *needed) {
    return guarded([&] {
        const std::string s = acl::build_information();
        if (needed != nullptr) *needed = s.size() + 1;
        if (buf != nullptr && capacity > 0) {
            const size_t n = std::min<uint64_t>(s.size(), capacity - 1);
            std::memcpy(buf, s.data(), n);
            buf[n] = '\0';
        }
    });
}

int32_t acl_shim_set_num_threads(uint32_t num_threads) {
    return guarded([&] { acl::NEScheduler::get().set_num_threads(num_threads); });
}

int32_t acl_shim_cpu_report_get(acl_shim_cpu_report *out) {
    return guarded([&] {
        require(out != nullptr, "out is NULL");
        const acl::CPUInfo &ci = acl::NEScheduler::get().cpu_info();
        out->num_cpus = ci.get_cpu_num();
        out->num_threads = acl::NEScheduler::get().num_threads();
        out->has_fp16 = ci.has_fp16() ? 1 : 0;
        out->has_dotprod = ci.has_dotprod() ? 1 : 0;
#if ACL_SHIM_ACL_VERSION >= 2411
        out->has_sve = ci.has_sve() ? 1 : 0;
        out->has_sve2 = ci.has_sve2() ? 1 : 0;
        out->has_bf16 = ci.has_bf16() ? 1 : 0;
        out->has_i8mm = ci.has_i8mm() ? 1 : 0;
#else
        out->has_sve = out->has_sve2 = out->has_bf16 = out->has_i8mm = -1;
#endif
        const acl::TensorInfo f16(acl::TensorShape(8U), 1, acl::DataType::F16);
        const acl::ActivationLayerInfo relu(acl::ActivationLayerInfo::ActivationFunction::RELU);
#if ACL_SHIM_WITH_NEON
        out->f16_kernels = acl::NEActivationLayer::validate(&f16, &f16, relu).error_code() == acl::ErrorCode::OK;
#else
        out->f16_kernels = 0;  // no NE functions in this ACL
#endif
    });
}

int32_t acl_shim_tensor_create(const acl_shim_tensor_desc *desc, acl_shim_tensor **out) {
    return guarded([&] {
        require(desc != nullptr && out != nullptr, "desc and out must not be NULL");
        *out = nullptr;
        auto h = std::make_unique<acl_shim_tensor>();
        h->state = make_tensor(desc->backend, imported_info(*desc));
        h->state->size_in_bytes = desc->total_size_in_bytes;
        *out = h.release();
    });
}

int32_t acl_shim_tensor_import(acl_shim_tensor *tensor, void *base) {
    return guarded([&] {
        require(tensor != nullptr, "tensor is NULL");
        import_host(*tensor->state, base, tensor->state->size_in_bytes);
    });
}

int32_t acl_shim_tensor_describe(const acl_shim_tensor *tensor, acl_shim_tensor_desc *out,
                                 acl_shim_padding *padding) {
    return guarded([&] {
        require(tensor != nullptr, "tensor is NULL");
        const acl::ITensorInfo *info = tensor->state->get()->info();
        if (out != nullptr) {
            std::memset(out, 0, sizeof(*out));
            out->num_dims = static_cast<int32_t>(info->num_dimensions());
            for (int i = 0; i < ACL_SHIM_MAX_DIMS; ++i) {
                out->shape[i] = static_cast<uint32_t>(info->tensor_shape()[i]);
                out->strides_in_bytes[i] = info->strides_in_bytes()[i];
            }
            out->offset_first_element_in_bytes = info->offset_first_element_in_bytes();
            out->total_size_in_bytes = info->total_size();
            out->data_layout = info->data_layout() == acl::DataLayout::NHWC ? ACL_SHIM_LAYOUT_NHWC : ACL_SHIM_LAYOUT_NCHW;
            out->data_type = -1;
            out->backend = tensor->state->backend;
        }
        if (padding != nullptr) {
            const acl::PaddingSize pad = info->padding();
            *padding = acl_shim_padding{pad.top, pad.right, pad.bottom, pad.left};
        }
    });
}

void acl_shim_tensor_destroy(acl_shim_tensor *tensor) {
    try {
        delete tensor;
    } catch (...) {
    }
}

int32_t acl_shim_required_padding(int32_t kind, const acl_shim_params *params,
                                  const acl_shim_tensor_desc *const *descs, int32_t n, acl_shim_padding *out) {
    return guarded([&] {
        require(params != nullptr && descs != nullptr && out != nullptr, "params, descs and out must not be NULL");
        require(n >= 1 && n <= 8, "n must be 1..8");
        const int32_t backend = common_backend(backends_of(descs, n), present_of(descs, n));
        std::vector<TensorState *> t;
        const Tensors owned = scratch_tensors(backend, descs, n, resizable_info, t);
        std::unique_ptr<acl::IFunction> f = build_on(backend, kind, *params, t);
        for (int i = 0; i < n; ++i) {
            if (t[i] == nullptr) {
                out[i] = acl_shim_padding{0, 0, 0, 0};
                continue;
            }
            const acl::PaddingSize pad = t[i]->get()->info()->padding();
            out[i] = acl_shim_padding{pad.top, pad.right, pad.bottom, pad.left};
        }
    });
}

int32_t acl_shim_probe(int32_t kind, const acl_shim_params *params, const acl_shim_tensor_desc *const *descs,
                       int32_t n, int32_t *writes_outside, int32_t *same_result) {
    return guarded([&] {
        require(params != nullptr && descs != nullptr && writes_outside != nullptr && same_result != nullptr,
                "params, descs, writes_outside and same_result must not be NULL");
        require(n >= 1 && n <= 8, "n must be 1..8");
        const int32_t backend = common_backend(backends_of(descs, n), present_of(descs, n));
        constexpr size_t guard = 256;
        constexpr uint8_t fill = 0xa5;  // every byte that is not an element
        std::vector<std::vector<uint8_t>> memory(n), dense_memory(n);
        std::vector<std::vector<bool>> masks(n);
        std::vector<TensorState *> t, td;
        const Tensors owned = scratch_tensors(backend, descs, n, imported_info, t);
        const Tensors dense = scratch_tensors(backend, descs, n, resizable_info, td);
        std::unique_ptr<acl::IFunction> f = build_on(backend, kind, *params, t);
        std::unique_ptr<acl::IFunction> fd = build_on(backend, kind, *params, td);
        Tensors used, used_dense;
        for (int i = 0; i < n; ++i) {
            if (t[i] == nullptr) continue;
            const acl::ITensorInfo &info = *t[i]->get()->info(), &info_dense = *td[i]->get()->info();
            memory[i].assign(descs[i]->total_size_in_bytes + guard, fill);
            masks[i].assign(memory[i].size(), false);
            mark_elements(*descs[i], info.element_size(), masks[i]);
            import_host(*owned[i], memory[i].data(), descs[i]->total_size_in_bytes);
            dense_memory[i].assign(std::max<size_t>(1, info_dense.total_size()), 0);
            import_host(*dense[i], dense_memory[i].data(), dense_memory[i].size());
            for_each_element(info, info_dense, [&](uint64_t k, size_t off, size_t off_dense) {
                write_value(info.data_type(), k, memory[i].data() + off);
                write_value(info_dense.data_type(), k, dense_memory[i].data() + off_dense);
            });
            used.push_back(owned[i]);
            used_dense.push_back(dense[i]);
        }
        run_on(*f, used);
        run_on(*fd, used_dense);
        *same_result = 1;
        for (int i = 0; i < n; ++i) {
            writes_outside[i] = 0;
            if (t[i] == nullptr) continue;
            const size_t total = descs[i]->total_size_in_bytes;
            for (size_t b = 0; b < memory[i].size(); ++b) {
                if (!masks[i][b] && memory[i][b] != fill) {
                    writes_outside[i] = b < total ? 1 : 2;  // 2: past the allocation, into the guard
                    if (b >= total) break;
                }
            }
            const acl::ITensorInfo &info = *t[i]->get()->info(), &info_dense = *td[i]->get()->info();
            for_each_element(info, info_dense, [&](uint64_t, size_t off, size_t off_dense) {
                if (!same_value(info.data_type(), memory[i].data() + off, dense_memory[i].data() + off_dense))
                    *same_result = 0;
            });
        }
    });
}

int32_t acl_shim_function_create(int32_t kind, const acl_shim_params *params, acl_shim_tensor *const *tensors,
                                 int32_t n, acl_shim_function **out) {
    return guarded([&] {
        require(params != nullptr && tensors != nullptr && out != nullptr,
                "params, tensors and out must not be NULL");
        require(n >= 1 && n <= 8, "n must be 1..8");
        *out = nullptr;
        std::vector<int32_t> backends(n, 0);
        std::vector<bool> present(n, false);
        std::vector<TensorState *> t(n, nullptr);
        auto h = std::make_unique<acl_shim_function>();
        for (int i = 0; i < n; ++i) {
            if (tensors[i] == nullptr) continue;
            require(!tensors[i]->state->imported, "tensor " + std::to_string(i) +
                                                      " already has memory imported; import after configure");
            t[i] = tensors[i]->state.get();
            backends[i] = t[i]->backend;
            present[i] = true;
            h->tensors.push_back(tensors[i]->state);
        }
        h->backend = common_backend(backends, present);
        h->function = build_on(h->backend, kind, *params, t);
        *out = h.release();
    });
}

namespace {
// The checks acl_shim_function_run makes before running (memory imported everywhere).
void require_imported(const acl_shim_function &function) {
    for (size_t i = 0; i < function.tensors.size(); ++i) {
        if (!function.tensors[i]->imported) {
            fail(ACL_SHIM_ERR_NOT_IMPORTED, "tensor " + std::to_string(i) + " has no memory imported");
        }
    }
}
}  // namespace

namespace {
// One run of one function, holding its run mutex.
void run_serialised(acl_shim_function &function) {
    const std::lock_guard<std::mutex> lock(function.run_mutex);
    require_imported(function);
    run_on(*function.function, function.tensors);
}
}  // namespace

int32_t acl_shim_function_run(acl_shim_function *function) {
    return guarded([&] {
        require(function != nullptr, "function is NULL");
        run_serialised(*function);
    });
}

int32_t acl_shim_auto_padding(const acl_shim_tensor_desc *desc, acl_shim_padding *out) {
    return guarded([&] {
        require(desc != nullptr && out != nullptr, "desc and out must not be NULL");
        acl::TensorInfo info = resizable_info(*desc);
        info.auto_padding();
        const acl::PaddingSize pad = info.padding();
        *out = acl_shim_padding{pad.top, pad.right, pad.bottom, pad.left};
    });
}

int32_t acl_shim_check_layouts(int32_t kind, const acl_shim_params *params,
                               const acl_shim_tensor_desc *const *descs, int32_t n) {
    return guarded([&] {
        require(params != nullptr && descs != nullptr, "params and descs must not be NULL");
        require(n >= 1 && n <= 8, "n must be 1..8");
        const int32_t backend = common_backend(backends_of(descs, n), present_of(descs, n));
        std::vector<TensorState *> t;
        const Tensors owned = scratch_tensors(backend, descs, n, imported_info, t);
        build_on(backend, kind, *params, t);
    });
}

int32_t acl_shim_schedule_run(acl_shim_function *const *functions, int32_t n, int32_t *failed_index) {
    int32_t at = -1;
    const int32_t status = guarded([&] {
        require(functions != nullptr && n >= 0, "functions must not be NULL and n >= 0");
        for (at = 0; at < n; ++at) {
            if (functions[at] == nullptr) {  // the message is built only on failure
                fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "function " + std::to_string(at) + " is NULL");
            }
            run_serialised(*functions[at]);
        }
        at = -1;
    });
    if (failed_index != nullptr) *failed_index = at;
    return status;
}

void acl_shim_function_destroy(acl_shim_function *function) {
    try {
        delete function;
    } catch (...) {
    }
}

}  // extern "C"
