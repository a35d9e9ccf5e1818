// acl_shim_gather_nd.cpp -- the gather_nd room (ABI 17): TFLite's GATHER_ND with runtime indices.
//   gather_nd (src (K, C), indices (N, D) S32 / S64, dst (N, C)): ACL has no GatherNd function,
//     so the shim composes one as Arm NN's workload does, with the check TFLite's kernel makes:
//     each run reads the index rows on the CPU, flattens row n to sum_j indices[n, j] *
//     gather_nd_strides[j] into an S32 tensor of its own and makes TFLite's two checks (no
//     negative component, every position in 0..K-1; else ACL_SHIM_ERR_INDEX_OUT_OF_RANGE naming
//     the first row, before anything is written: ACL's Gather leaves such an index undefined),
//     then ACL's Gather (NEGather / CLGather) moves the rows (along ACL dimension 1 of src). On
//     CL the indices and the shim's S32 tensor are mapped for the CPU's part (a blocking map, so
//     the kernels that wrote the indices have finished) and unmapped before the gather.
#include "acl_shim_families.h"

#include "arm_compute/core/TensorInfo.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEGather.h"
#include "arm_compute/runtime/Tensor.h"
#endif

#if ACL_SHIM_WITH_CL
#include "arm_compute/runtime/CL/CLScheduler.h"
#include "arm_compute/runtime/CL/CLTensor.h"
#include "arm_compute/runtime/CL/functions/CLGather.h"
#endif

#include <cstdint>
#include <cstring>

namespace acl_shim_detail {

namespace {

// Row n's flat position, or throws naming the row where one is outside 0..k-1.
template <typename I>
void flatten(const acl::ITensor &indices, const int64_t *strides, int64_t k, int32_t *flat) {
    const acl::ITensorInfo &info = *indices.info();
    const size_t d = info.dimension(0), n = info.tensor_shape().total_size_upper(1);
    const size_t step = info.strides_in_bytes()[0], row = info.strides_in_bytes()[1];
    const uint8_t *base = indices.buffer() + info.offset_first_element_in_bytes();
    for (size_t r = 0; r < n; ++r) {
        int64_t pos = 0;
        bool negative = false;
        for (size_t j = 0; j < d; ++j) {
            I v;
            std::memcpy(&v, base + r * row + j * step, sizeof v);
            negative = negative || v < 0;
            pos += static_cast<int64_t>(v) * strides[j];
        }
        if (negative || pos < 0 || pos >= k) {
            std::string values;
            for (size_t j = 0; j < d; ++j) {
                I v;
                std::memcpy(&v, base + r * row + j * step, sizeof v);
                values += (j ? ", " : "") + std::to_string(static_cast<int64_t>(v));
            }
            const std::string at = "gather_nd: index [" + values + "] (row " + std::to_string(r) + ")";
            fail(ACL_SHIM_ERR_INDEX_OUT_OF_RANGE,
                 negative ? at + " has a negative component (TFLite's kernel refuses every negative index)"
                          : at + " is outside src's " + std::to_string(k) + " rows (flat position " +
                                std::to_string(pos) + ", expected 0.." + std::to_string(k - 1) + ")");
        }
        flat[r] = static_cast<int32_t>(pos);
    }
}

// The backends: NEON's tensors are host memory; CL's are mapped for the CPU's part (a blocking
// map on the in-order queue also waits for the kernels that wrote the indices).
#if ACL_SHIM_WITH_NEON
struct Neon : NeonTag {
    using Tensor = acl::Tensor;
    using Gather = acl::NEGather;
    static void map(acl::ITensor &) {}
    static void unmap(acl::ITensor &) {}
};
#endif
#if ACL_SHIM_WITH_CL
struct Cl : ClTag {
    using Tensor = acl::CLTensor;
    using Gather = acl::CLGather;
    static void map(acl::ICLTensor &t) { t.map(acl::CLScheduler::get().queue(), true); }
    static void unmap(acl::ICLTensor &t) { t.unmap(acl::CLScheduler::get().queue()); }
};
#endif

// The composition: the index rows flattened and checked, then ACL's gather of src's rows.
template <typename E>
struct GatherNd : acl::IFunction {
    typename E::ITensor *indices = nullptr;
    typename E::Tensor flat;  // S32 (N): the rows' flat positions, the shim's own memory
    std::unique_ptr<typename E::Gather> gather;
    int64_t strides[ACL_SHIM_MAX_DIMS] = {};
    int64_t k = 0;
    void run() override {
        E::map(*indices);
        E::map(flat);
        try {
            int32_t *out = reinterpret_cast<int32_t *>(flat.buffer() + flat.info()->offset_first_element_in_bytes());
            if (indices->info()->data_type() == acl::DataType::S64) {
                flatten<int64_t>(*indices, strides, k, out);
            } else {
                flatten<int32_t>(*indices, strides, k, out);
            }
        } catch (...) {
            E::unmap(flat);
            E::unmap(*indices);
            throw;
        }
        E::unmap(flat);
        E::unmap(*indices);
        gather->run();
    }
    void prepare() override { gather->prepare(); }
};

template <typename E>
std::unique_ptr<acl::IFunction> gather_nd(const acl_shim_params &p, const std::vector<typename E::ITensor *> &t) {
    need(t, 3, {0, 1, 2}, "gather_nd");
    const acl::ITensorInfo &src = *t[0]->info(), &idx = *t[1]->info(), &dst = *t[2]->info();
    const acl::DataType it = idx.data_type();
    require(it == acl::DataType::S32 || it == acl::DataType::S64, "gather_nd: indices must be S32 or S64");
    require(idx.num_dimensions() <= 2, "gather_nd: indices must be (N, D)");
    const size_t d = idx.dimension(0), n = idx.dimension(1);
    require(d >= 1 && d <= ACL_SHIM_MAX_DIMS, "gather_nd: an index row has 1..6 components");
    auto f = std::make_unique<GatherNd<E>>();
    for (size_t j = 0; j < d; ++j) {
        require(p.gather_nd_strides[j] >= 1, "gather_nd: gather_nd_strides[" + std::to_string(j) + "] must be >= 1");
        f->strides[j] = p.gather_nd_strides[j];
    }
    f->k = static_cast<int64_t>(src.dimension(1));
    require(f->k <= INT32_MAX, "gather_nd: src has more rows than an S32 index reaches");
    f->flat.allocator()->init(acl::TensorInfo(acl::TensorShape(n), 1, acl::DataType::S32));
    check_status(E::Gather::validate(&src, f->flat.info(), &dst, 1), name<E>("Gather").c_str());
    f->gather = std::make_unique<typename E::Gather>();
    f->gather->configure(t[0], &f->flat, t[2], 1);
    f->flat.allocator()->allocate();
    f->indices = t[1];
    return f;
}

template <typename E>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &) {
    return kind == ACL_SHIM_FN_GATHER_ND ? gather_nd<E>(p, t) : nullptr;  // one row
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_gather_nd)

}  // namespace acl_shim_detail
