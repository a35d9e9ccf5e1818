// acl_shim_tensors.cpp -- the tensors room's entry points (acl_shim.h, "tensors"): a tensor
// handle over an ACL tensor whose info is exactly the desc, memory imported after the
// functions are configured, the info read back, and the handle's end (functions keep their
// tensors alive: the state is shared). Memory itself: acl_shim_cl.cpp.
#include "acl_shim.h"
#include "acl_shim_descriptions.h"
#include "acl_shim_status.h"
#include "acl_shim_tensors.h"

#include <cstring>
#include <memory>

using namespace acl_shim_detail;

extern "C" {

int32_t acl_shim_tensor_create(const acl_shim_tensor_desc *desc, acl_shim_tensor **out) {
    return guarded([&] {
        require(desc != nullptr && out != nullptr, "desc and out must not be NULL");
        *out = nullptr;
        auto h = std::make_unique<acl_shim_tensor>();
        h->state = make_tensor(desc->backend, imported_info(*desc));
        h->state->size_in_bytes = desc->total_size_in_bytes;
        *out = h.release();
    });
}

int32_t acl_shim_tensor_import(acl_shim_tensor *tensor, void *base) {
    return guarded([&] {
        require(tensor != nullptr, "tensor is NULL");
        import_host(*tensor->state, base, tensor->state->size_in_bytes);
    });
}

int32_t acl_shim_tensor_describe(const acl_shim_tensor *tensor, acl_shim_tensor_desc *out,
                                 acl_shim_padding *padding) {
    return guarded([&] {
        require(tensor != nullptr, "tensor is NULL");
        const acl::ITensorInfo *info = tensor->state->get()->info();
        if (out != nullptr) {
            std::memset(out, 0, sizeof(*out));
            out->num_dims = static_cast<int32_t>(info->num_dimensions());
            for (int i = 0; i < ACL_SHIM_MAX_DIMS; ++i) {
                out->shape[i] = static_cast<uint32_t>(info->tensor_shape()[i]);
                out->strides_in_bytes[i] = info->strides_in_bytes()[i];
            }
            out->offset_first_element_in_bytes = info->offset_first_element_in_bytes();
            out->total_size_in_bytes = info->total_size();
            out->data_layout = info->data_layout() == acl::DataLayout::NHWC ? ACL_SHIM_LAYOUT_NHWC : ACL_SHIM_LAYOUT_NCHW;
            out->data_type = -1;
            out->backend = tensor->state->backend;
        }
        if (padding != nullptr) {
            const acl::PaddingSize pad = info->padding();
            *padding = acl_shim_padding{pad.top, pad.right, pad.bottom, pad.left};
        }
    });
}

int32_t acl_shim_tensor_is_used(const acl_shim_tensor *tensor, int32_t *used) {
    return guarded([&] {
        require(tensor != nullptr && used != nullptr, "tensor and used must not be NULL");
        *used = tensor->state->get()->is_used() ? 1 : 0;
    });
}

void acl_shim_tensor_destroy(acl_shim_tensor *tensor) {
    try {
        delete tensor;
    } catch (...) {
    }
}

}  // extern "C"
