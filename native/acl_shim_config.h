// acl_shim_config.h -- what this build of the shim is: the ACL version its headers are and
// the backends it has. Every translation unit of the shim sees these through its room's
// header; nothing else is decided at compile time.
//
//   ACL_SHIM_ACL_VERSION  2008 or 2411, detected from the headers: every API difference
//                         between ACL 20.08 (Debian bookworm) and 24.11 (trixie) is behind it.
//   ACL_SHIM_WITH_NEON    ACL's NE functions (arm64 ACL builds)
//   ACL_SHIM_WITH_CL      ACL's CL functions (ACL >= 24.x with the CL runtime; Debian's amd64
//                         ACL 24.11 is the CL backend alone)
// The two backend macros are set by acl_bridge/_build.py.
#ifndef ACL_SHIM_CONFIG_H
#define ACL_SHIM_CONFIG_H

// ACL >= 23.05 moved ActivationLayerInfo & co. into arm_compute/function_info/.
#if __has_include("arm_compute/function_info/ActivationLayerInfo.h")
#define ACL_SHIM_ACL_VERSION 2411
#else
#define ACL_SHIM_ACL_VERSION 2008
#endif

#ifndef ACL_SHIM_WITH_NEON
#define ACL_SHIM_WITH_NEON 1
#endif
#ifndef ACL_SHIM_WITH_CL
#define ACL_SHIM_WITH_CL 0
#endif

namespace arm_compute {}

namespace acl_shim_detail {
namespace acl = arm_compute;
}  // namespace acl_shim_detail

#endif  // ACL_SHIM_CONFIG_H
