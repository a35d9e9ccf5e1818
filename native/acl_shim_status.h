// acl_shim_status.h -- the ABI layer's rule, shared by every room: C++ code fails by throwing
// (fail, require, check_status), and every extern "C" entry point runs its body inside
// guarded(), which turns any C++ exception into an ACL_SHIM_* status plus the thread's
// last_error() message. Nothing throws across the ABI. last_error() is defined in
// acl_shim_abi.cpp with the library's entry points.
#ifndef ACL_SHIM_STATUS_H
#define ACL_SHIM_STATUS_H

#include "acl_shim.h"
#include "acl_shim_config.h"

#include "arm_compute/core/Error.h"

#include <new>
#include <stdexcept>
#include <string>

namespace acl_shim_detail {

// An error that carries a shim status code out of the C++ body to guarded().
struct ShimError : std::runtime_error {
    int32_t code;
    ShimError(int32_t c, const std::string &m) : std::runtime_error(m), code(c) {}
};

[[noreturn]] inline void fail(int32_t code, const std::string &message) { throw ShimError(code, message); }

inline void require(bool condition, const std::string &message) {
    if (!condition) fail(ACL_SHIM_ERR_INVALID_ARGUMENT, message);
}
// For a fixed message: no std::string is built unless the condition fails (the run path
// calls this every time; a 16-character literal would otherwise cost a heap allocation).
inline void require(bool condition, const char *message) {
    if (!condition) fail(ACL_SHIM_ERR_INVALID_ARGUMENT, message);
}

inline void check_status(const acl::Status &status, const char *what) {
    if (status.error_code() != acl::ErrorCode::OK) {
        fail(ACL_SHIM_ERR_ACL_STATUS, std::string(what) + ": " + status.error_description());
    }
}

// The message of the last failure on this thread (acl_shim_last_error).
std::string &last_error();

// Runs body, turning every C++ exception into a status code + last_error() (the ABI rule).
// A success leaves last_error() alone: the message is read only after a failure, and not
// touching the thread-local string keeps a successful run free of TLS lookups.
template <typename F>
int32_t guarded(F &&body) {
    try {
        body();
        return ACL_SHIM_OK;
    } catch (const ShimError &e) {
        last_error() = e.what();
        return e.code;
    } catch (const std::bad_alloc &e) {
        last_error() = std::string("out of memory: ") + e.what();
        return ACL_SHIM_ERR_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        last_error() = std::string("C++ exception: ") + e.what();
        return ACL_SHIM_ERR_EXCEPTION;
    } catch (...) {
        last_error() = "unknown C++ exception";
        return ACL_SHIM_ERR_EXCEPTION;
    }
}

}  // namespace acl_shim_detail

#endif  // ACL_SHIM_STATUS_H
