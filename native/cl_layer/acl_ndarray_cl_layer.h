/*
 * acl_ndarray_cl_layer.h -- what the acl-ndarray OpenCL layer adds that others can query.
 *
 * The layer (acl_ndarray_cl_layer.c, built as libacl_ndarray_cl_layer.so and loaded by the
 * ICD loader through OPENCL_LAYERS) answers one private clGetDeviceInfo query, so a program
 * can tell whether the layer is really in the dispatch chain of a device (an environment
 * variable alone proves nothing: the loader may have failed to load the file).
 * Without the layer, drivers answer this query with CL_INVALID_VALUE.
 */
#ifndef ACL_NDARRAY_CL_LAYER_H
#define ACL_NDARRAY_CL_LAYER_H

/* clGetDeviceInfo(device, ACL_NDARRAY_CL_LAYER_DEVICE_INFO, sizeof(cl_uint), &v, NULL):
 * v = ACL_NDARRAY_CL_LAYER_VERSION when the layer is active for this device. The value is
 * outside the Khronos (0x1000-0x1fff) and registered vendor (0x4000-0x4fff) ranges. */
#define ACL_NDARRAY_CL_LAYER_DEVICE_INFO 0x7ac10001u
#define ACL_NDARRAY_CL_LAYER_VERSION 1u
/* clGetDeviceInfo(device, ACL_NDARRAY_CL_LAYER_NATIVE_EXTENSIONS, ...): the driver's own
 * CL_DEVICE_EXTENSIONS, without what the layer adds (same size protocol as a string query). */
#define ACL_NDARRAY_CL_LAYER_NATIVE_EXTENSIONS 0x7ac10002u

/* The extension the layer adds to CL_DEVICE_EXTENSIONS (ACL's "extension route"). */
#define ACL_NDARRAY_CL_LAYER_EXTENSION "cl_arm_non_uniform_work_group_size"
/* The build option ACL then passes and the layer removes (the device compiler rejects it). */
#define ACL_NDARRAY_CL_LAYER_OPTION "-cl-arm-non-uniform-work-group-size"

#endif /* ACL_NDARRAY_CL_LAYER_H */
