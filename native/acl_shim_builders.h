// acl_shim_builders.h -- what every family room's builders share: the tensor count check
// (need), ACL's name of a function for messages (name<F>), and making an ACL function with
// the workspace's memory manager where its constructor takes one (make<T>), and functions run
// one after the other (Sequence: compositions the shim adds around ACL quirks).
#ifndef ACL_SHIM_BUILDERS_H
#define ACL_SHIM_BUILDERS_H

#include "acl_shim_config.h"
#include "acl_shim_status.h"

#include "arm_compute/core/ITensor.h"
#include "arm_compute/runtime/IFunction.h"
#include "arm_compute/runtime/IMemoryManager.h"

#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace acl_shim_detail {

inline acl::ITensorInfo *info_of(acl::ITensor *t) { return t == nullptr ? nullptr : t->info(); }

// n tensors, those at the indices in required present; else ACL_SHIM_ERR_INVALID_ARGUMENT.
template <typename T>
void need(const std::vector<T *> &t, size_t n, std::initializer_list<size_t> required, const char *name) {
    require(t.size() == n, std::string(name) + " takes " + std::to_string(n) + " tensors, got " +
                               std::to_string(t.size()));
    for (size_t i : required) {
        require(t[i] != nullptr, std::string(name) + ": tensor " + std::to_string(i) + " is required");
    }
}

// "NE" or "CL" (F::prefix) + the function's name + "::validate", for messages.
template <typename F>
std::string name(const char *function) {
    return std::string(F::prefix) + function + "::validate";
}

// An ACL function, given the memory manager where its constructor takes one (which kinds do
// differs between ACL versions: 24.11's NEPoolingLayer takes one, 20.08's does not).
template <typename T>
std::unique_ptr<T> make_with(const std::shared_ptr<acl::IMemoryManager> &mm, std::true_type) {
    return std::make_unique<T>(mm);
}
template <typename T>
std::unique_ptr<T> make_with(const std::shared_ptr<acl::IMemoryManager> &, std::false_type) {
    return std::make_unique<T>();
}
template <typename T>
std::unique_ptr<T> make(const std::shared_ptr<acl::IMemoryManager> &mm) {
    return make_with<T>(mm, std::is_constructible<T, std::shared_ptr<acl::IMemoryManager>>{});
}

// Functions run one after the other (for compositions the shim adds around ACL quirks).
struct Sequence : acl::IFunction {
    std::vector<std::unique_ptr<acl::IFunction>> parts;
    void run() override {
        for (auto &f : parts) f->run();
    }
    void prepare() override {
        for (auto &f : parts) f->prepare();
    }
};

}  // namespace acl_shim_detail

#endif  // ACL_SHIM_BUILDERS_H
