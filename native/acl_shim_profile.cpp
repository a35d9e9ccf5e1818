// acl_shim_profile.cpp -- the profile room: a schedule's functions run in order, each run timed
// inside the native layer (a steady clock around acl_shim_function_run, which takes the
// function's run mutex as acl_shim_schedule_run does), so a per-function profile of an
// inference has no Python between the functions (acl_shim.h, "layouts and schedules").
#include "acl_shim.h"
#include "acl_shim_status.h"

#include <chrono>
#include <string>

using namespace acl_shim_detail;

extern "C" {

int32_t acl_shim_schedule_profile(acl_shim_function *const *functions, int32_t n, int32_t rounds,
                                  double *seconds, int32_t *failed_index) {
    int32_t at = -1;
    const int32_t status = guarded([&] {
        require(functions != nullptr && seconds != nullptr && n >= 0 && rounds >= 1,
                "functions and seconds must not be NULL, n >= 0 and rounds >= 1");
        using clock = std::chrono::steady_clock;
        for (int32_t r = 0; r < rounds; ++r) {
            for (at = 0; at < n; ++at) {
                if (functions[at] == nullptr) {
                    fail(ACL_SHIM_ERR_INVALID_ARGUMENT, "function " + std::to_string(at) + " is NULL");
                }
                const clock::time_point t0 = clock::now();
                const int32_t s = acl_shim_function_run(functions[at]);
                const clock::time_point t1 = clock::now();
                if (s != ACL_SHIM_OK) fail(s, last_error());  // the run's own message
                seconds[static_cast<size_t>(r) * static_cast<size_t>(n) + static_cast<size_t>(at)] =
                    std::chrono::duration<double>(t1 - t0).count();
            }
        }
        at = -1;
    });
    if (failed_index != nullptr) *failed_index = at;
    return status;
}

}  // extern "C"
