// acl_shim_reduction.h -- the reduction family room (acl_shim_reduction.cpp): sum, mean, max,
// min and product along one axis (src, dst; the axis kept with extent 1), for NEON and CL
// alike. build<F> (acl_shim_functions.cpp) hands it every kind it does not build itself.
#ifndef ACL_SHIM_REDUCTION_H
#define ACL_SHIM_REDUCTION_H

#include "acl_shim.h"
#include "acl_shim_config.h"

#include "arm_compute/core/ITensor.h"
#include "arm_compute/runtime/IFunction.h"
#include "arm_compute/runtime/IMemoryManager.h"

#include <memory>
#include <vector>

namespace arm_compute {
class ICLTensor;
}

namespace acl_shim_detail {

// validate() then configure() a reduction kind along params.axis (ACL's dimension order) on
// NEON tensors (CL tensors); nullptr when kind is not of this family. ACL's refusals:
// ACL_SHIM_ERR_ACL_STATUS naming ACL's function; a build without that backend:
// ACL_SHIM_ERR_UNSUPPORTED.
std::unique_ptr<acl::IFunction> build_reduction(int32_t kind, const acl_shim_params &p,
                                                const std::vector<acl::ITensor *> &t,
                                                const std::shared_ptr<acl::IMemoryManager> &mm);
std::unique_ptr<acl::IFunction> build_reduction(int32_t kind, const acl_shim_params &p,
                                                const std::vector<acl::ICLTensor *> &t,
                                                const std::shared_ptr<acl::IMemoryManager> &mm);

}  // namespace acl_shim_detail

#endif  // ACL_SHIM_REDUCTION_H
