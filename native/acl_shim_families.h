// acl_shim_families.h -- the entry points of the family rooms, each one file with one row per
// kind: acl_shim_elementwise.cpp (binary a, b, dst with broadcasting; unary src, dst),
// acl_shim_reduction.cpp (along one axis, kept), acl_shim_logic.cpp (comparisons, logical
// operators, arg max / min, select), acl_shim_movement.cpp (data movement: strided slice,
// gather, tile, depth/space and batch/space) and acl_shim_nn.cpp (deconvolution, L2
// normalization, local response normalization, matmul, 3-D convolution), acl_shim_detection.cpp (detection post-process). build<F> (acl_shim_functions.cpp) hands
// every kind it does not build itself to each in turn. Each entry point has one overload per
// backend's tensor type (NEON: ITensor, CL: ICLTensor); it validate()s then configure()s the
// kind, or answers nullptr when the kind is not of its family. ACL's refusals:
// ACL_SHIM_ERR_ACL_STATUS naming ACL's function; a build without that backend:
// ACL_SHIM_ERR_UNSUPPORTED.
#ifndef ACL_SHIM_FAMILIES_H
#define ACL_SHIM_FAMILIES_H

#include "acl_shim.h"
#include "acl_shim_config.h"
#include "acl_shim_status.h"

#include "arm_compute/core/ITensor.h"
#include "arm_compute/runtime/IFunction.h"
#include "arm_compute/runtime/IMemoryManager.h"

#include <memory>
#include <vector>

namespace arm_compute {
class ICLTensor;
}

// The two overloads of a family's entry point NAME.
#define ACL_SHIM_FAMILY_ENTRY(NAME, TENSOR)                                                          \
    std::unique_ptr<acl::IFunction> NAME(int32_t kind, const acl_shim_params &p,                    \
                                         const std::vector<acl::TENSOR *> &t,                        \
                                         const std::shared_ptr<acl::IMemoryManager> &mm)
#define ACL_SHIM_FAMILY_DECLARATIONS(NAME) \
    ACL_SHIM_FAMILY_ENTRY(NAME, ITensor);  \
    ACL_SHIM_FAMILY_ENTRY(NAME, ICLTensor);

// In a room: its entry point NAME on its build<E> with E = Neon and E = Cl (the room's
// structs of ACL's function types), or the failure where this build lacks the backend.
#if ACL_SHIM_WITH_NEON
#define ACL_SHIM_ON_NEON(call) return call
#else
#define ACL_SHIM_ON_NEON(call) \
    fail(ACL_SHIM_ERR_UNSUPPORTED, "this acl_bridge was built against an ACL without NE (NEON) functions")
#endif
#if ACL_SHIM_WITH_CL
#define ACL_SHIM_ON_CL(call) return call
#else
#define ACL_SHIM_ON_CL(call) fail(ACL_SHIM_ERR_UNSUPPORTED, "this acl_bridge was built against an ACL without CL functions")
#endif
#define ACL_SHIM_FAMILY_DEFINITIONS(NAME)                                       \
    ACL_SHIM_FAMILY_ENTRY(NAME, ITensor) { ACL_SHIM_ON_NEON(build<Neon>(kind, p, t, mm)); } \
    ACL_SHIM_FAMILY_ENTRY(NAME, ICLTensor) { ACL_SHIM_ON_CL(build<Cl>(kind, p, t, mm)); }

namespace acl_shim_detail {

ACL_SHIM_FAMILY_DECLARATIONS(build_elementwise)
ACL_SHIM_FAMILY_DECLARATIONS(build_reduction)
ACL_SHIM_FAMILY_DECLARATIONS(build_logic)
ACL_SHIM_FAMILY_DECLARATIONS(build_movement)
ACL_SHIM_FAMILY_DECLARATIONS(build_nn)
ACL_SHIM_FAMILY_DECLARATIONS(build_detection)

}  // namespace acl_shim_detail

#endif  // ACL_SHIM_FAMILIES_H
