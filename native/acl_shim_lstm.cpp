// acl_shim_lstm.cpp -- the LSTM room: one row, for NEON (E = Neon) and CL (E = Cl) alike.
//   lstm (27 tensors: TFLite's 24 LSTM inputs in its order, then output_state_out,
//     cell_state_out, output): NELSTMLayer / CLLSTMLayer, one float time step. Absent input
//     weights 1 (with 5, 12) is CIFG; present 10 / 11 peepholes (9 too without CIFG); present 16
//     projection (17 its optional bias); present 21..23 layer normalization (20 too without
//     CIFG). ACL's scratch buffer, and any of the three outputs left NULL, are tensors of the
//     shim's own (allocated after configure), so a caller may take only the output it needs.
//     params.activation / act_a / act_b: the cell activation; cell_clip, projection_clip: 0
//     disables. ACL 20.08 and 24.11 have the same configure() and LSTMParams. ACL's projection
//     clip is LU_BOUNDED_RELU(-clip, clip), min(-clip, max(clip, x)): -clip everywhere (both
//     backends, 20.08 and 24.11; measured on 24.11 NEON): the shim gives ACL none and clips the
//     outputs the caller takes itself, in place, with (clip, -clip). ACL 20.08: refused as ACL's
//     own refusal (ACL_SHIM_ERR_ACL_STATUS naming NELSTMLayer::validate), so the runner falls back:
//     its configure() did not return (a CIFG, peephole, projection, layer-norm step of batch 2
//     spun over 7 minutes at full CPU under QEMU, measured in acl_shim_plan_create; the plain
//     step was not tried).
// A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its NE and CL types below, its row.
#include "acl_shim_families.h"

#include "acl_shim_builders.h"
#include "acl_shim_descriptions.h"
#include "acl_shim_status.h"

#include "arm_compute/core/TensorInfo.h"
#include "arm_compute/runtime/common/LSTMParams.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEActivationLayer.h"
#include "arm_compute/runtime/NEON/functions/NELSTMLayer.h"
#include "arm_compute/runtime/Tensor.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/core/CL/ICLTensor.h"
#include "arm_compute/runtime/CL/CLTensor.h"
#include "arm_compute/runtime/CL/functions/CLActivationLayer.h"
#include "arm_compute/runtime/CL/functions/CLLSTMLayer.h"
#endif

#include <array>
#include <string>

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_LSTM_TYPES(P, I, T)          \
    static constexpr const char *prefix = #P; \
    using ITensor = acl::I;                   \
    using Tensor = acl::T;                    \
    using Lstm = acl::P##LSTMLayer;           \
    using Activation = acl::P##ActivationLayer;
#if ACL_SHIM_WITH_NEON
struct Neon {
    ACL_SHIM_LSTM_TYPES(NE, ITensor, Tensor)
};
#endif
#if ACL_SHIM_WITH_CL
struct Cl {
    ACL_SHIM_LSTM_TYPES(CL, ICLTensor, CLTensor)
};
#endif
#undef ACL_SHIM_LSTM_TYPES

// TFLite's LSTM input indices (lstm_shared.h), then the outputs
enum : size_t {
    INPUT = 0, I2I = 1, I2F, I2C, I2O, R2I, R2F, R2C, R2O, C2I, C2F, C2O, BI, BF, BC, BO, PROJ_W, PROJ_B,
    STATE_IN, CELL_IN, LN_I, LN_F, LN_C, LN_O, STATE_OUT, CELL_OUT, OUTPUT, COUNT
};

// The layer, the projection clips of the outputs the caller gave, and the tensors the layer
// writes that the caller did not give (ACL's scratch buffer always): allocated after
// configure, freed with the function.
template <typename E>
struct LstmStep : acl::IFunction {
    std::array<typename E::Tensor, 4> own;  // scratch, output state, cell state, output
    std::unique_ptr<typename E::Lstm> layer;
    std::vector<std::unique_ptr<typename E::Activation>> clips;
    void run() override {
        layer->run();
        for (auto &c : clips) c->run();
    }
    void prepare() override { layer->prepare(); }
};

// params := the optional parts present (T: ITensor for configure, ITensorInfo for validate;
// LSTMParams cannot be copied)
template <typename T, typename G>
void set_lstm_params(acl::LSTMParams<T> &params, const G &get, bool cifg, bool peephole, bool projection,
                     bool layer_norm) {
    if (!cifg) params.set_cifg_params(get(I2I), get(R2I), get(C2I), get(BI));
    if (peephole) params.set_peephole_params(get(C2F), get(C2O));
    if (projection) params.set_projection_params(get(PROJ_W), get(PROJ_B));
    if (layer_norm) params.set_layer_normalization_params(get(LN_I), get(LN_F), get(LN_C), get(LN_O));
}

template <typename E>
std::unique_ptr<acl::IFunction> lstm(const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                     const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, COUNT, {INPUT, I2F, I2C, I2O, R2F, R2C, R2O, BF, BC, BO, STATE_IN, CELL_IN}, "lstm");
#if ACL_SHIM_ACL_VERSION < 2411
    (void)p, (void)mm;
    fail(ACL_SHIM_ERR_ACL_STATUS, name<E>("LSTMLayer") + ": refused on ACL " + std::to_string(ACL_SHIM_ACL_VERSION) +
                                      ": its LSTMLayer::configure() did not return (measured); 24.11 runs it");
#else
    const bool cifg = t[I2I] == nullptr, peephole = t[C2F] != nullptr, projection = t[PROJ_W] != nullptr,
               layer_norm = t[LN_F] != nullptr;
    require(p.cell_clip >= 0 && p.projection_clip >= 0, "lstm: cell_clip and projection_clip must be >= 0");
    auto f = std::make_unique<LstmStep<E>>();
    // ACL's order: state (n_output, batch), cell (n_cell, batch); scratch n_cell * (3 with CIFG, else 4)
    const acl::ITensorInfo *state = t[STATE_IN]->info(), *cell = t[CELL_IN]->info();
    const acl::TensorShape cells(cell->dimension(0) * (cifg ? 3 : 4), cell->dimension(1));
    const acl::TensorInfo infos[4] = {acl::TensorInfo(cells, 1, state->data_type()),
                                      acl::TensorInfo(state->tensor_shape(), 1, state->data_type()),
                                      acl::TensorInfo(cell->tensor_shape(), 1, cell->data_type()),
                                      acl::TensorInfo(state->tensor_shape(), 1, state->data_type())};
    typename E::ITensor *outs[4] = {nullptr, t[STATE_OUT], t[CELL_OUT], t[OUTPUT]};
    for (size_t k = 0; k < 4; ++k) {
        if (outs[k] == nullptr) {
            f->own[k].allocator()->init(infos[k]);
            outs[k] = &f->own[k];
        }
    }
    const auto info = [&](size_t k) -> acl::ITensorInfo * { return info_of(t[k]); };
    const auto tensor = [&](size_t k) -> typename E::ITensor * { return t[k]; };
    const acl::ActivationLayerInfo act = to_activation(p.activation, p.act_a, p.act_b);
    acl::LSTMParams<acl::ITensorInfo> info_params;
    set_lstm_params(info_params, info, cifg, peephole, projection, layer_norm);
    acl::LSTMParams<typename E::ITensor> tensor_params;
    set_lstm_params(tensor_params, tensor, cifg, peephole, projection, layer_norm);
    check_status(E::Lstm::validate(info(INPUT), info(I2F), info(I2C), info(I2O), info(R2F), info(R2C), info(R2O),
                                   info(BF), info(BC), info(BO), info(STATE_IN), info(CELL_IN), outs[0]->info(),
                                   outs[1]->info(), outs[2]->info(), outs[3]->info(),
                                   info_params, act, p.cell_clip, 0.f),
                 name<E>("LSTMLayer").c_str());
    const bool clip = projection && p.projection_clip > 0;
    const acl::ActivationLayerInfo bound(acl::ActivationLayerInfo::ActivationFunction::LU_BOUNDED_RELU,
                                         p.projection_clip, -p.projection_clip);
    for (size_t k : {size_t(1), size_t(3)}) {
        if (clip && outs[k] == t[STATE_OUT + k - 1]) {
            check_status(E::Activation::validate(outs[k]->info(), nullptr, bound), name<E>("ActivationLayer").c_str());
        }
    }
    f->layer = make<typename E::Lstm>(mm);
    f->layer->configure(t[INPUT], t[I2F], t[I2C], t[I2O], t[R2F], t[R2C], t[R2O], t[BF], t[BC], t[BO], t[STATE_IN],
                        t[CELL_IN], outs[0], outs[1], outs[2], outs[3],
                        tensor_params, act, p.cell_clip, 0.f);
    for (size_t k : {size_t(1), size_t(3)}) {
        if (clip && outs[k] == t[STATE_OUT + k - 1]) {
            f->clips.push_back(make<typename E::Activation>(mm));
            f->clips.back()->configure(outs[k], nullptr, bound);
        }
    }
    for (size_t k = 0; k < 4; ++k) {
        if (outs[k] == &f->own[k]) f->own[k].allocator()->allocate();
    }
    return f;
#endif
}

template <typename E>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_LSTM: return lstm<E>(p, t, mm);
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_lstm)

}  // namespace acl_shim_detail
