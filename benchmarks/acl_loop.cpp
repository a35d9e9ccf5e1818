// The C++ baseline of benchmarks/bench.py: ACL NEON functions called in a loop, the way a C++
// program would, with nothing around them. Built inside the image by bench.py as a shared
// library and loaded into the benchmark's own process (cffi ABI mode), so the bridge and the
// baseline share one ACL, one scheduler, one thread setting, and their batches interleave:
//
//   acl_loop *acl_loop_create(const char *kind, N, C, H, W, COUNT)
//       "relu": COUNT functions chained over COUNT+1 tensors; "conv": one 3x3 convolution
//       (COUNT 1); NULL if the kind is unknown or ACL refuses
//   double acl_loop_batch_ns(acl_loop *, int iterations)   time per run of the chain, ns
//   void acl_loop_destroy(acl_loop *)
//
// Tensors are ACL's own (allocated after configure, so with the padding ACL asked for, and
// 64-byte aligned like the bridge's buffers), as a C++ user would have them. Threads: whatever NEScheduler is set to (the bridge sets it).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "arm_compute/runtime/NEON/NEFunctions.h"
#include "arm_compute/runtime/Tensor.h"

using namespace arm_compute;

namespace {
void fill(Tensor &t, float scale) {
    auto *p = reinterpret_cast<float *>(t.buffer());
    const size_t n = t.info()->total_size() / sizeof(float);
    for (size_t i = 0; i < n; ++i) p[i] = scale * static_cast<float>(static_cast<int>(i % 17) - 8);
}
}  // namespace

struct acl_loop {
    std::vector<std::unique_ptr<Tensor>> tensors;  // tensors[i] -> function i -> tensors[i + 1]
    Tensor weights, bias;
    std::vector<std::unique_ptr<IFunction>> functions;
};

namespace {
acl_loop *create(const std::string &kind, unsigned n, unsigned c, unsigned h, unsigned w, unsigned count) {
    if (count < 1 || (kind == "conv" && count != 1)) return nullptr;
    auto loop = std::make_unique<acl_loop>();
    for (unsigned i = 0; i <= count; ++i) {
        loop->tensors.push_back(std::make_unique<Tensor>());
        // 64-byte aligned, as the bridge's buffers are (ACL's default alignment is the allocator's)
        loop->tensors.back()->allocator()->init(TensorInfo(TensorShape(w, h, c, n), 1, DataType::F32), 64);
    }
    if (kind == "relu") {
        for (unsigned i = 0; i < count; ++i) {
            auto a = std::make_unique<NEActivationLayer>();
            a->configure(loop->tensors[i].get(), loop->tensors[i + 1].get(),
                         ActivationLayerInfo(ActivationLayerInfo::ActivationFunction::RELU));
            loop->functions.push_back(std::move(a));
        }
    } else if (kind == "conv") {  // 3x3, stride 1, pad 1, C -> C channels, with bias
        loop->weights.allocator()->init(TensorInfo(TensorShape(3U, 3U, c, c), 1, DataType::F32));
        loop->bias.allocator()->init(TensorInfo(TensorShape(c), 1, DataType::F32));
        auto conv = std::make_unique<NEConvolutionLayer>();
        conv->configure(loop->tensors[0].get(), &loop->weights, &loop->bias, loop->tensors[1].get(),
                        PadStrideInfo(1, 1, 1, 1));
        loop->functions.push_back(std::move(conv));
        loop->weights.allocator()->allocate();
        loop->bias.allocator()->allocate();
        fill(loop->weights, 0.01f);
        fill(loop->bias, 0.1f);
    } else {
        return nullptr;
    }
    for (auto &t : loop->tensors) t->allocator()->allocate();
    fill(*loop->tensors[0], 0.25f);
    for (int i = 0; i < 3; ++i)
        for (auto &f : loop->functions) f->run();  // warm up (and prepare() weights)
    return loop.release();
}
}  // namespace

extern "C" {

acl_loop *acl_loop_create(const char *kind, unsigned n, unsigned c, unsigned h, unsigned w, unsigned count) {
    try {
        return create(kind, n, c, h, w, count);
    } catch (...) {  // nothing crosses the C boundary
        return nullptr;
    }
}

double acl_loop_batch_ns(acl_loop *loop, int iterations) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i)
        for (auto &f : loop->functions) f->run();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / iterations;
}

void acl_loop_destroy(acl_loop *loop) { delete loop; }

}  // extern "C"
