// acl_shim_movement.cpp -- the data-movement family room: one row per kind in build<E>, for NEON
// (E = Neon) and CL (E = Cl) alike. Every kind moves elements without arithmetic (any data
// type ACL's validate() takes, int8 as stored):
//   strided_slice (src, dst): NEStridedSlice, begin / end / stride per ACL dimension and
//     begin / end / shrink masks (params.slice_*, bit i: ACL dimension i);
//   gather (src, indices, dst): NEGather along params.axis (ACL order), int32 indices;
//   tile (src, dst): NETile, params.multiples per ACL dimension;
//   depth_to_space / space_to_depth (src, dst): NEDepthToSpaceLayer / NESpaceToDepthLayer,
//     params.block_x;
//   batch_to_space / space_to_batch (src, dst): NEBatchToSpaceLayer / NESpaceToBatchLayer with
//     static block shapes (params.block_x, block_y) and crops / paddings (params.pad_*).
// ACL 20.08 and 24.11 have every function under the same names (NEON); 20.08's batch-to-space
// takes no crops, so crops there are refused as ACL's NEBatchToSpaceLayer::validate would.
// A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its NE and CL types below, its row.
#include "acl_shim_families.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEBatchToSpaceLayer.h"
#include "arm_compute/runtime/NEON/functions/NEDepthToSpaceLayer.h"
#include "arm_compute/runtime/NEON/functions/NEGather.h"
#include "arm_compute/runtime/NEON/functions/NESpaceToBatchLayer.h"
#include "arm_compute/runtime/NEON/functions/NESpaceToDepthLayer.h"
#include "arm_compute/runtime/NEON/functions/NEStridedSlice.h"
#include "arm_compute/runtime/NEON/functions/NETile.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/functions/CLBatchToSpaceLayer.h"
#include "arm_compute/runtime/CL/functions/CLDepthToSpaceLayer.h"
#include "arm_compute/runtime/CL/functions/CLGather.h"
#include "arm_compute/runtime/CL/functions/CLSpaceToBatchLayer.h"
#include "arm_compute/runtime/CL/functions/CLSpaceToDepthLayer.h"
#include "arm_compute/runtime/CL/functions/CLStridedSlice.h"
#include "arm_compute/runtime/CL/functions/CLTile.h"
#endif

namespace acl_shim_detail {

namespace {

#define ACL_SHIM_MOVEMENT_TYPES(P)                      \
    using StridedSlice = acl::P##StridedSlice;          \
    using Gather = acl::P##Gather;                      \
    using Tile = acl::P##Tile;                          \
    using DepthToSpace = acl::P##DepthToSpaceLayer;     \
    using SpaceToDepth = acl::P##SpaceToDepthLayer;     \
    using BatchToSpace = acl::P##BatchToSpaceLayer;     \
    using SpaceToBatch = acl::P##SpaceToBatchLayer;

#if ACL_SHIM_WITH_NEON
struct Neon : NeonTag {
    ACL_SHIM_MOVEMENT_TYPES(NE)
};
#endif
#if ACL_SHIM_WITH_CL
struct Cl : ClTag {
    ACL_SHIM_MOVEMENT_TYPES(CL)
};
#endif
#undef ACL_SHIM_MOVEMENT_TYPES

template <typename E, typename T>
std::unique_ptr<acl::IFunction> strided_slice(const acl_shim_params &p, const std::vector<T *> &t,
                                              const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 2, {0, 1}, "strided_slice");
    require(p.slice_len >= 1 && p.slice_len <= ACL_SHIM_MAX_DIMS, "strided_slice: slice_len must be 1..6");
    acl::Coordinates starts, ends;
    acl::BiStrides strides;
    for (int i = 0; i < p.slice_len; ++i) {
        require(p.slice_stride[i] != 0, "strided_slice: slice_stride[" + std::to_string(i) + "] is 0");
        starts.set(i, p.slice_begin[i]);
        ends.set(i, p.slice_end[i]);
        strides.set(i, p.slice_stride[i]);
    }
    check_status(E::StridedSlice::validate(t[0]->info(), t[1]->info(), starts, ends, strides, p.begin_mask,
                                           p.end_mask, p.shrink_mask),
                 name<E>("StridedSlice").c_str());
    auto f = make<typename E::StridedSlice>(mm);
    f->configure(t[0], t[1], starts, ends, strides, p.begin_mask, p.end_mask, p.shrink_mask);
    return f;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> gather(const acl_shim_params &p, const std::vector<T *> &t,
                                       const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 3, {0, 1, 2}, "gather");
    check_status(E::Gather::validate(t[0]->info(), t[1]->info(), t[2]->info(), p.axis), name<E>("Gather").c_str());
    auto f = make<typename E::Gather>(mm);
    f->configure(t[0], t[1], t[2], p.axis);
    return f;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> tile(const acl_shim_params &p, const std::vector<T *> &t,
                                     const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 2, {0, 1}, "tile");
    require(p.multiples_len >= 1 && p.multiples_len <= ACL_SHIM_MAX_DIMS, "tile: multiples_len must be 1..6");
    const acl::Multiples multiples(p.multiples, p.multiples + p.multiples_len);
    check_status(E::Tile::validate(t[0]->info(), t[1]->info(), multiples), name<E>("Tile").c_str());
    auto f = make<typename E::Tile>(mm);
    f->configure(t[0], t[1], multiples);
    return f;
}

// depth_to_space and space_to_depth: (src, dst, block)
template <typename Fn, typename T>
std::unique_ptr<acl::IFunction> blocks(const acl_shim_params &p, const std::vector<T *> &t, const char *kind,
                                       const std::string &acl_name, const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 2, {0, 1}, kind);
    require(p.block_x >= 2, std::string(kind) + ": block_x is " + std::to_string(p.block_x) + ", expected >= 2");
    check_status(Fn::validate(t[0]->info(), t[1]->info(), p.block_x), acl_name.c_str());
    auto f = make<Fn>(mm);
    f->configure(t[0], t[1], p.block_x);
    return f;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> batch_to_space(const acl_shim_params &p, const std::vector<T *> &t,
                                               const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 2, {0, 1}, "batch_to_space");
    const std::string acl_name = name<E>("BatchToSpaceLayer");
#if ACL_SHIM_ACL_VERSION >= 2411
    const acl::CropInfo crops(p.pad_left, p.pad_right, p.pad_top, p.pad_bottom);
    check_status(E::BatchToSpace::validate(t[0]->info(), p.block_x, p.block_y, t[1]->info(), crops), acl_name.c_str());
    auto f = make<typename E::BatchToSpace>(mm);
    f->configure(t[0], p.block_x, p.block_y, t[1], crops);
#else
    if (p.pad_left != 0 || p.pad_right != 0 || p.pad_top != 0 || p.pad_bottom != 0) {
        check_status(acl::Status(acl::ErrorCode::RUNTIME_ERROR,
                                 "crops are unsupported on this ACL (its batch-to-space takes no crop_info)"),
                     acl_name.c_str());
    }
    check_status(E::BatchToSpace::validate(t[0]->info(), p.block_x, p.block_y, t[1]->info()), acl_name.c_str());
    auto f = make<typename E::BatchToSpace>(mm);
    f->configure(t[0], p.block_x, p.block_y, t[1]);
#endif
    return f;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> space_to_batch(const acl_shim_params &p, const std::vector<T *> &t,
                                               const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 2, {0, 1}, "space_to_batch");
    const acl::Size2D before(p.pad_left, p.pad_top), after(p.pad_right, p.pad_bottom);
    check_status(E::SpaceToBatch::validate(t[0]->info(), p.block_x, p.block_y, before, after, t[1]->info()),
                 name<E>("SpaceToBatchLayer").c_str());
    auto f = make<typename E::SpaceToBatch>(mm);
    f->configure(t[0], p.block_x, p.block_y, before, after, t[1]);
    return f;
}

template <typename E, typename T>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<T *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {  // one row per kind
        case ACL_SHIM_FN_STRIDED_SLICE: return strided_slice<E>(p, t, mm);
        case ACL_SHIM_FN_GATHER: return gather<E>(p, t, mm);
        case ACL_SHIM_FN_TILE: return tile<E>(p, t, mm);
        case ACL_SHIM_FN_DEPTH_TO_SPACE:
            return blocks<typename E::DepthToSpace>(p, t, "depth_to_space", name<E>("DepthToSpaceLayer"), mm);
        case ACL_SHIM_FN_SPACE_TO_DEPTH:
            return blocks<typename E::SpaceToDepth>(p, t, "space_to_depth", name<E>("SpaceToDepthLayer"), mm);
        case ACL_SHIM_FN_BATCH_TO_SPACE: return batch_to_space<E>(p, t, mm);
        case ACL_SHIM_FN_SPACE_TO_BATCH: return space_to_batch<E>(p, t, mm);
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_movement)

}  // namespace acl_shim_detail
