// acl_shim_nn.cpp -- the neural-network layers room: one row per kind in build<E>, for NEON
// (E = Neon) and CL (E = Cl) alike.
//   deconvolution (src, weights, bias, dst): NEDeconvolutionLayer / CLDeconvolutionLayer, stride
//     and pad_* as a PadStrideInfo (the full (in - 1) * stride + kernel output cropped by them);
//   l2_normalize (src, dst): NEL2NormalizeLayer / CLL2NormalizeLayer along params.axis (ACL order)
//     with params.epsilon;
//   normalization (src, dst): NENormalizationLayer / CLNormalizationLayer across channels
//     (CROSS_MAP), norm_size, alpha, beta, kappa, unscaled alpha;
//   matmul (a, b, dst): NEMatMul / CLMatMul (24.11; 20.08 has none: refused as ACL's own
//     refusal, ACL_SHIM_ERR_ACL_STATUS naming NEMatMul::validate, so the runner's fallback runs it).
//   convolution_3d (src, weights, bias, dst): NEConv3D / CLConv3D on NDHWC tensors (24.11;
//     on 20.08 refused the same way as matmul).
// A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its NE and CL types below, its row.
#include "acl_shim_families.h"

#include "acl_shim_descriptions.h"

#if ACL_SHIM_ACL_VERSION >= 2411
#include "arm_compute/runtime/FunctionDescriptors.h"  // Conv3dInfo (CLConv3D.h only declares it)
#endif

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEDeconvolutionLayer.h"
#include "arm_compute/runtime/NEON/functions/NEL2NormalizeLayer.h"
#include "arm_compute/runtime/NEON/functions/NENormalizationLayer.h"
#if ACL_SHIM_ACL_VERSION >= 2411
#include "arm_compute/runtime/NEON/functions/NEConv3D.h"
#include "arm_compute/runtime/NEON/functions/NEMatMul.h"
#endif
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLConv3D.h"
#include "arm_compute/runtime/CL/functions/CLDeconvolutionLayer.h"
#include "arm_compute/runtime/CL/functions/CLL2NormalizeLayer.h"
#include "arm_compute/runtime/CL/functions/CLMatMul.h"
#include "arm_compute/runtime/CL/functions/CLNormalizationLayer.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_NN_TYPES(P)                          \
    using Deconvolution = acl::P##DeconvolutionLayer; \
    using L2Normalize = acl::P##L2NormalizeLayer;     \
    using Normalization = acl::P##NormalizationLayer;

#if ACL_SHIM_WITH_NEON
struct Neon : NeonTag {
    ACL_SHIM_NN_TYPES(NE)
#if ACL_SHIM_ACL_VERSION >= 2411
    using Conv3D = acl::NEConv3D;
    using MatMul = acl::NEMatMul;
    static acl::Status validate_matmul(const acl::ITensorInfo *a, const acl::ITensorInfo *b,
                                       const acl::ITensorInfo *d, const acl::MatMulInfo &info) {
        return MatMul::validate(a, b, d, info, acl::CpuMatMulSettings());
    }
    static void configure_matmul(MatMul &f, ITensor *a, ITensor *b, ITensor *d, const acl::MatMulInfo &info) {
        f.configure(a, b, d, info, acl::CpuMatMulSettings());
    }
#endif
};
#endif
#if ACL_SHIM_WITH_CL
struct Cl : ClTag {
    ACL_SHIM_NN_TYPES(CL)
    using Conv3D = acl::CLConv3D;
    using MatMul = acl::CLMatMul;
    static acl::Status validate_matmul(const acl::ITensorInfo *a, const acl::ITensorInfo *b,
                                       const acl::ITensorInfo *d, const acl::MatMulInfo &info) {
        return MatMul::validate(a, b, d, info);
    }
    static void configure_matmul(MatMul &f, ITensor *a, ITensor *b, ITensor *d, const acl::MatMulInfo &info) {
        f.configure(a, b, d, info);
    }
};
#endif
#undef ACL_SHIM_NN_TYPES

// matmul where this ACL has it (24.11 has it, 20.08 not; CL builds are 24.x).
template <typename E>
std::unique_ptr<acl::IFunction> matmul(const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                       const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 3, {0, 1, 2}, "matmul");
#if ACL_SHIM_ACL_VERSION >= 2411
    // CpuMatMul takes only operands marked as changing between runs ("LHS Tensor must be
    // dynamic", measured on 24.11); a TensorInfo is constant until told otherwise (Arm NN
    // marks them the same way)
    t[0]->info()->set_are_values_constant(false);
    t[1]->info()->set_are_values_constant(false);
    const acl::MatMulInfo info = acl::MatMulInfo().adj_lhs(p.adj_a != 0).adj_rhs(p.adj_b != 0);
    check_status(E::validate_matmul(t[0]->info(), t[1]->info(), t[2]->info(), info), name<E>("MatMul").c_str());
    auto f = make<typename E::MatMul>(mm);
    E::configure_matmul(*f, t[0], t[1], t[2], info);
    return f;
#else
    // an ACL refusal (ACL_SHIM_ERR_ACL_STATUS), as validate() would give one: the runner's
    // partition then runs the operator on its fallback
    (void)p, (void)mm;
    fail(ACL_SHIM_ERR_ACL_STATUS, name<E>("MatMul") + ": ACL " + std::to_string(ACL_SHIM_ACL_VERSION) +
                                      " has no MatMul function (24.11 has one)");
#endif
}

// The 3-D convolution where this ACL has it (24.11): its tensors marked NDHWC (the bridge
// describes them NHWC; src's and dst's ACL order is the same C, W, H, D, N).
template <typename E>
std::unique_ptr<acl::IFunction> convolution_3d(const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                               const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 4, {0, 1, 3}, "convolution_3d");
#if ACL_SHIM_ACL_VERSION >= 2411
    require(p.stride_x >= 1 && p.stride_y >= 1 && p.stride_z >= 1, "convolution_3d: strides must be >= 1");
    for (auto *tensor : t) {  // NEConv3D wants every tensor NDHWC ("different data layouts", measured)
        if (tensor != nullptr) tensor->info()->set_data_layout(acl::DataLayout::NDHWC);
    }
    const acl::Conv3dInfo info(acl::Size3D(p.stride_x, p.stride_y, p.stride_z),
                               acl::Padding3D(p.pad_left, p.pad_right, p.pad_top, p.pad_bottom, p.pad_front, p.pad_back),
                               to_activation(p.activation, p.act_a, p.act_b), acl::Size3D(1U, 1U, 1U),
                               acl::DimensionRoundingType::FLOOR, false);
    check_status(E::Conv3D::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), info),
                 name<E>("Conv3D").c_str());
    auto f = make<typename E::Conv3D>(mm);
    f->configure(t[0], t[1], t[2], t[3], info);
    return f;
#else
    (void)p, (void)mm;
    fail(ACL_SHIM_ERR_ACL_STATUS, name<E>("Conv3D") + ": ACL " + std::to_string(ACL_SHIM_ACL_VERSION) +
                                      " has no Conv3D function (24.11 has one)");
#endif
}

template <typename E>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_DECONVOLUTION: {
            need(t, 4, {0, 1, 3}, "deconvolution");
            const auto ps = to_pad_stride(p);
            check_status(E::Deconvolution::validate(t[0]->info(), t[1]->info(), info_of(t[2]), t[3]->info(), ps),
                         name<E>("DeconvolutionLayer").c_str());
            auto f = make<typename E::Deconvolution>(mm);
            f->configure(t[0], t[1], t[2], t[3], ps);
            return f;
        }
        case ACL_SHIM_FN_L2_NORMALIZE: {
            need(t, 2, {0, 1}, "l2_normalize");
            require(p.axis >= 0 && p.axis < 3, "l2_normalize: axis " + std::to_string(p.axis) +
                                                   " (ACL's dimension order), expected 0..2");
            check_status(E::L2Normalize::validate(t[0]->info(), t[1]->info(), p.axis, p.epsilon),
                         name<E>("L2NormalizeLayer").c_str());
            auto f = make<typename E::L2Normalize>(mm);
            f->configure(t[0], t[1], p.axis, p.epsilon);
            return f;
        }
        case ACL_SHIM_FN_NORMALIZATION: {
            need(t, 2, {0, 1}, "normalization");
            require(p.norm_size >= 1 && p.norm_size % 2 == 1,
                    "normalization: norm_size " + std::to_string(p.norm_size) + ", expected an odd count >= 1");
            const acl::NormalizationLayerInfo info(acl::NormType::CROSS_MAP, p.norm_size, p.alpha, p.beta, p.kappa,
                                                   false);
            check_status(E::Normalization::validate(t[0]->info(), t[1]->info(), info),
                         name<E>("NormalizationLayer").c_str());
            auto f = make<typename E::Normalization>(mm);
            f->configure(t[0], t[1], info);
            return f;
        }
        case ACL_SHIM_FN_MATMUL: return matmul<E>(p, t, mm);
        case ACL_SHIM_FN_CONVOLUTION_3D: return convolution_3d<E>(p, t, mm);
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_nn)

}  // namespace acl_shim_detail
