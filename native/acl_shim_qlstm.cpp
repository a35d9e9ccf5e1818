// acl_shim_qlstm.cpp -- the quantized LSTM room: one row, NEON on ACL 24.11.
//   qlstm (27 tensors, lstm's order: TFLite's 24 LSTM inputs, then output_state_out,
//     cell_state_out, output): NEQLSTMLayer, one time step of TFLite's integer LSTM (8x8_16).
//     src, output_state_in and the outputs QASYMM8_SIGNED; weights QSYMM8; biases S32;
//     cell_state_in / _out, peepholes and layer-norm weights QSYMM16 (cell scale 2^n, n <= -9).
//     The optional groups as lstm's (CIFG, peephole, projection, layer normalization).
//     params.qlstm_matmul_scales: the gates' (i, f, c, o) matmul output scales (TFLite's
//     intermediates 0-3, 2^-12 without layer normalization); qlstm_hidden_scale and
//     qlstm_hidden_zero_point: the hidden state's (intermediate 4); cell_clip, projection_clip
//     as floats (0: none; ACL quantizes them itself, and its clip makes every value -clip:
//     docs/models.md). Outputs the caller leaves NULL are tensors of the shim's own. CL: refused (CLQLSTMLayer not wired here). ACL 20.08: refused as ACL's
//     own refusal (ACL_SHIM_ERR_ACL_STATUS) so the runner falls back: its NEQLSTMLayer was not
//     measured (its LSTMLayer's configure() did not return, acl_shim_lstm.cpp).
// A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its row below.
#include "acl_shim_families.h"

#include "acl_shim_builders.h"
#include "acl_shim_descriptions.h"
#include "acl_shim_status.h"

#include "arm_compute/core/TensorInfo.h"
#include "arm_compute/runtime/common/LSTMParams.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEQLSTMLayer.h"
#include "arm_compute/runtime/Tensor.h"
#endif

#include <array>
#include <cmath>
#include <string>

namespace acl_shim_detail {

namespace {

#if ACL_SHIM_WITH_NEON
struct Neon {
    static constexpr const char *prefix = "NE";
    using ITensor = acl::ITensor;
};
#endif
#if ACL_SHIM_WITH_CL
struct Cl {
    static constexpr const char *prefix = "CL";
    using ITensor = acl::ICLTensor;
};
#endif

// TFLite's LSTM input indices (lstm_shared.h), then the outputs
enum : size_t {
    INPUT = 0, I2I = 1, I2F, I2C, I2O, R2I, R2F, R2C, R2O, C2I, C2F, C2O, BI, BF, BC, BO, PROJ_W, PROJ_B,
    STATE_IN, CELL_IN, LN_I, LN_F, LN_C, LN_O, STATE_OUT, CELL_OUT, OUTPUT, COUNT
};

#if ACL_SHIM_WITH_NEON && ACL_SHIM_ACL_VERSION >= 2411
// The layer and the outputs the caller did not give: allocated after configure, freed with it.
struct QLstmStep : acl::IFunction {
    std::array<acl::Tensor, 3> own;  // output state, cell state, output
    std::unique_ptr<acl::NEQLSTMLayer> layer;
    void run() override { layer->run(); }
    void prepare() override { layer->prepare(); }
};

// params := the optional parts present and the scales (T: ITensor for configure, ITensorInfo
// for validate; LSTMParams cannot be copied)
template <typename T, typename G>
void set_qlstm_params(acl::LSTMParams<T> &params, const G &get, const acl_shim_params &p, bool cifg, bool peephole,
                      bool projection, bool layer_norm) {
    if (!cifg) params.set_cifg_params(get(I2I), get(R2I), peephole ? get(C2I) : nullptr, get(BI));
    if (peephole) params.set_peephole_params(get(C2F), get(C2O));
    if (projection) params.set_projection_params(get(PROJ_W), get(PROJ_B));
    if (layer_norm) params.set_layer_normalization_params(cifg ? nullptr : get(LN_I), get(LN_F), get(LN_C), get(LN_O));
    params.set_matmul_scale_params(p.qlstm_matmul_scales[0], p.qlstm_matmul_scales[1], p.qlstm_matmul_scales[2],
                                   p.qlstm_matmul_scales[3]);
    params.set_hidden_state_params(p.qlstm_hidden_zero_point, p.qlstm_hidden_scale);
    params.set_cell_clip_params(p.cell_clip);
    params.set_projection_clip_params(p.projection_clip);
}

std::unique_ptr<acl::IFunction> qlstm_neon(const acl_shim_params &p, const std::vector<acl::ITensor *> &t,
                                           const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, COUNT, {INPUT, I2F, I2C, I2O, R2F, R2C, R2O, BF, BC, BO, STATE_IN, CELL_IN}, "qlstm");
    const bool cifg = t[I2I] == nullptr, peephole = t[C2F] != nullptr, projection = t[PROJ_W] != nullptr,
               layer_norm = t[LN_F] != nullptr;
    require(p.cell_clip >= 0 && p.projection_clip >= 0, "qlstm: cell_clip and projection_clip must be >= 0");
    for (int g = 0; g < 4; ++g) {
        require(std::isfinite(p.qlstm_matmul_scales[g]) && p.qlstm_matmul_scales[g] > 0,
                "qlstm: qlstm_matmul_scales[" + std::to_string(g) + "] must be a finite number > 0");
    }
    require(std::isfinite(p.qlstm_hidden_scale) && p.qlstm_hidden_scale > 0,
            "qlstm: qlstm_hidden_scale must be a finite number > 0");
    auto f = std::make_unique<QLstmStep>();
    const acl::ITensorInfo *state = t[STATE_IN]->info(), *cell = t[CELL_IN]->info();
    const acl::TensorInfo infos[3] = {
        acl::TensorInfo(state->tensor_shape(), 1, state->data_type(), state->quantization_info()),
        acl::TensorInfo(cell->tensor_shape(), 1, cell->data_type(), cell->quantization_info()),
        acl::TensorInfo(state->tensor_shape(), 1, state->data_type(), state->quantization_info())};
    acl::ITensor *outs[3] = {t[STATE_OUT], t[CELL_OUT], t[OUTPUT]};
    for (size_t k = 0; k < 3; ++k) {
        if (outs[k] == nullptr) {
            f->own[k].allocator()->init(infos[k]);
            outs[k] = &f->own[k];
        }
    }
    const auto info = [&](size_t k) -> acl::ITensorInfo * { return info_of(t[k]); };
    const auto tensor = [&](size_t k) -> acl::ITensor * { return t[k]; };
    acl::LSTMParams<acl::ITensorInfo> info_params;
    set_qlstm_params(info_params, info, p, cifg, peephole, projection, layer_norm);
    acl::LSTMParams<acl::ITensor> tensor_params;
    set_qlstm_params(tensor_params, tensor, p, cifg, peephole, projection, layer_norm);
    check_status(acl::NEQLSTMLayer::validate(info(INPUT), info(I2F), info(I2C), info(I2O), info(R2F), info(R2C),
                                             info(R2O), info(BF), info(BC), info(BO), info(CELL_IN), info(STATE_IN),
                                             outs[1]->info(), outs[0]->info(), outs[2]->info(), info_params),
                 name<Neon>("QLSTMLayer").c_str());
    // no memory manager: with the runner's (shared) one its run() crashed (SIGSEGV, measured on 24.11 under
    // QEMU; the plain call, without one, runs); Arm NN's NeonQLstmWorkload makes the layer without one too
    (void)mm;
    f->layer = std::make_unique<acl::NEQLSTMLayer>();
    f->layer->configure(t[INPUT], t[I2F], t[I2C], t[I2O], t[R2F], t[R2C], t[R2O], t[BF], t[BC], t[BO], t[CELL_IN],
                        t[STATE_IN], outs[1], outs[0], outs[2], tensor_params);
    for (size_t k = 0; k < 3; ++k) {
        if (outs[k] == &f->own[k]) f->own[k].allocator()->allocate();
    }
    return f;
}
#endif

template <typename E>
std::unique_ptr<acl::IFunction> qlstm(const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm);

#if ACL_SHIM_WITH_NEON
template <>
std::unique_ptr<acl::IFunction> qlstm<Neon>(const acl_shim_params &p, const std::vector<acl::ITensor *> &t,
                                            const std::shared_ptr<acl::IMemoryManager> &mm) {
#if ACL_SHIM_ACL_VERSION < 2411
    (void)p, (void)t, (void)mm;
    fail(ACL_SHIM_ERR_ACL_STATUS, "NEQLSTMLayer::validate: refused on ACL " + std::to_string(ACL_SHIM_ACL_VERSION) +
                                      ": its QLSTMLayer was not measured there (its LSTMLayer's configure() did not "
                                      "return); 24.11 runs it");
#else
    return qlstm_neon(p, t, mm);
#endif
}
#endif

#if ACL_SHIM_WITH_CL
template <>
std::unique_ptr<acl::IFunction> qlstm<Cl>(const acl_shim_params &, const std::vector<acl::ICLTensor *> &,
                                          const std::shared_ptr<acl::IMemoryManager> &) {
    fail(ACL_SHIM_ERR_UNSUPPORTED, "qlstm: NEON only (CLQLSTMLayer is not wired in this bridge)");
}
#endif

template <typename E>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_QLSTM: return qlstm<E>(p, t, mm);
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_qlstm)

}  // namespace acl_shim_detail
