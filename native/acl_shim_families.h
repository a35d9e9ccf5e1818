// acl_shim_families.h -- how a family room joins the shim: a room is one file,
// native/acl_shim_<family>.cpp, with one row per kind in its build<E> (E: the room's struct of
// ACL's NE or CL function types) that validate()s then configure()s the kind, or answers
// nullptr when the kind is not of its family; ACL_SHIM_FAMILY_DEFINITIONS(build_<family>) at
// its end defines its two entry points (one per backend's tensor type: NEON ITensor, CL
// ICLTensor) and registers them (a FamilyRegistration object, made when the module loads).
// build_on (acl_shim_functions.cpp) asks the registered rooms in turn; no list names them.
// ACL's refusals: ACL_SHIM_ERR_ACL_STATUS naming ACL's function; a build without that
// backend: ACL_SHIM_ERR_UNSUPPORTED. A room includes this header alone for the shim's side
// (the builders, the statuses, the tensor types, its Neon / Cl tags' bases) and ACL's
// headers of its own functions.
#ifndef ACL_SHIM_FAMILIES_H
#define ACL_SHIM_FAMILIES_H

#include "acl_shim.h"
#include "acl_shim_builders.h"
#include "acl_shim_config.h"
#include "acl_shim_status.h"

#include "arm_compute/core/ITensor.h"
#include "arm_compute/runtime/IFunction.h"
#include "arm_compute/runtime/IMemoryManager.h"

#if ACL_SHIM_WITH_CL
#include "arm_compute/core/CL/ICLTensor.h"
#endif

#include <cstdint>
#include <memory>
#include <string>
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
namespace acl_shim_detail {

// A room's two entry points, as registered.
using NeonBuilder = std::unique_ptr<acl::IFunction> (*)(int32_t, const acl_shim_params &,
                                                       const std::vector<acl::ITensor *> &,
                                                       const std::shared_ptr<acl::IMemoryManager> &);
using ClBuilder = std::unique_ptr<acl::IFunction> (*)(int32_t, const acl_shim_params &,
                                                     const std::vector<acl::ICLTensor *> &,
                                                     const std::shared_ptr<acl::IMemoryManager> &);
struct FamilyRoom {
    const char *name;
    NeonBuilder neon;
    ClBuilder cl;
};

// Every registered room (acl_shim_functions.cpp), in the order the shim's modules loaded;
// the rooms' kinds are disjoint, so the order decides nothing.
std::vector<FamilyRoom> &family_rooms();

// Made once per room, while the module loads: adds the room to family_rooms().
struct FamilyRegistration {
    FamilyRegistration(const char *name, NeonBuilder neon, ClBuilder cl) { family_rooms().push_back({name, neon, cl}); }
};

}  // namespace acl_shim_detail

namespace acl_shim_detail {

// What a room's backend tags share: ACL's prefix of the backend's functions ("NE" / "CL", for
// messages: name<E>) and its tensor type (E::ITensor). A room's tags derive from them and add
// only the room's own function types: struct Neon : NeonTag { using Copy = acl::NECopy; };
struct NeonTag {
    static constexpr const char *prefix = "NE";
    using ITensor = acl::ITensor;
};
struct ClTag {
    static constexpr const char *prefix = "CL";
    using ITensor = acl::ICLTensor;
};

}  // namespace acl_shim_detail

// In a room, inside its anonymous namespace: its tags Neon and Cl (those this build has), each
// with the types TYPES(P) declares for it, e.g. #define MY_TYPES(P) using Copy = acl::P##Copy;
#if ACL_SHIM_WITH_NEON
#define ACL_SHIM_NEON_STRUCT(TYPES) \
    struct Neon : NeonTag {         \
        TYPES(NE)                   \
    };
#else
#define ACL_SHIM_NEON_STRUCT(TYPES)
#endif
#if ACL_SHIM_WITH_CL
#define ACL_SHIM_CL_STRUCT(TYPES) \
    struct Cl : ClTag {           \
        TYPES(CL)                 \
    };
#else
#define ACL_SHIM_CL_STRUCT(TYPES)
#endif
#define ACL_SHIM_BACKEND_STRUCTS(TYPES) ACL_SHIM_NEON_STRUCT(TYPES) ACL_SHIM_CL_STRUCT(TYPES)

// In a room, inside namespace acl_shim_detail: its entry points NAME on its build<E> with
// E = Neon and E = Cl, and its registration.
#define ACL_SHIM_FAMILY_DEFINITIONS(NAME)                                                     \
    ACL_SHIM_FAMILY_DECLARATIONS(NAME)                                                        \
    ACL_SHIM_FAMILY_ENTRY(NAME, ITensor) { ACL_SHIM_ON_NEON(build<Neon>(kind, p, t, mm)); }  \
    ACL_SHIM_FAMILY_ENTRY(NAME, ICLTensor) { ACL_SHIM_ON_CL(build<Cl>(kind, p, t, mm)); }    \
    static const FamilyRegistration NAME##_registration(#NAME, &NAME, &NAME);

#endif  // ACL_SHIM_FAMILIES_H
