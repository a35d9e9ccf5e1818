// acl_shim_descriptions.cpp -- the descriptions room (see acl_shim_descriptions.h): tensor
// descs -> ACL TensorInfo, params -> ACL's info objects.
#include "acl_shim_descriptions.h"

#include "acl_shim_status.h"

#include <cmath>
#include <string>
#include <vector>

namespace acl_shim_detail {

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
        case ACL_SHIM_DT_QSYMM8_PER_CHANNEL: return acl::DataType::QSYMM8_PER_CHANNEL;
        case ACL_SHIM_DT_S64: return acl::DataType::S64;
        case ACL_SHIM_DT_QSYMM8: return acl::DataType::QSYMM8;
        case ACL_SHIM_DT_QSYMM16: return acl::DataType::QSYMM16;
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
        require(std::isfinite(d.quantization_scale) && d.quantization_scale > 0.0f,
                "quantized tensor needs a finite quantization_scale > 0, got " + std::to_string(d.quantization_scale));
        info.set_quantization_info(acl::QuantizationInfo(d.quantization_scale, d.quantization_offset));
    } else if (d.data_type == ACL_SHIM_DT_QSYMM8 || d.data_type == ACL_SHIM_DT_QSYMM16) {
        require(std::isfinite(d.quantization_scale) && d.quantization_scale > 0.0f,
                "symmetric quantized tensor needs a finite quantization_scale > 0, got " +
                    std::to_string(d.quantization_scale));
        require(d.quantization_offset == 0, "QSYMM8 / QSYMM16 are symmetric: quantization_offset must be 0, got " +
                                                std::to_string(d.quantization_offset));
        info.set_quantization_info(acl::QuantizationInfo(d.quantization_scale));
    } else if (d.data_type == ACL_SHIM_DT_QSYMM8_PER_CHANNEL) {
        // the scales are borrowed for this call: QuantizationInfo keeps its own copy
        require(d.quantization_scales != nullptr && d.quantization_scales_count >= 1,
                "QSYMM8_PER_CHANNEL needs quantization_scales (one per output channel), got " +
                    std::to_string(d.quantization_scales_count));
        require(d.quantization_offset == 0, "QSYMM8_PER_CHANNEL is symmetric: quantization_offset must be 0, got " +
                                                std::to_string(d.quantization_offset));
        std::vector<float> scales(d.quantization_scales, d.quantization_scales + d.quantization_scales_count);
        for (size_t i = 0; i < scales.size(); ++i)
            require(std::isfinite(scales[i]) && scales[i] > 0.0f,
                    "quantization_scales[" + std::to_string(i) + "] is " + std::to_string(scales[i]) +
                        ", expected a finite number > 0");
        info.set_quantization_info(acl::QuantizationInfo(scales));
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

}  // namespace

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

acl::PaddingMode to_pad_mode(int32_t p) {
    switch (p) {
        case ACL_SHIM_PAD_CONSTANT: return acl::PaddingMode::CONSTANT;
        case ACL_SHIM_PAD_REFLECT: return acl::PaddingMode::REFLECT;
        case ACL_SHIM_PAD_SYMMETRIC: return acl::PaddingMode::SYMMETRIC;
        default: fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "unknown pad_mode " + std::to_string(p));
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

}  // namespace acl_shim_detail
