// acl_shim_padding.cpp -- the padding room: what ACL makes of a layout, asked of ACL itself
// on scratch tensors, never on the caller's memory (acl_shim.h, "functions" and "layouts and
// schedules"):
//   acl_shim_required_padding  the padding a function asks for on resizable tensors;
//   acl_shim_probe             bytes written outside the elements, and results that differ
//                              from a dense run, for exactly the given layouts;
//   acl_shim_check_layouts     whether validate() and configure() accept those layouts;
//   acl_shim_auto_padding      TensorInfo::auto_padding() of a desc.
// Its interface is acl_shim.h; functions are built through the functions room (build_on).
#include "acl_shim.h"
#include "acl_shim_descriptions.h"
#include "acl_shim_functions.h"
#include "acl_shim_status.h"
#include "acl_shim_tensors.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using namespace acl_shim_detail;

namespace {

// Calls fn(first linear index, byte offset in a, byte offset in b, count) for every element
// of two layouts of one shape (sizes n[0..dims), byte strides sa and sb, first elements at
// base_a and base_b), x fastest, in runs: where both x strides are the element size es, a
// run is count elements whose bytes lie back to back in both layouts, dimensions merged
// where both layouts continue across them (a dense tensor, or the rows of a view into a
// wider one, is a few runs: one memset/memcpy/memcmp each instead of a call per element);
// else every element is a run of its own. Dimensions of size 1 take no part.
template <typename Fn>
void for_each_run(size_t dims, const uint64_t *n, const uint64_t *sa, const uint64_t *sb, uint64_t base_a,
                  uint64_t base_b, size_t es, Fn &&fn) {
    uint64_t N[ACL_SHIM_MAX_DIMS], A[ACL_SHIM_MAX_DIMS], B[ACL_SHIM_MAX_DIMS];
    size_t d = 0;
    for (size_t i = 0; i < dims; ++i) {
        if (n[i] == 0) return;
        if (n[i] == 1) continue;
        N[d] = n[i], A[d] = sa[i], B[d] = sb[i];
        ++d;
    }
    if (d == 0) {
        fn(0, base_a, base_b, 1);
        return;
    }
    const bool contiguous = A[0] == es && B[0] == es;
    if (contiguous) {  // dimension i continues dimension m in both layouts: one of N[m] * N[i]
        size_t m = 0;
        for (size_t i = 1; i < d; ++i) {
            if (A[i] == A[m] * N[m] && B[i] == B[m] * N[m]) {
                N[m] *= N[i];
            } else {
                ++m;
                N[m] = N[i], A[m] = A[i], B[m] = B[i];
            }
        }
        d = m + 1;
    }
    const size_t outer = contiguous ? 1 : 0;  // dimensions stepped by the odometer
    const uint64_t run = contiguous ? N[0] : 1;
    uint64_t coord[ACL_SHIM_MAX_DIMS] = {0};
    for (uint64_t k = 0;; k += run) {
        fn(k, base_a, base_b, run);
        size_t i = outer;
        for (; i < d; ++i) {
            base_a += A[i];
            base_b += B[i];
            if (++coord[i] < N[i]) break;
            base_a -= A[i] * N[i];
            base_b -= B[i] * N[i];
            coord[i] = 0;
        }
        if (i >= d) return;
    }
}

// Sets the bytes of every element of a tensor described by d in memory to value (those
// inside memory's size).
void set_elements(const acl_shim_tensor_desc &d, size_t element_size, std::vector<uint8_t> &memory, uint8_t value) {
    const size_t dims = std::max<int32_t>(1, d.num_dims);
    uint64_t n[ACL_SHIM_MAX_DIMS], s[ACL_SHIM_MAX_DIMS];
    for (size_t i = 0; i < dims; ++i) {
        n[i] = d.num_dims ? d.shape[i] : 1;
        s[i] = d.num_dims ? d.strides_in_bytes[i] : 0;
    }
    const uint64_t size = memory.size();
    for_each_run(dims, n, s, s, d.offset_first_element_in_bytes, d.offset_first_element_in_bytes, element_size,
                 [&](uint64_t, uint64_t off, uint64_t, uint64_t count) {
                     if (off < size) std::memset(memory.data() + off, value, std::min<uint64_t>(count * element_size, size - off));
                 });
}

// for_each_run over two tensors of the same shape (a and b may have different strides and
// offsets).
template <typename Fn>
void for_each_element_run(const acl::ITensorInfo &a, const acl::ITensorInfo &b, Fn &&fn) {
    const acl::TensorShape &shape = a.tensor_shape();
    const size_t dims = std::max<size_t>(1, shape.num_dimensions());
    uint64_t n[ACL_SHIM_MAX_DIMS], sa[ACL_SHIM_MAX_DIMS], sb[ACL_SHIM_MAX_DIMS];
    for (size_t i = 0; i < dims; ++i) {
        n[i] = shape[i];
        sa[i] = a.strides_in_bytes()[i];
        sb[i] = b.strides_in_bytes()[i];
    }
    for_each_run(dims, n, sa, sb, a.offset_first_element_in_bytes(), b.offset_first_element_in_bytes(),
                 a.element_size(), fn);
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

// The probe's element values: small, varied, exact in every data type. Quantized 8-bit
// tensors get values over most of their range instead: with small ones a quantized function's
// outputs can all land on one value (a fused clamp, the zero point), and then a kernel that
// mis-addresses a layout goes unseen (measured: CL int8 depthwise with per-channel weights at
// an offset, outputs all clamped to the RELU6 floor on both runs).
void write_value(acl::DataType dt, uint64_t k, uint8_t *p) {
    const int v = static_cast<int>(k % 13);
    const int wide = static_cast<int>((k * 37) % 251);  // 0..250, a full cycle (251 is prime)
    switch (dt) {
        case acl::DataType::QASYMM8: *p = static_cast<uint8_t>(wide); return;
        case acl::DataType::QSYMM8_PER_CHANNEL:
        case acl::DataType::QSYMM8:  // the qlstm family's weights (ABI 18)
        case acl::DataType::QASYMM8_SIGNED: *reinterpret_cast<int8_t *>(p) = static_cast<int8_t>(wide - 125); return;
        default: break;
    }
    switch (dt) {
        case acl::DataType::F32: { float f = (v - 6) * 0.125f; std::memcpy(p, &f, 4); break; }
        case acl::DataType::F16: { uint16_t h = to_half_bits((v - 6) * 0.125f); std::memcpy(p, &h, 2); break; }
        case acl::DataType::S32: { int32_t i = v - 6; std::memcpy(p, &i, 4); break; }
        case acl::DataType::S16:
        case acl::DataType::QSYMM16: { int16_t i = static_cast<int16_t>(v - 6); std::memcpy(p, &i, 2); break; }
        case acl::DataType::U16: { uint16_t i = static_cast<uint16_t>(v); std::memcpy(p, &i, 2); break; }
        case acl::DataType::S8: *reinterpret_cast<int8_t *>(p) = static_cast<int8_t>(v - 6); break;
        default: *p = static_cast<uint8_t>(v); break;
    }
}

// One element's bytes compared with sizes the compiler sees (a memcmp of a size known only
// at run time is a library call per element).
inline bool same_bytes(const uint8_t *a, const uint8_t *b, size_t size) {
    switch (size) {
        case 1: return *a == *b;
        case 2: return std::memcmp(a, b, 2) == 0;
        case 4: return std::memcmp(a, b, 4) == 0;
        case 8: return std::memcmp(a, b, 8) == 0;
        default: return std::memcmp(a, b, size) == 0;
    }
}

// write_value's values repeat after this many elements.
uint64_t value_period(acl::DataType dt) {
    switch (dt) {
        case acl::DataType::QASYMM8:
        case acl::DataType::QSYMM8_PER_CHANNEL:
        case acl::DataType::QSYMM8:
        case acl::DataType::QASYMM8_SIGNED: return 251;
        default: return 13;
    }
}

// write_value's values of one data type, each element's bytes written over blank (bytes
// write_value leaves alone keep it): one period repeated to span a chunk from any phase, so
// a run of elements from linear index k is a memcpy per chunk.
class Values {
  public:
    Values(acl::DataType dt, size_t element_size, uint8_t blank)
        : es_(element_size), period_(value_period(dt)), bytes_((period_ + chunk) * es_, blank) {
        for (uint64_t k = 0; k < period_ + chunk; ++k) write_value(dt, k % period_, bytes_.data() + k * es_);
    }
    // The values of elements k..k+count written from to on (back to back).
    void write(uint8_t *to, uint64_t k, uint64_t count) const {
        for (uint64_t phase = k % period_; count > 0;) {
            const uint64_t m = std::min<uint64_t>(count, chunk);
            std::memcpy(to, bytes_.data() + phase * es_, m * es_);
            to += m * es_;
            count -= m;
            phase = (phase + m) % period_;
        }
    }

  private:
    static constexpr uint64_t chunk = 1024;
    size_t es_;
    uint64_t period_;
    std::vector<uint8_t> bytes_;
};

// Of memory whose element bytes have been set back to fill (set_elements): 0 when every byte
// holds fill, 1 when some byte inside the allocation's total bytes does not, 2 when some
// byte of the guard after them does not. Eight bytes a word; only a word that is not all
// fill is looked at byte by byte.
int32_t written_outside(const std::vector<uint8_t> &memory, size_t total, uint8_t fill) {
    const uint64_t all_fill = 0x0101010101010101ull * fill;
    const size_t size = memory.size(), words = size / 8;
    bool inside = false;
    auto bytes = [&](size_t from, size_t to) {  // 2 at a changed guard byte, else 0 (inside noted)
        for (size_t b = from; b < to; ++b) {
            if (memory[b] == fill) continue;
            if (b >= total) return 2;  // past the allocation, into the guard
            inside = true;
        }
        return 0;
    };
    for (size_t w = 0; w < words; ++w) {
        uint64_t v;
        std::memcpy(&v, memory.data() + w * 8, 8);
        if (v != all_fill && bytes(w * 8, w * 8 + 8) == 2) return 2;
    }
    if (bytes(words * 8, size) == 2) return 2;
    return inside ? 1 : 0;
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
        case acl::DataType::S16:
        case acl::DataType::QSYMM16: { int16_t x, y; std::memcpy(&x, a, 2); std::memcpy(&y, b, 2); return std::abs(x - y) <= 1; }
        case acl::DataType::U16: { uint16_t x, y; std::memcpy(&x, a, 2); std::memcpy(&y, b, 2); return std::abs(x - y) <= 1; }
        case acl::DataType::S8:
        case acl::DataType::QSYMM8_PER_CHANNEL:
        case acl::DataType::QSYMM8:
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

int32_t acl_shim_required_padding(int32_t kind, const acl_shim_params *params,
                                  const acl_shim_tensor_desc *const *descs, int32_t n, acl_shim_padding *out) {
    return guarded([&] {
        require(params != nullptr && descs != nullptr && out != nullptr, "params, descs and out must not be NULL");
        require(n >= 1 && n <= ACL_SHIM_MAX_FUNCTION_TENSORS, "n must be 1..32");
        const int32_t backend = common_backend(descs, n);
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
        require(n >= 1 && n <= ACL_SHIM_MAX_FUNCTION_TENSORS, "n must be 1..32");
        const int32_t backend = common_backend(descs, n);
        constexpr size_t guard = 256;
        constexpr uint8_t fill = 0xa5;  // every byte that is not an element
        std::vector<std::vector<uint8_t>> memory(n), dense_memory(n);
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
            import_host(*owned[i], memory[i].data(), descs[i]->total_size_in_bytes);
            dense_memory[i].assign(std::max<size_t>(1, info_dense.total_size()), 0);
            import_host(*dense[i], dense_memory[i].data(), dense_memory[i].size());
            // the same values in both layouts, over what each memory held (fill, or zeros)
            const Values values(info.data_type(), info.element_size(), fill),
                values_dense(info_dense.data_type(), info.element_size(), 0);
            uint8_t *mem = memory[i].data(), *mem_dense = dense_memory[i].data();
            for_each_element_run(info, info_dense, [&](uint64_t k, uint64_t off, uint64_t off_dense, uint64_t count) {
                values.write(mem + off, k, count);
                values_dense.write(mem_dense + off_dense, k, count);
            });
            used.push_back(owned[i]);
            used_dense.push_back(dense[i]);
        }
        try {
            run_on(*f, used);
        } catch (const ShimError &e) {
            // a kind that checks index values at run (gather_nd) refused the scratch values:
            // its integer tensors hold zeros instead (an index in range), the rest as they were
            if (e.code != ACL_SHIM_ERR_INDEX_OUT_OF_RANGE) throw;
            for (int i = 0; i < n; ++i) {
                if (t[i] == nullptr) continue;
                const acl::ITensorInfo &info = *t[i]->get()->info(), &info_dense = *td[i]->get()->info();
                const acl::DataType dt = info.data_type();
                if (dt != acl::DataType::S32 && dt != acl::DataType::S64) continue;
                for_each_element_run(info, info_dense, [&](uint64_t, uint64_t off, uint64_t off_dense, uint64_t count) {
                    std::memset(memory[i].data() + off, 0, count * info.element_size());
                    std::memset(dense_memory[i].data() + off_dense, 0, count * info.element_size());
                });
            }
            run_on(*f, used);
        }
        run_on(*fd, used_dense);
        *same_result = 1;
        for (int i = 0; i < n; ++i) {
            writes_outside[i] = 0;
            if (t[i] == nullptr) continue;
            const acl::ITensorInfo &info = *t[i]->get()->info(), &info_dense = *td[i]->get()->info();
            const size_t es = info.element_size();
            const uint8_t *mem = memory[i].data(), *mem_dense = dense_memory[i].data();
            for_each_element_run(info, info_dense, [&](uint64_t, uint64_t off, uint64_t off_dense, uint64_t count) {
                if (std::memcmp(mem + off, mem_dense + off_dense, count * es) == 0) return;  // the same values
                for (uint64_t j = 0; j < count * es; j += es)  // element by element: within tolerance
                    if (!same_bytes(mem + off + j, mem_dense + off_dense + j, es) &&
                        !same_value(info.data_type(), mem + off + j, mem_dense + off_dense + j))
                        *same_result = 0;
            });
            // the elements compared, their bytes back to fill: any other byte that is not fill
            // was written outside them
            set_elements(*descs[i], es, memory[i], fill);
            writes_outside[i] = written_outside(memory[i], descs[i]->total_size_in_bytes, fill);
        }
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
        require(n >= 1 && n <= ACL_SHIM_MAX_FUNCTION_TENSORS, "n must be 1..32");
        const int32_t backend = common_backend(descs, n);
        std::vector<TensorState *> t;
        const Tensors owned = scratch_tensors(backend, descs, n, imported_info, t);
        build_on(backend, kind, *params, t);
    });
}

}  // extern "C"
