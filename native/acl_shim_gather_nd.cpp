// acl_shim_gather_nd.cpp -- the gather_nd room (ABI 17): TFLite's GATHER_ND with runtime indices.
//   gather_nd (src (K, C), indices (N, D) S32 / S64, dst (N, C)): ACL has no GatherNd function,
//     so the shim composes one as Arm NN's workload does, with TensorFlow's check (as TFLite 2.x's kernel):
//     each run reads the index rows on the CPU, flattens row n to sum_j indices[n, j] *
//     gather_nd_strides[j] into an S32 tensor of its own and checks every component against
//     its axis (0..extent-1, the extents from K and the strides; else ACL_SHIM_ERR_INDEX_OUT_OF_RANGE
//     naming the first row, before anything is written: ACL's Gather leaves such an index undefined),
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

// Row n's flat position, or throws naming the first row with a component outside 0..extent-1
// of its axis (negative ones said apart: TFLite's kernel refuses every negative index).
template <typename I>
void flatten(const acl::ITensor &indices, const int64_t *strides, const int64_t *extents, int32_t *flat) {
    const acl::ITensorInfo &info = *indices.info();
    const size_t d = info.dimension(0), n = info.tensor_shape().total_size_upper(1);
    const size_t step = info.strides_in_bytes()[0], row = info.strides_in_bytes()[1];
    const uint8_t *base = indices.buffer() + info.offset_first_element_in_bytes();
    for (size_t r = 0; r < n; ++r) {
        int64_t pos = 0;
        size_t bad = d;
        int64_t bad_value = 0;
        for (size_t j = 0; j < d && bad == d; ++j) {
            I v;
            std::memcpy(&v, base + r * row + j * step, sizeof v);
            if (v < 0 || static_cast<int64_t>(v) >= extents[j]) {
                bad = j;
                bad_value = static_cast<int64_t>(v);
            } else {
                pos += static_cast<int64_t>(v) * strides[j];
            }
        }
        if (bad < d) {
            std::string values, space;
            for (size_t j = 0; j < d; ++j) {
                I v;
                std::memcpy(&v, base + r * row + j * step, sizeof v);
                values += (j ? ", " : "") + std::to_string(static_cast<int64_t>(v));
                space += (j ? ", " : "") + std::to_string(extents[j]);
            }
            const std::string at = "gather_nd: index [" + values + "] (row " + std::to_string(r) + ")";
            fail(ACL_SHIM_ERR_INDEX_OUT_OF_RANGE,
                 (bad_value < 0 ? at + " has a negative component (TFLite's kernel refuses every negative index)"
                                : at + " is outside src's index space [" + space + "]") +
                     " (component " + std::to_string(bad) + " is " + std::to_string(bad_value) + ", expected 0.." +
                     std::to_string(extents[bad] - 1) + ")");
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

// A tensor mapped for the CPU (a no-op on NEON) until release(), whose failure is thrown; where
// release() was not reached (an exception on the way) the destructor unmaps it, quietly.
template <typename E>
struct Mapped {
    typename E::ITensor *tensor;
    explicit Mapped(typename E::ITensor &t) : tensor(&t) { E::map(t); }
    void release() {
        typename E::ITensor *t = tensor;
        tensor = nullptr;
        E::unmap(*t);
    }
    ~Mapped() {
        if (tensor != nullptr) {
            try {
                E::unmap(*tensor);
            } catch (...) {  // already unwinding: the first error is the one reported
            }
        }
    }
    Mapped(const Mapped &) = delete;
    Mapped &operator=(const Mapped &) = delete;
};

// The composition: the index rows flattened and checked, then ACL's gather of src's rows.
template <typename E>
struct GatherNd : acl::IFunction {
    typename E::ITensor *indices = nullptr;
    typename E::Tensor flat;  // S32 (N): the rows' flat positions, the shim's own memory
    std::unique_ptr<typename E::Gather> gather;
    int64_t strides[ACL_SHIM_MAX_DIMS] = {};
    int64_t extents[ACL_SHIM_MAX_DIMS] = {};  // each component's axis extent: k / strides[0], strides[j-1] / strides[j]
    void run() override {
        Mapped<E> mapped_indices(*indices);
        Mapped<E> mapped_flat(flat);
        int32_t *out = reinterpret_cast<int32_t *>(flat.buffer() + flat.info()->offset_first_element_in_bytes());
        if (indices->info()->data_type() == acl::DataType::S64) {
            flatten<int64_t>(*indices, strides, extents, out);
        } else {
            flatten<int32_t>(*indices, strides, extents, out);
        }
        mapped_flat.release();
        mapped_indices.release();
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
    require(src.num_dimensions() <= 2, "gather_nd: src must be (K, C)");
    const size_t d = idx.dimension(0), n = idx.dimension(1);
    require(d >= 1 && d <= ACL_SHIM_MAX_DIMS, "gather_nd: an index row has 1..6 components");
    auto f = std::make_unique<GatherNd<E>>();
    for (size_t j = 0; j < d; ++j) {
        require(p.gather_nd_strides[j] >= 1, "gather_nd: gather_nd_strides[" + std::to_string(j) + "] must be >= 1");
        f->strides[j] = p.gather_nd_strides[j];
    }
    const int64_t k = static_cast<int64_t>(src.dimension(1));
    require(k <= INT32_MAX, "gather_nd: src has more rows than an S32 index reaches");
    for (size_t j = 0; j < d; ++j) {
        const int64_t outer = j == 0 ? k : f->strides[j - 1];
        require(outer % f->strides[j] == 0 && (j + 1 < d || f->strides[j] == 1),
                "gather_nd: gather_nd_strides must be src's row counts per component (each dividing the one before, "
                "src's rows dividing by the first, the last 1)");
        f->extents[j] = outer / f->strides[j];
    }
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
