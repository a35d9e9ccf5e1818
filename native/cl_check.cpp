// cl_check.cpp -- a few CL functions through the shim's C ABI (acl_shim.h) on the OpenCL
// device ACL picks, against a plain CPU reference; no Python needed, so it runs on machines
// that have an OpenCL driver but not this project's Python stack (the GPU check of
// docs/opencl.md). Build it against the shim's sources and ACL:
//   g++ -std=c++14 -O2 -DACL_SHIM_WITH_NEON=0 -DACL_SHIM_WITH_CL=1 -Inative -Inative/cl_layer
//       native/cl_check.cpp native/acl_shim*.cpp -larm_compute -o cl_check
//   OPENCL_LAYERS=.../libacl_ndarray_cl_layer.so ./cl_check
// Prints the devices, then one PASS/FAIL line per function with the largest difference and
// the memory route of its output; exit status 0 when everything passed.
#include "acl_shim.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

namespace {

int failures = 0;

struct Buffer {  // one tensor: host bytes laid out as ACL asks (padding declared), its handle
    acl_shim_tensor_desc desc{};
    std::vector<float> host;  // the allocation (padding included)
    acl_shim_tensor *tensor = nullptr;

    float &at(size_t x, size_t y = 0, size_t z = 0, size_t w = 0) {
        const uint64_t off = desc.offset_first_element_in_bytes + x * desc.strides_in_bytes[0] +
                             y * desc.strides_in_bytes[1] + z * desc.strides_in_bytes[2] + w * desc.strides_in_bytes[3];
        return host[off / 4];
    }
};

acl_shim_tensor_desc dense(std::vector<uint32_t> shape, int32_t layout) {
    acl_shim_tensor_desc d{};
    d.num_dims = static_cast<int32_t>(shape.size());
    uint64_t stride = 4;
    for (size_t i = 0; i < shape.size(); ++i) {
        d.shape[i] = shape[i];
        d.strides_in_bytes[i] = stride;
        stride *= shape[i];
    }
    d.total_size_in_bytes = stride;
    d.data_layout = layout;
    d.backend = ACL_SHIM_BACKEND_CL;
    return d;
}

// ACL's padded layout (TensorInfo::extend_padding): padding around x and y, dense above.
void pad(acl_shim_tensor_desc &d, const acl_shim_padding &p) {
    if (p.top + p.right + p.bottom + p.left == 0) return;
    d.declare_padding = 1;
    d.padding_top = p.top, d.padding_right = p.right, d.padding_bottom = p.bottom, d.padding_left = p.left;
    uint64_t stride = 4;
    for (int i = 0; i < d.num_dims; ++i) {
        d.strides_in_bytes[i] = stride;
        stride *= d.shape[i] + (i == 0 ? p.left + p.right : i == 1 ? p.top + p.bottom : 0);
    }
    d.offset_first_element_in_bytes = p.left * 4 + (d.num_dims > 1 ? p.top * d.strides_in_bytes[1] : 0);
    d.total_size_in_bytes = stride;
}

bool ok(int32_t status, const char *what) {
    if (status == ACL_SHIM_OK) return true;
    std::printf("FAIL %s: status %d: %s\n", what, status, acl_shim_last_error());
    ++failures;
    return false;
}

// Negotiate padding, lay the buffers out, create, configure, import, fill inputs, run.
bool run(const char *name, int32_t kind, const acl_shim_params &p, std::vector<acl_shim_tensor_desc> descs,
         std::vector<Buffer> &b, const std::function<void(std::vector<Buffer> &)> &fill, int runs = 5) {
    const int n = static_cast<int>(descs.size());
    std::vector<const acl_shim_tensor_desc *> dp(n);
    for (int i = 0; i < n; ++i) dp[i] = &descs[i];
    std::vector<acl_shim_padding> need(n);
    if (!ok(acl_shim_required_padding(kind, &p, dp.data(), n, need.data()), name)) return false;
    b.assign(n, Buffer());
    std::vector<acl_shim_tensor *> handles(n);
    for (int i = 0; i < n; ++i) {
        pad(descs[i], need[i]);
        b[i].desc = descs[i];
        b[i].host.assign(descs[i].total_size_in_bytes / 4 + 1, -7.0f);
        if (!ok(acl_shim_tensor_create(&descs[i], &b[i].tensor), name)) return false;
        handles[i] = b[i].tensor;
    }
    acl_shim_function *f = nullptr;
    if (!ok(acl_shim_function_create(kind, &p, handles.data(), n, &f), name)) return false;
    for (int i = 0; i < n; ++i)
        if (!ok(acl_shim_tensor_import(b[i].tensor, b[i].host.data()), name)) return false;
    fill(b);
    if (!ok(acl_shim_function_run(f), name)) return false;  // the first run builds device code
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < runs; ++r)
        if (!ok(acl_shim_function_run(f), name)) return false;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / runs;
    acl_shim_tensor_memory m{};
    acl_shim_tensor_memory_get(b[n - 1].tensor, &m);
    std::printf("  %s: %.2f ms per run; output memory route %d, mapped %s the host allocation\n", name, ms, m.route,
                m.mapped_address == m.base_address ? "==" : "!=");
    acl_shim_function_destroy(f);
    return true;
}

void report(const char *name, double max_diff, double tol) {
    const bool pass = max_diff <= tol;
    std::printf("%s %s: max |cl - reference| = %.3g (tolerance %.1g)\n", pass ? "PASS" : "FAIL", name, max_diff, tol);
    failures += !pass;
}

float value(size_t i, int modulo, float scale) { return (static_cast<int>(i % modulo) - modulo / 2) * scale; }

}  // namespace

int main() {
    int32_t count = 0;
    acl_shim_cl_device devs[16];
    if (!ok(acl_shim_cl_devices(devs, 16, &count), "cl_devices")) return 1;
    for (int i = 0; i < count && i < 16; ++i)
        std::printf("device %d.%d: %s (%s, %s; driver %s) non-uniform %d (driver alone %d), layer %d, ext: %s\n",
                    devs[i].platform_index, devs[i].device_index, devs[i].device_name, devs[i].device_version,
                    devs[i].platform_name, devs[i].driver_version, devs[i].non_uniform_work_groups,
                    devs[i].native_non_uniform_work_groups, devs[i].layer_active, devs[i].extensions_of_interest);
    if (!ok(acl_shim_cl_init(-1, -1), "cl_init")) return 1;
    acl_shim_params p{};
    p.activation = ACL_SHIM_ACT_NONE, p.scale = 1, p.alpha = 1, p.beta = 1, p.stride_x = p.stride_y = 1;
    p.depth_multiplier = 1, p.transpose_weights = 1, p.convert_policy = ACL_SHIM_POLICY_SATURATE;
    std::vector<Buffer> b;

    {  // activation over a non-uniform 1-D range
        const uint32_t n = 250001;
        acl_shim_params q = p;
        q.activation = ACL_SHIM_ACT_RELU;
        if (run("activation relu 250001", ACL_SHIM_FN_ACTIVATION, q, {dense({n}, 0), dense({n}, 0)}, b,
                [&](std::vector<Buffer> &t) { for (uint32_t i = 0; i < n; ++i) t[0].at(i) = value(i, 101, 0.5f); })) {
            double d = 0;
            for (uint32_t i = 0; i < n; ++i) d = std::fmax(d, std::fabs(b[1].at(i) - std::fmax(value(i, 101, 0.5f), 0.f)));
            report("activation relu 250001", d, 0);
        }
    }
    {  // gemm 37x53 @ 53x29
        const uint32_t M = 37, K = 53, N = 29;
        if (run("gemm 37x53x29", ACL_SHIM_FN_GEMM, p, {dense({K, M}, 0), dense({N, K}, 0), dense({N, M}, 0), dense({N, M}, 0)}, b,
                [&](std::vector<Buffer> &t) {
                    for (uint32_t m = 0; m < M; ++m) for (uint32_t k = 0; k < K; ++k) t[0].at(k, m) = value(m * K + k, 11, 0.25f);
                    for (uint32_t k = 0; k < K; ++k) for (uint32_t x = 0; x < N; ++x) t[1].at(x, k) = value(k * N + x, 7, 0.5f);
                    for (uint32_t m = 0; m < M; ++m) for (uint32_t x = 0; x < N; ++x) t[2].at(x, m) = value(m + x, 5, 1.0f);
                })) {
            double d = 0;
            for (uint32_t m = 0; m < M; ++m)
                for (uint32_t x = 0; x < N; ++x) {
                    double s = value(m + x, 5, 1.0f);
                    for (uint32_t k = 0; k < K; ++k) s += double(value(m * K + k, 11, 0.25f)) * value(k * N + x, 7, 0.5f);
                    d = std::fmax(d, std::fabs(b[3].at(x, m) - s));
                }
            report("gemm 37x53x29 (+c)", d, 1e-3);
        }
    }
    for (int32_t layout : {ACL_SHIM_LAYOUT_NCHW, ACL_SHIM_LAYOUT_NHWC}) {  // conv 3x3 pad 1 and depthwise 3x3
        const uint32_t C = 3, H = 17, W = 19, O = 5;
        const bool nhwc = layout == ACL_SHIM_LAYOUT_NHWC;
        auto shape4 = [&](uint32_t c, uint32_t h, uint32_t w) {
            return nhwc ? std::vector<uint32_t>{c, w, h, 1} : std::vector<uint32_t>{w, h, c, 1};
        };
        auto at = [&](Buffer &t, uint32_t c, uint32_t y, uint32_t x) -> float & { return nhwc ? t.at(c, x, y) : t.at(x, y, c); };
        acl_shim_params q = p;
        q.pad_left = q.pad_right = q.pad_top = q.pad_bottom = 1;
        for (int depthwise = 0; depthwise < 2; ++depthwise) {
            const uint32_t outc = depthwise ? C : O;
            const std::vector<uint32_t> wshape = depthwise ? (nhwc ? std::vector<uint32_t>{C, 3, 3} : std::vector<uint32_t>{3, 3, C})
                                                           : (nhwc ? std::vector<uint32_t>{C, 3, 3, O} : std::vector<uint32_t>{3, 3, C, O});
            char name[64];
            std::snprintf(name, sizeof name, "%s 3x3 pad 1 %s", depthwise ? "depthwise" : "convolution", nhwc ? "NHWC" : "NCHW");
            auto wv = [&](uint32_t o, uint32_t c, uint32_t i, uint32_t j) { return value(((o * C + c) * 3 + i) * 3 + j, 7, 0.25f); };
            auto weight = [&](Buffer &t, uint32_t o, uint32_t c, uint32_t i, uint32_t j) -> float & {
                if (depthwise) return nhwc ? t.at(c, j, i) : t.at(j, i, c);
                return nhwc ? t.at(c, j, i, o) : t.at(j, i, c, o);
            };
            if (!run(name, depthwise ? ACL_SHIM_FN_DEPTHWISE : ACL_SHIM_FN_CONVOLUTION, q,
                     {dense(shape4(C, H, W), layout), dense(wshape, layout), dense({outc}, layout), dense(shape4(outc, H, W), layout)}, b,
                     [&](std::vector<Buffer> &t) {
                         for (uint32_t c = 0; c < C; ++c) for (uint32_t y = 0; y < H; ++y) for (uint32_t x = 0; x < W; ++x)
                             at(t[0], c, y, x) = value((c * H + y) * W + x, 13, 0.125f);
                         for (uint32_t o = 0; o < (depthwise ? 1 : O); ++o) for (uint32_t c = 0; c < C; ++c)
                             for (uint32_t i = 0; i < 3; ++i) for (uint32_t j = 0; j < 3; ++j) weight(t[1], o, c, i, j) = wv(o, c, i, j);
                         for (uint32_t o = 0; o < outc; ++o) t[2].at(o) = 0.5f * o;
                     }))
                continue;
            double d = 0;
            for (uint32_t o = 0; o < outc; ++o)
                for (uint32_t y = 0; y < H; ++y)
                    for (uint32_t x = 0; x < W; ++x) {
                        double s = 0.5 * o;
                        for (uint32_t c = 0; c < C; ++c) {
                            if (depthwise && c != o) continue;
                            for (int i = 0; i < 3; ++i)
                                for (int j = 0; j < 3; ++j) {
                                    const int yy = int(y) + i - 1, xx = int(x) + j - 1;
                                    if (yy < 0 || xx < 0 || yy >= int(H) || xx >= int(W)) continue;
                                    s += double(value((c * H + yy) * W + xx, 13, 0.125f)) * wv(depthwise ? 0 : o, c, i, j);
                                }
                        }
                        d = std::fmax(d, std::fabs(at(b[3], o, y, x) - s));
                    }
            report(name, d, 1e-4);
        }
    }
    {  // softmax over rows of 1000
        const uint32_t X = 1000, Y = 3;
        if (run("softmax 3x1000", ACL_SHIM_FN_SOFTMAX, p, {dense({X, Y}, 0), dense({X, Y}, 0)}, b,
                [&](std::vector<Buffer> &t) { for (uint32_t y = 0; y < Y; ++y) for (uint32_t x = 0; x < X; ++x) t[0].at(x, y) = value(x * 3 + y, 17, 0.25f); })) {
            double d = 0;
            for (uint32_t y = 0; y < Y; ++y) {
                double mx = -1e30, sum = 0;
                for (uint32_t x = 0; x < X; ++x) mx = std::fmax(mx, value(x * 3 + y, 17, 0.25f));
                for (uint32_t x = 0; x < X; ++x) sum += std::exp(value(x * 3 + y, 17, 0.25f) - mx);
                for (uint32_t x = 0; x < X; ++x) d = std::fmax(d, std::fabs(b[1].at(x, y) - std::exp(value(x * 3 + y, 17, 0.25f) - mx) / sum));
            }
            report("softmax 3x1000", d, 1e-5);
        }
    }
    std::printf("%d failed\n", failures);
    return failures != 0;
}
