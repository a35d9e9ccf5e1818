// acl_shim_identity.cpp -- what ACL's answers depend on besides the question, as this process
// sees it (ABI 19): the CPU as ACL reads it (the kernel's hardware capability words, ACL's own
// CPU model per core and its feature flags), the libarm_compute files loaded and the shim's own
// file, each by real path, size and modification time. The facts cache's identity
// (acl_bridge/facts_cache.py) is made from it instead of /proc/self/maps, /proc/cpuinfo (files
// emulators synthesize slowly) and a realpath and stat per file in Python.
#include "acl_shim.h"
#include "acl_shim_status.h"

#include "arm_compute/core/CPP/CPPTypes.h"
#include "arm_compute/runtime/NEON/NEScheduler.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace acl_shim_detail;

namespace {
// The CPU line: hwcap/hwcap2 (what /proc/cpuinfo's Features line is made from), ACL's core
// count, its CPUModel per core (the enum's number: acl_version names the enum) and the features
// ACL reports (ACL derives them from the capability words and the cores' MIDRs).
std::string cpu_line() {
    const acl::CPUInfo &ci = acl::NEScheduler::get().cpu_info();
    char head[96];
    std::snprintf(head, sizeof head, "hwcap=%lx hwcap2=%lx cpus=%u models=", getauxval(AT_HWCAP),
                  getauxval(AT_HWCAP2), ci.get_cpu_num());
    std::string line(head);
    for (unsigned int i = 0; i < ci.get_cpu_num(); ++i) {
        if (i > 0) line += ',';
        line += std::to_string(static_cast<int>(ci.get_cpu_model(i)));
    }
    line += " fp16=" + std::to_string(ci.has_fp16() ? 1 : 0) + " dotprod=" + std::to_string(ci.has_dotprod() ? 1 : 0);
#if ACL_SHIM_ACL_VERSION >= 2411
    line += " sve=" + std::to_string(ci.has_sve() ? 1 : 0) + " sve2=" + std::to_string(ci.has_sve2() ? 1 : 0) +
            " bf16=" + std::to_string(ci.has_bf16() ? 1 : 0) + " i8mm=" + std::to_string(ci.has_i8mm() ? 1 : 0);
#endif
    return line;
}

// Appends the line "<tag>\t<real path>\t<size>\t<mtime ns>" of the file ``name``; fails where it
// cannot be resolved or stat'ed, or its real path holds a tab or a newline (the text's separators).
void add_file(std::string &out, const char *tag, const char *name) {
    char real[PATH_MAX];
    struct stat st;
    if (realpath(name, real) == nullptr || stat(real, &st) != 0) {
        fail(ACL_SHIM_ERR_INVALID_ARGUMENT, std::string("identity: cannot stat ") + name + ": " + std::strerror(errno));
    }
    require(std::strpbrk(real, "\t\n") == nullptr, std::string("identity: a tab or newline in the path ") + real);
    out += '\n';
    out += tag;
    out += '\t';
    out += real;
    out += '\t' + std::to_string(st.st_size) + '\t' +
           std::to_string(static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec);
}

// The names of the loaded objects that hold "libarm_compute" (add_library's), or out_of_memory.
struct Libraries {
    std::vector<std::string> names;
    bool out_of_memory = false;
};

// dl_iterate_phdr's callback: collects into a Libraries; nothing throws out of it (glibc holds
// its loader lock around the calls), an allocation that fails stops the walk instead.
int add_library(struct dl_phdr_info *info, size_t, void *data) noexcept {
    auto &found = *static_cast<Libraries *>(data);
    if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libarm_compute") != nullptr) {
        try {
            found.names.emplace_back(info->dlpi_name);
        } catch (...) {
            found.out_of_memory = true;
            return 1;
        }
    }
    return 0;
}
}  // namespace

extern "C" {

int32_t acl_shim_identity(char *buf, uint64_t capacity, uint64_t *needed) {
    return guarded([&] {
        std::string s = cpu_line();
        Libraries libraries;
        dl_iterate_phdr(add_library, &libraries);
        if (libraries.out_of_memory) throw std::bad_alloc();
        for (const std::string &name : libraries.names) add_file(s, "library", name.c_str());
        Dl_info self{};
        require(dladdr(reinterpret_cast<void *>(&acl_shim_identity), &self) != 0 && self.dli_fname != nullptr,
                "identity: dladdr does not name the shim's file");
        add_file(s, "shim", self.dli_fname);
        if (needed != nullptr) *needed = s.size() + 1;
        if (buf != nullptr && capacity > 0) {
            const size_t n = std::min<uint64_t>(s.size(), capacity - 1);
            std::memcpy(buf, s.data(), n);
            buf[n] = '\0';
        }
    });
}

}  // extern "C"
