// acl_shim_identity.cpp -- what ACL's answers depend on besides the question, as this process
// sees it (ABI 19): the CPU as ACL reads it (the kernel's hardware capability words, ACL's own
// CPU model per core and its feature flags) and the libarm_compute files loaded. The facts
// cache's identity (acl_bridge/facts_cache.py) is made from it instead of /proc/self/maps and
// /proc/cpuinfo, which emulators synthesize slowly.
#include "acl_shim.h"
#include "acl_shim_status.h"

#include "arm_compute/core/CPP/CPPTypes.h"
#include "arm_compute/runtime/NEON/NEScheduler.h"

#include <link.h>
#include <sys/auxv.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

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

// Appends the name of each loaded object whose path holds "libarm_compute", one per line.
int add_library(struct dl_phdr_info *info, size_t, void *data) {
    if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libarm_compute") != nullptr) {
        auto &out = *static_cast<std::string *>(data);
        out += '\n';
        out += info->dlpi_name;
    }
    return 0;
}
}  // namespace

extern "C" {

int32_t acl_shim_identity(char *buf, uint64_t capacity, uint64_t *needed) {
    return guarded([&] {
        std::string s = cpu_line();
        dl_iterate_phdr(add_library, &s);
        if (needed != nullptr) *needed = s.size() + 1;
        if (buf != nullptr && capacity > 0) {
            const size_t n = std::min<uint64_t>(s.size(), capacity - 1);
            std::memcpy(buf, s.data(), n);
            buf[n] = '\0';
        }
    });
}

}  // extern "C"
