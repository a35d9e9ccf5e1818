// acl_shim.cpp -- the C ABI of acl_shim.h implemented on the Arm Compute Library.
//
// Compiles against ACL 20.08 (Debian bookworm) and ACL 24.11 (Debian trixie).
// The version is detected at compile time from the headers (ACL_SHIM_ACL_VERSION);
// every API difference between the two is behind that one macro.
//
// Boundary rule: every extern "C" function runs its body inside guarded(), which
// catches every C++ exception and turns it into a status + thread-local message.

#include "acl_shim.h"

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
#include "arm_compute/runtime/NEON/functions/NEPoolingLayer.h"
#include "arm_compute/runtime/NEON/functions/NEQuantizationLayer.h"
#include "arm_compute/runtime/NEON/functions/NESoftmaxLayer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace acl = arm_compute;

struct acl_shim_tensor {
    std::shared_ptr<acl::Tensor> tensor;
    bool imported = false;
};

struct acl_shim_function {
    std::unique_ptr<acl::IFunction> function;
    std::vector<std::shared_ptr<acl::Tensor>> tensors;  // shared ownership of the non-NULL tensors
};

namespace {

thread_local std::string g_last_error;

// An error that carries a shim status code out of the C++ body to guarded().
struct ShimError : std::runtime_error {
    int32_t code;
    ShimError(int32_t c, const std::string &m) : std::runtime_error(m), code(c) {}
};

[[noreturn]] void fail(int32_t code, const std::string &message) { throw ShimError(code, message); }

void check_status(const acl::Status &status, const char *what) {
    if (status.error_code() != acl::ErrorCode::OK) {
        fail(ACL_SHIM_ERR_ACL_STATUS, std::string(what) + ": " + status.error_description());
    }
}

template <typename F>
int32_t guarded(F &&body) {
    try {
        g_last_error.clear();
        body();
        return ACL_SHIM_OK;
    } catch (const ShimError &e) {
        g_last_error = e.what();
        return e.code;
    } catch (const std::bad_alloc &e) {
        g_last_error = std::string("out of memory: ") + e.what();
        return ACL_SHIM_ERR_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        g_last_error = std::string("C++ exception: ") + e.what();
        return ACL_SHIM_ERR_EXCEPTION;
    } catch (...) {
        g_last_error = "unknown C++ exception";
        return ACL_SHIM_ERR_EXCEPTION;
    }
}

void require(bool condition, const std::string &message) {
    if (!condition) fail(ACL_SHIM_ERR_INVALID_ARGUMENT, message);
}

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

void need(const std::vector<acl::ITensor *> &t, size_t n, std::initializer_list<size_t> required,
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

// validate() then configure() one function kind on the given tensors.
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p,
                                      const std::vector<acl::ITensor *> &t) {
    const acl::ActivationLayerInfo act = to_activation(p.activation, p.act_a, p.act_b);
    switch (kind) {
        case ACL_SHIM_FN_ACTIVATION: {
            need(t, 2, {0, 1}, "activation");
            require(p.activation != ACL_SHIM_ACT_NONE, "activation: no activation function given");
            check_status(acl::NEActivationLayer::validate(t[0]->info(), t[1]->info(), act), "NEActivationLayer::validate");
            auto f = std::make_unique<acl::NEActivationLayer>();
            f->configure(t[0], t[1], act);
            return f;
        }
        case ACL_SHIM_FN_ADD: {
            need(t, 3, {0, 1, 2}, "add");
            const auto policy = to_policy(p.convert_policy);
            check_status(acl::NEArithmeticAddition::validate(t[0]->info(), t[1]->info(), t[2]->info(), policy, act),
                         "NEArithmeticAddition::validate");
            auto f = std::make_unique<acl::NEArithmeticAddition>();
            f->configure(t[0], t[1], t[2], policy, act);
            return f;
        }
        case ACL_SHIM_FN_SUB: {
            need(t, 3, {0, 1, 2}, "sub");
            const auto policy = to_policy(p.convert_policy);
            check_status(acl::NEArithmeticSubtraction::validate(t[0]->info(), t[1]->info(), t[2]->info(), policy, act),
                         "NEArithmeticSubtraction::validate");
            auto f = std::make_unique<acl::NEArithmeticSubtraction>();
            f->configure(t[0], t[1], t[2], policy, act);
            return f;
        }
        case ACL_SHIM_FN_MUL: {
            need(t, 3, {0, 1, 2}, "mul");
            const auto policy = to_policy(p.convert_policy);
            const auto rounding = to_rounding(p.rounding_policy);
            check_status(acl::NEPixelWiseMultiplication::validate(t[0]->info(), t[1]->info(), t[2]->info(), p.scale,
                                                                  policy, rounding, act),
                         "NEPixelWiseMultiplication::validate");
            auto f = std::make_unique<acl::NEPixelWiseMultiplication>();
            f->configure(t[0], t[1], t[2], p.scale, policy, rounding, act);
            return f;
        }
        case ACL_SHIM_FN_POOLING: {
            need(t, 2, {0, 1}, "pooling");
            require(p.kernel_w >= 1 && p.kernel_h >= 1, "pooling: kernel_w and kernel_h must be >= 1");
            const acl::PoolingLayerInfo info(to_pool(p.pool_type), acl::Size2D(p.kernel_w, p.kernel_h),
                                             t[0]->info()->data_layout(), to_pad_stride(p), p.exclude_padding != 0);
            check_status(acl::NEPoolingLayer::validate(t[0]->info(), t[1]->info(), info), "NEPoolingLayer::validate");
            auto f = std::make_unique<acl::NEPoolingLayer>();
            f->configure(t[0], t[1], info);
            return f;
        }
        case ACL_SHIM_FN_CONVOLUTION: {
            need(t, 4, {0, 1, 3}, "convolution");
            const auto ps = to_pad_stride(p);
            check_status(acl::NEConvolutionLayer::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), ps,
                                                           acl::WeightsInfo(), acl::Size2D(1U, 1U), act),
                         "NEConvolutionLayer::validate");
            auto f = std::make_unique<acl::NEConvolutionLayer>();
            f->configure(t[0], t[1], t[2], t[3], ps, acl::WeightsInfo(), acl::Size2D(1U, 1U), act);
            return f;
        }
        case ACL_SHIM_FN_DEPTHWISE: {
            need(t, 4, {0, 1, 3}, "depthwise");
            const auto ps = to_pad_stride(p);
            const unsigned int dm = p.depth_multiplier == 0 ? 1 : p.depth_multiplier;
            check_status(acl::NEDepthwiseConvolutionLayer::validate(t[0]->info(), t[1]->info(), info_of(t[2]),
                                                                    t[3]->info(), ps, dm, act),
                         "NEDepthwiseConvolutionLayer::validate");
            auto f = std::make_unique<acl::NEDepthwiseConvolutionLayer>();
            f->configure(t[0], t[1], t[2], t[3], ps, dm, act);
            return f;
        }
        case ACL_SHIM_FN_FULLY_CONNECTED: {
            need(t, 4, {0, 1, 3}, "fully_connected");
            acl::FullyConnectedLayerInfo fc;
            fc.transpose_weights = p.transpose_weights != 0;
            fc.activation_info = act;
            check_status(acl::NEFullyConnectedLayer::validate(t[0]->info(), t[1]->info(), info_of(t[2]),
                                                              t[3]->info(), fc),
                         "NEFullyConnectedLayer::validate");
            auto f = std::make_unique<acl::NEFullyConnectedLayer>();
            f->configure(t[0], t[1], t[2], t[3], fc);
            return f;
        }
        case ACL_SHIM_FN_GEMM: {
            need(t, 4, {0, 1, 3}, "gemm");
            // reshape_b_only_on_first_run=false: b may change between runs.
            acl::GEMMInfo gi(false, false, false);
            if (t[2] != nullptr && p.beta == 1.0f &&
                (t[2]->info()->dimension(1) > 1 || ACL_SHIM_ACL_VERSION < 2411)) {
                // Measured on 24.11: with beta == 1 NEGEMM takes c as a bias row and
                // broadcasts its first row (validate() accepts a full matrix); 20.08 rejects
                // a bias row. So compute dst = alpha*a@b, then dst += c (broadcasting).
                check_status(acl::NEGEMM::validate(t[0]->info(), t[1]->info(), nullptr, t[3]->info(), p.alpha, 0.0f, gi),
                             "NEGEMM::validate");
                check_status(acl::NEArithmeticAddition::validate(t[3]->info(), t[2]->info(), t[3]->info(),
                                                                 acl::ConvertPolicy::SATURATE),
                             "NEArithmeticAddition::validate");
                auto seq = std::make_unique<Sequence>();
                auto g = std::make_unique<acl::NEGEMM>();
                g->configure(t[0], t[1], nullptr, t[3], p.alpha, 0.0f, gi);
                auto add = std::make_unique<acl::NEArithmeticAddition>();
                add->configure(t[3], t[2], t[3], acl::ConvertPolicy::SATURATE);
                seq->parts.push_back(std::move(g));
                seq->parts.push_back(std::move(add));
                return seq;
            }
            check_status(acl::NEGEMM::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), p.alpha,
                                               p.beta, gi),
                         "NEGEMM::validate");
            auto f = std::make_unique<acl::NEGEMM>();
            f->configure(t[0], t[1], t[2], t[3], p.alpha, p.beta, gi);
            return f;
        }
        case ACL_SHIM_FN_SOFTMAX: {
            need(t, 2, {0, 1}, "softmax");
            check_status(acl::NESoftmaxLayer::validate(t[0]->info(), t[1]->info(), p.beta, p.axis),
                         "NESoftmaxLayer::validate");
            auto f = std::make_unique<acl::NESoftmaxLayer>();
            f->configure(t[0], t[1], p.beta, p.axis);
            return f;
        }
        case ACL_SHIM_FN_LOG_SOFTMAX: {
            need(t, 2, {0, 1}, "log_softmax");
            check_status(acl::NELogSoftmaxLayer::validate(t[0]->info(), t[1]->info(), p.beta, p.axis),
                         "NELogSoftmaxLayer::validate");
            auto f = std::make_unique<acl::NELogSoftmaxLayer>();
            f->configure(t[0], t[1], p.beta, p.axis);
            return f;
        }
        case ACL_SHIM_FN_PERMUTE: {
            need(t, 2, {0, 1}, "permute");
            require(p.perm_len >= 1 && p.perm_len <= ACL_SHIM_MAX_DIMS, "permute: perm_len must be 1..6");
            acl::PermutationVector perm;
            for (int i = 0; i < p.perm_len; ++i) perm.set(i, p.perm[i]);
            check_status(acl::NEPermute::validate(t[0]->info(), t[1]->info(), perm), "NEPermute::validate");
            auto f = std::make_unique<acl::NEPermute>();
            f->configure(t[0], t[1], perm);
            return f;
        }
        case ACL_SHIM_FN_COPY: {
            need(t, 2, {0, 1}, "copy");
            check_status(acl::NECopy::validate(t[0]->info(), t[1]->info()), "NECopy::validate");
            auto f = std::make_unique<acl::NECopy>();
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
            check_status(acl::NEPadLayer::validate(t[0]->info(), t[1]->info(), padding, value, mode),
                         "NEPadLayer::validate");
            auto f = std::make_unique<acl::NEPadLayer>();
            f->configure(t[0], t[1], padding, value, mode);
            return f;
        }
        case ACL_SHIM_FN_FILL: {
            need(t, 1, {0}, "fill");
            const acl::PixelValue value = to_pixel(p.constant_value, t[0]->info());
            // NEFill has no validate() in 20.08; the data type was checked by to_pixel.
            auto f = std::make_unique<acl::NEFill>();
            f->configure(t[0], value);
            return f;
        }
        case ACL_SHIM_FN_CAST: {
            need(t, 2, {0, 1}, "cast");
            const auto policy = to_policy(p.convert_policy);
            check_status(acl::NEDepthConvertLayer::validate(t[0]->info(), t[1]->info(), policy, 0),
                         "NEDepthConvertLayer::validate");
            auto f = std::make_unique<acl::NEDepthConvertLayer>();
            f->configure(t[0], t[1], policy, 0);
            return f;
        }
        case ACL_SHIM_FN_QUANTIZE: {
            need(t, 2, {0, 1}, "quantize");
            check_status(acl::NEQuantizationLayer::validate(t[0]->info(), t[1]->info()),
                         "NEQuantizationLayer::validate");
            auto f = std::make_unique<acl::NEQuantizationLayer>();
            f->configure(t[0], t[1]);
            return f;
        }
        case ACL_SHIM_FN_DEQUANTIZE: {
            need(t, 2, {0, 1}, "dequantize");
            check_status(acl::NEDequantizationLayer::validate(t[0]->info(), t[1]->info()),
                         "NEDequantizationLayer::validate");
            auto f = std::make_unique<acl::NEDequantizationLayer>();
            f->configure(t[0], t[1]);
            return f;
        }
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown function kind " + std::to_string(kind));
    }
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

}  // namespace

extern "C" {

int32_t acl_shim_abi_version(void) { return ACL_SHIM_ABI_VERSION; }

int32_t acl_shim_compiled_acl_version(void) { return ACL_SHIM_ACL_VERSION; }

const char *acl_shim_last_error(void) { return g_last_error.c_str(); }

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
        out->f16_kernels = acl::NEActivationLayer::validate(&f16, &f16, relu).error_code() == acl::ErrorCode::OK;
    });
}

int32_t acl_shim_tensor_create(const acl_shim_tensor_desc *desc, acl_shim_tensor **out) {
    return guarded([&] {
        require(desc != nullptr && out != nullptr, "desc and out must not be NULL");
        *out = nullptr;
        auto h = std::make_unique<acl_shim_tensor>();
        h->tensor = std::make_shared<acl::Tensor>();
        h->tensor->allocator()->init(imported_info(*desc));
        *out = h.release();
    });
}

int32_t acl_shim_tensor_import(acl_shim_tensor *tensor, void *base) {
    return guarded([&] {
        require(tensor != nullptr, "tensor is NULL");
        require(base != nullptr, "base pointer is NULL");
        check_status(tensor->tensor->allocator()->import_memory(base), "TensorAllocator::import_memory");
        tensor->imported = true;
    });
}

int32_t acl_shim_tensor_describe(const acl_shim_tensor *tensor, acl_shim_tensor_desc *out,
                                 acl_shim_padding *padding) {
    return guarded([&] {
        require(tensor != nullptr, "tensor is NULL");
        const acl::ITensorInfo *info = tensor->tensor->info();
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
        std::vector<std::unique_ptr<acl::Tensor>> owned(n);
        std::vector<acl::ITensor *> t(n, nullptr);
        for (int i = 0; i < n; ++i) {
            if (descs[i] == nullptr) continue;
            owned[i] = std::make_unique<acl::Tensor>();
            owned[i]->allocator()->init(resizable_info(*descs[i]));
            t[i] = owned[i].get();
        }
        std::unique_ptr<acl::IFunction> f = build(kind, *params, t);
        for (int i = 0; i < n; ++i) {
            if (t[i] == nullptr) {
                out[i] = acl_shim_padding{0, 0, 0, 0};
                continue;
            }
            const acl::PaddingSize pad = t[i]->info()->padding();
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
        constexpr size_t guard = 256;
        constexpr uint8_t fill = 0xa5;  // every byte that is not an element
        std::vector<std::unique_ptr<acl::Tensor>> owned(n), dense(n);
        std::vector<std::vector<uint8_t>> memory(n);
        std::vector<std::vector<bool>> masks(n);
        std::vector<acl::ITensor *> t(n, nullptr), td(n, nullptr);
        for (int i = 0; i < n; ++i) {
            if (descs[i] == nullptr) continue;
            owned[i] = std::make_unique<acl::Tensor>();
            owned[i]->allocator()->init(imported_info(*descs[i]));
            t[i] = owned[i].get();
            dense[i] = std::make_unique<acl::Tensor>();
            dense[i]->allocator()->init(resizable_info(*descs[i]));
            td[i] = dense[i].get();
        }
        std::unique_ptr<acl::IFunction> f = build(kind, *params, t);
        std::unique_ptr<acl::IFunction> fd = build(kind, *params, td);
        for (int i = 0; i < n; ++i) {
            if (t[i] == nullptr) continue;
            memory[i].assign(descs[i]->total_size_in_bytes + guard, fill);
            masks[i].assign(memory[i].size(), false);
            mark_elements(*descs[i], t[i]->info()->element_size(), masks[i]);
            check_status(owned[i]->allocator()->import_memory(memory[i].data()), "TensorAllocator::import_memory");
            dense[i]->allocator()->allocate();
            for_each_element(*t[i]->info(), *td[i]->info(), [&](uint64_t k, size_t off, size_t off_dense) {
                write_value(t[i]->info()->data_type(), k, memory[i].data() + off);
                write_value(td[i]->info()->data_type(), k, dense[i]->buffer() + off_dense);
            });
        }
        f->run();
        fd->run();
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
            for_each_element(*t[i]->info(), *td[i]->info(), [&](uint64_t, size_t off, size_t off_dense) {
                if (!same_value(t[i]->info()->data_type(), memory[i].data() + off, dense[i]->buffer() + off_dense))
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
        auto h = std::make_unique<acl_shim_function>();
        std::vector<acl::ITensor *> t(n, nullptr);
        for (int i = 0; i < n; ++i) {
            if (tensors[i] == nullptr) continue;
            require(!tensors[i]->imported, "tensor " + std::to_string(i) +
                                               " already has memory imported; import after configure");
            t[i] = tensors[i]->tensor.get();
            h->tensors.push_back(tensors[i]->tensor);
        }
        h->function = build(kind, *params, t);
        *out = h.release();
    });
}

namespace {
// The checks acl_shim_function_run makes before running (memory imported everywhere).
void require_imported(const acl_shim_function &function) {
    for (size_t i = 0; i < function.tensors.size(); ++i) {
        if (function.tensors[i]->buffer() == nullptr) {
            fail(ACL_SHIM_ERR_NOT_IMPORTED, "tensor " + std::to_string(i) + " has no memory imported");
        }
    }
}
}  // namespace

int32_t acl_shim_function_run(acl_shim_function *function) {
    return guarded([&] {
        require(function != nullptr, "function is NULL");
        require_imported(*function);
        function->function->run();
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
        std::vector<std::unique_ptr<acl::Tensor>> owned(n);
        std::vector<acl::ITensor *> t(n, nullptr);
        for (int i = 0; i < n; ++i) {
            if (descs[i] == nullptr) continue;
            owned[i] = std::make_unique<acl::Tensor>();
            owned[i]->allocator()->init(imported_info(*descs[i]));
            t[i] = owned[i].get();
        }
        build(kind, *params, t);
    });
}

int32_t acl_shim_schedule_run(acl_shim_function *const *functions, int32_t n, int32_t *failed_index) {
    int32_t at = -1;
    const int32_t status = guarded([&] {
        require(functions != nullptr && n >= 0, "functions must not be NULL and n >= 0");
        for (at = 0; at < n; ++at) {
            require(functions[at] != nullptr, "function " + std::to_string(at) + " is NULL");
            require_imported(*functions[at]);
            functions[at]->function->run();
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
