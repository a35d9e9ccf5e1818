// The C++ baseline of benchmarks/bench.py: one ACL NEON function called in a loop, the way a
// C++ program would, with nothing around it. Built inside the image by bench.py.
//
//   acl_loop relu|conv N C H W ITERATIONS REPEATS THREADS
//
// Prints the median over REPEATS batches of the time per run in nanoseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "arm_compute/runtime/NEON/NEFunctions.h"
#include "arm_compute/runtime/NEON/NEScheduler.h"
#include "arm_compute/runtime/Tensor.h"

using namespace arm_compute;

namespace {
void fill(Tensor &t, float scale) {
    auto *p = reinterpret_cast<float *>(t.buffer());
    const size_t n = t.info()->total_size() / sizeof(float);
    for (size_t i = 0; i < n; ++i) p[i] = scale * static_cast<float>(static_cast<int>(i % 17) - 8);
}
}  // namespace

int main(int argc, char **argv) {
    if (argc != 9) {
        std::fprintf(stderr, "usage: %s relu|conv N C H W ITERATIONS REPEATS THREADS\n", argv[0]);
        return 2;
    }
    const std::string kind = argv[1];
    const unsigned n = std::atoi(argv[2]), c = std::atoi(argv[3]), h = std::atoi(argv[4]), w = std::atoi(argv[5]);
    const int iterations = std::atoi(argv[6]), repeats = std::atoi(argv[7]);
    NEScheduler::get().set_num_threads(std::atoi(argv[8]));
    Tensor src, dst, weights, bias;
    src.allocator()->init(TensorInfo(TensorShape(w, h, c, n), 1, DataType::F32));
    dst.allocator()->init(TensorInfo(TensorShape(w, h, c, n), 1, DataType::F32));
    std::unique_ptr<IFunction> f;
    if (kind == "relu") {
        auto a = std::make_unique<NEActivationLayer>();
        a->configure(&src, &dst, ActivationLayerInfo(ActivationLayerInfo::ActivationFunction::RELU));
        f = std::move(a);
    } else if (kind == "conv") {  // 3x3, stride 1, pad 1, C -> C channels, with bias
        weights.allocator()->init(TensorInfo(TensorShape(3U, 3U, c, c), 1, DataType::F32));
        bias.allocator()->init(TensorInfo(TensorShape(c), 1, DataType::F32));
        auto conv = std::make_unique<NEConvolutionLayer>();
        conv->configure(&src, &weights, &bias, &dst, PadStrideInfo(1, 1, 1, 1));
        f = std::move(conv);
        weights.allocator()->allocate();
        bias.allocator()->allocate();
        fill(weights, 0.01f);
        fill(bias, 0.1f);
    } else {
        std::fprintf(stderr, "unknown kind %s\n", kind.c_str());
        return 2;
    }
    src.allocator()->allocate();
    dst.allocator()->allocate();
    fill(src, 0.25f);
    for (int i = 0; i < 3; ++i) f->run();
    std::vector<double> samples;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < iterations; ++i) f->run();
        const auto t1 = std::chrono::steady_clock::now();
        samples.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iterations);
    }
    std::sort(samples.begin(), samples.end());
    std::printf("%.1f\n", samples[samples.size() / 2]);
    return 0;
}
