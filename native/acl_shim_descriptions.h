// acl_shim_descriptions.h -- the descriptions room: the ABI's plain values turned into ACL's.
// A tensor desc becomes a TensorInfo (data type, layout, shape, quantization, strides or
// declared padding); acl_shim_params fields become ACL's info objects. Every unknown enum
// value or impossible layout fails here with a message naming the field and its value.
#ifndef ACL_SHIM_DESCRIPTIONS_H
#define ACL_SHIM_DESCRIPTIONS_H

#include "acl_shim.h"
#include "acl_shim_config.h"

#include "arm_compute/core/ITensorInfo.h"
#include "arm_compute/core/KernelDescriptors.h"
#include "arm_compute/core/PixelValue.h"
#include "arm_compute/core/TensorInfo.h"
#include "arm_compute/core/Types.h"

namespace acl_shim_detail {

// An info that describes existing memory exactly, not resizable: either ACL's own padded
// layout with the padding declared (extend_padding), or custom strides (padding() = 0).
acl::TensorInfo imported_info(const acl_shim_tensor_desc &d);
// An info with the shape and type only, resizable: ACL may ask for padding.
acl::TensorInfo resizable_info(const acl_shim_tensor_desc &d);

// params -> ACL (each fails with ACL_SHIM_ERR_INVALID_ARGUMENT on a value it does not know)
acl::ActivationLayerInfo to_activation(int32_t act, float a, float b);  // NONE: disabled
acl::ConvertPolicy to_policy(int32_t p);
acl::RoundingPolicy to_rounding(int32_t p);
acl::PoolingType to_pool(int32_t p);
acl::PaddingMode to_pad_mode(int32_t p);
acl::PadStrideInfo to_pad_stride(const acl_shim_params &p);
acl::ScaleKernelInfo to_scale_info(const acl_shim_params &p);
// A constant (pad, fill) in the tensor's data type; quantized: the stored integer.
acl::PixelValue to_pixel(double v, const acl::ITensorInfo *info);

}  // namespace acl_shim_detail

#endif  // ACL_SHIM_DESCRIPTIONS_H
