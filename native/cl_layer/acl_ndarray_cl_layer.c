/*
 * acl_ndarray_cl_layer.c -- an OpenCL loader layer that lets ACL's CL kernels run on devices
 * without non-uniform work-groups (PoCL, Mesa rusticl, NVIDIA's OpenCL 3.0 driver).
 *
 * Loaded only when asked for: the ICD loader (ocl-icd >= 2.3, Khronos loader) loads the
 * files named in OPENCL_LAYERS and calls clInitLayer; acl_bridge.opencl sets that variable
 * for ACL_NDARRAY_CL_LAYER=1 or use_software_opencl_layer(). What it intercepts:
 *
 * 1. clGetDeviceInfo(CL_DEVICE_EXTENSIONS): appends cl_arm_non_uniform_work_group_size
 *    (the "extension route": ACL then builds with -cl-arm-non-uniform-work-group-size
 *    instead of -cl-std=CL3.0, so kernels compile for the driver's default OpenCL C version,
 *    which also works on OpenCL C 1.2 drivers); answers the two private queries of
 *    acl_ndarray_cl_layer.h (the layer is active; the driver's own extensions).
 * 2. clBuildProgram / clCompileProgram: removes -cl-arm-non-uniform-work-group-size.
 * 3. clCreateProgramWithSource: removes self-referential `#define convert_X convert_X`
 *    lines (ACL's helpers have `#define convert_uchar2_sat convert_uchar2_sat`; PoCL defines
 *    those names as macros itself, and the redefinition breaks them). A macro defined as its
 *    own name is a no-op in standard C, so removing it changes nothing on other drivers.
 * 4. clEnqueueNDRangeKernel: a global size that is not a multiple of the local size runs as
 *    a uniform bulk launch plus remainder launches with global offsets (at most 2^dims
 *    launches; an event asked for is a marker over all of them). Inside a remainder launch
 *    get_global_id, get_local_id, get_local_size and get_global_offset-relative indexing
 *    are right; get_group_id, get_num_groups, get_global_size and get_enqueued_local_size
 *    describe that launch, not the whole range (see docs/opencl.md).
 * Devices that report cl_arm_non_uniform_work_group_size themselves (Mali) pass through.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl_layer.h>

#include <stdlib.h>
#include <string.h>

#include "acl_ndarray_cl_layer.h"

#define EXPORT __attribute__((visibility("default")))

static struct _cl_icd_dispatch next;     /* the dispatch below us (the next layer / driver) */
static struct _cl_icd_dispatch dispatch; /* ours: next's entries, some replaced */

/* ------------------------------------------------------------------ helpers */
static int has_word(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    }
    return 0;
}

/* The driver's own extension string of a device (malloc'd) or NULL. */
static char *native_extensions(cl_device_id device) {
    size_t size = 0;
    if (next.clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS) return NULL;
    char *s = calloc(1, size + 1);
    if (s != NULL && next.clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, s, NULL) != CL_SUCCESS) {
        free(s);
        s = NULL;
    }
    return s;
}

/* 1 when the driver itself runs non-uniform ranges under ACL's build options. */
static int native_non_uniform(cl_device_id device) {
    char *ext = native_extensions(device);
    int yes = ext != NULL && has_word(ext, ACL_NDARRAY_CL_LAYER_EXTENSION);
    free(ext);
    return yes;
}

static cl_int answer(const void *value, size_t size, size_t capacity, void *out, size_t *size_ret) {
    if (size_ret != NULL) *size_ret = size;
    if (out != NULL) {
        if (capacity < size) return CL_INVALID_VALUE;
        memcpy(out, value, size);
    }
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ 1. device info */
static cl_int CL_API_CALL layer_clGetDeviceInfo(cl_device_id device, cl_device_info name, size_t capacity,
                                               void *value, size_t *size_ret) {
    if (name == ACL_NDARRAY_CL_LAYER_DEVICE_INFO) {
        const cl_uint version = ACL_NDARRAY_CL_LAYER_VERSION;
        return answer(&version, sizeof version, capacity, value, size_ret);
    }
    if (name == ACL_NDARRAY_CL_LAYER_NATIVE_EXTENSIONS)
        return next.clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, capacity, value, size_ret);
    if (name != CL_DEVICE_EXTENSIONS) return next.clGetDeviceInfo(device, name, capacity, value, size_ret);
    char *ext = native_extensions(device);
    if (ext == NULL) return next.clGetDeviceInfo(device, name, capacity, value, size_ret);
    cl_int err = CL_SUCCESS;
    if (has_word(ext, ACL_NDARRAY_CL_LAYER_EXTENSION)) {
        err = answer(ext, strlen(ext) + 1, capacity, value, size_ret);
    } else {
        size_t n = strlen(ext);
        while (n > 0 && ext[n - 1] == ' ') ext[--n] = '\0';
        const size_t size = n + 1 + strlen(ACL_NDARRAY_CL_LAYER_EXTENSION) + 1;
        char *more = malloc(size);
        if (more == NULL) {
            err = CL_OUT_OF_HOST_MEMORY;
        } else {
            strcpy(more, ext);
            if (n > 0) strcat(more, " ");
            strcat(more, ACL_NDARRAY_CL_LAYER_EXTENSION);
            err = answer(more, strlen(more) + 1, capacity, value, size_ret);
            free(more);
        }
    }
    free(ext);
    return err;
}

/* ------------------------------------------------------------------ 2. build options */
/* options without the token ACL_NDARRAY_CL_LAYER_OPTION (malloc'd), NULL for NULL. */
static char *without_option(const char *options) {
    if (options == NULL) return NULL;
    char *out = malloc(strlen(options) + 1);
    if (out == NULL) return NULL;
    const size_t n = strlen(ACL_NDARRAY_CL_LAYER_OPTION);
    const char *p = options;
    char *o = out;
    while (*p != '\0') {
        if ((p == options || p[-1] == ' ') && strncmp(p, ACL_NDARRAY_CL_LAYER_OPTION, n) == 0 &&
            (p[n] == ' ' || p[n] == '\0')) {
            p += n;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    return out;
}

/* The option goes unless every device the program is built for handles it natively. */
static int keep_option(cl_program program, cl_uint num_devices, const cl_device_id *devices) {
    cl_device_id found[16];
    if (devices == NULL || num_devices == 0) {
        size_t size = 0;
        if (next.clGetProgramInfo(program, CL_PROGRAM_DEVICES, sizeof found, found, &size) != CL_SUCCESS) return 0;
        num_devices = (cl_uint)(size / sizeof(cl_device_id));
        devices = found;
    }
    for (cl_uint i = 0; i < num_devices; ++i)
        if (!native_non_uniform(devices[i])) return 0;
    return num_devices > 0;
}

static cl_int CL_API_CALL layer_clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *devices,
                                              const char *options,
                                              void(CL_CALLBACK *notify)(cl_program, void *), void *user_data) {
    if (options == NULL || keep_option(program, num_devices, devices))
        return next.clBuildProgram(program, num_devices, devices, options, notify, user_data);
    char *clean = without_option(options);
    if (clean == NULL) return CL_OUT_OF_HOST_MEMORY;
    cl_int err = next.clBuildProgram(program, num_devices, devices, clean, notify, user_data);
    free(clean);
    return err;
}

static cl_int CL_API_CALL layer_clCompileProgram(cl_program program, cl_uint num_devices,
                                                const cl_device_id *devices, const char *options,
                                                cl_uint num_headers, const cl_program *headers,
                                                const char **header_names,
                                                void(CL_CALLBACK *notify)(cl_program, void *), void *user_data) {
    if (options == NULL || keep_option(program, num_devices, devices))
        return next.clCompileProgram(program, num_devices, devices, options, num_headers, headers, header_names,
                                     notify, user_data);
    char *clean = without_option(options);
    if (clean == NULL) return CL_OUT_OF_HOST_MEMORY;
    cl_int err = next.clCompileProgram(program, num_devices, devices, clean, num_headers, headers, header_names,
                                       notify, user_data);
    free(clean);
    return err;
}

/* ------------------------------------------------------------------ 3. program source */
/* 1 for a line `# define NAME NAME` (NAME starting with convert_), spaces anywhere. */
static int self_define(const char *line, size_t len) {
    const char *p = line, *end = line + len;
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
    if (p == end || *p++ != '#') return 0;
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
    if ((size_t)(end - p) < 6 || strncmp(p, "define", 6) != 0) return 0;
    p += 6;
    const char *names[2];
    size_t lens[2];
    for (int k = 0; k < 2; ++k) {
        const char *s = p;
        while (p < end && (*p == ' ' || *p == '\t')) ++p;
        if (p == s) return 0;
        names[k] = p;
        while (p < end && (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                           (*p >= '0' && *p <= '9')))
            ++p;
        lens[k] = (size_t)(p - names[k]);
        if (lens[k] == 0) return 0;
    }
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
    return p == end && lens[0] == lens[1] && lens[0] > 8 && strncmp(names[0], "convert_", 8) == 0 &&
           strncmp(names[0], names[1], lens[0]) == 0;
}

static cl_program CL_API_CALL layer_clCreateProgramWithSource(cl_context context, cl_uint count,
                                                             const char **strings, const size_t *lengths,
                                                             cl_int *errcode_ret) {
    if (count == 0 || strings == NULL) return next.clCreateProgramWithSource(context, count, strings, lengths, errcode_ret);
    size_t total = 0;
    for (cl_uint i = 0; i < count; ++i) {
        if (strings[i] == NULL) return next.clCreateProgramWithSource(context, count, strings, lengths, errcode_ret);
        total += (lengths != NULL && lengths[i] != 0) ? lengths[i] : strlen(strings[i]);
    }
    char *src = malloc(total + 1), *o = src;
    if (src == NULL) {
        if (errcode_ret != NULL) *errcode_ret = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    for (cl_uint i = 0; i < count; ++i) {
        const size_t n = (lengths != NULL && lengths[i] != 0) ? lengths[i] : strlen(strings[i]);
        memcpy(o, strings[i], n);
        o += n;
    }
    *o = '\0';
    /* drop the matching lines in place (their newline stays, so line numbers do not move) */
    char *w = src;
    for (const char *r = src; *r != '\0';) {
        const char *nl = strchr(r, '\n');
        const size_t len = nl != NULL ? (size_t)(nl - r) : strlen(r);
        if (!self_define(r, len)) {
            memmove(w, r, len);
            w += len;
        }
        r += len;
        if (*r == '\n') *w++ = *r++;
    }
    *w = '\0';
    const char *one = src;
    cl_program program = next.clCreateProgramWithSource(context, 1, &one, NULL, errcode_ret);
    free(src);
    return program;
}

/* ------------------------------------------------------------------ 4. NDRange */
static cl_int split_launch(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t *offset,
                           const size_t *global, const size_t *local, cl_uint num_wait, const cl_event *wait,
                           cl_event *event) {
    size_t bulk[3], rest[3];
    for (cl_uint d = 0; d < dims; ++d) {
        bulk[d] = global[d] / local[d] * local[d];
        rest[d] = global[d] - bulk[d];
    }
    cl_event parts[8];
    cl_uint n = 0;
    cl_int err = CL_SUCCESS;
    for (cl_uint mask = 0; mask < (1u << dims) && err == CL_SUCCESS; ++mask) {
        size_t o[3], g[3], l[3];
        int empty = 0;
        for (cl_uint d = 0; d < dims; ++d) {
            const size_t base = offset != NULL ? offset[d] : 0;
            const int remainder = (mask >> d) & 1u;
            o[d] = base + (remainder ? bulk[d] : 0);
            g[d] = remainder ? rest[d] : bulk[d];
            l[d] = remainder ? rest[d] : local[d];
            empty |= g[d] == 0;
        }
        if (empty) continue;
        err = next.clEnqueueNDRangeKernel(queue, kernel, dims, o, g, l, num_wait, wait,
                                          event != NULL ? &parts[n] : NULL);
        if (err == CL_SUCCESS && event != NULL) ++n;
    }
    if (err == CL_SUCCESS && event != NULL) err = next.clEnqueueMarkerWithWaitList(queue, n, parts, event);
    for (cl_uint i = 0; i < n; ++i) next.clReleaseEvent(parts[i]);
    return err;
}

static cl_int CL_API_CALL layer_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                                      const size_t *offset, const size_t *global,
                                                      const size_t *local, cl_uint num_wait,
                                                      const cl_event *wait, cl_event *event) {
    int uniform = 1;
    if (local != NULL && global != NULL && dims >= 1 && dims <= 3) {
        for (cl_uint d = 0; d < dims; ++d) {
            if (local[d] == 0 || global[d] == 0) return next.clEnqueueNDRangeKernel(queue, kernel, dims, offset, global,
                                                                                    local, num_wait, wait, event);
            uniform &= global[d] % local[d] == 0;
        }
    }
    if (uniform) return next.clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, num_wait, wait, event);
    cl_device_id device = NULL;
    if (next.clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL) == CL_SUCCESS &&
        native_non_uniform(device))
        return next.clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, num_wait, wait, event);
    return split_launch(queue, kernel, dims, offset, global, local, num_wait, wait, event);
}

/* ------------------------------------------------------------------ loader interface */
EXPORT CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info name, size_t capacity, void *value,
                                                     size_t *size_ret) {
    static const char layer_name[] = "acl_ndarray_cl_layer (non-uniform work-groups for ACL)";
    switch (name) {
        case CL_LAYER_API_VERSION: {
            const cl_layer_api_version v = CL_LAYER_API_VERSION_100;
            return answer(&v, sizeof v, capacity, value, size_ret);
        }
#ifdef CL_LAYER_NAME
        case CL_LAYER_NAME: return answer(layer_name, sizeof layer_name, capacity, value, size_ret);
#endif
        default: (void)layer_name; return CL_INVALID_VALUE;
    }
}

EXPORT CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries, const struct _cl_icd_dispatch *target,
                                                  cl_uint *num_entries_ret,
                                                  const struct _cl_icd_dispatch **layer_dispatch_ret) {
    const cl_uint ours = (cl_uint)(sizeof(struct _cl_icd_dispatch) / sizeof(void *));
    if (target == NULL || num_entries_ret == NULL || layer_dispatch_ret == NULL) return CL_INVALID_VALUE;
    memset(&next, 0, sizeof next);
    memcpy(&next, target, (num_entries < ours ? num_entries : ours) * sizeof(void *));
    if (next.clGetDeviceInfo == NULL || next.clBuildProgram == NULL || next.clCompileProgram == NULL ||
        next.clCreateProgramWithSource == NULL || next.clEnqueueNDRangeKernel == NULL ||
        next.clEnqueueMarkerWithWaitList == NULL || next.clReleaseEvent == NULL ||
        next.clGetCommandQueueInfo == NULL || next.clGetProgramInfo == NULL)
        return CL_INVALID_VALUE;
    dispatch = next;
    dispatch.clGetDeviceInfo = layer_clGetDeviceInfo;
    dispatch.clBuildProgram = layer_clBuildProgram;
    dispatch.clCompileProgram = layer_clCompileProgram;
    dispatch.clCreateProgramWithSource = layer_clCreateProgramWithSource;
    dispatch.clEnqueueNDRangeKernel = layer_clEnqueueNDRangeKernel;
    *num_entries_ret = ours;
    *layer_dispatch_ret = &dispatch;
    return CL_SUCCESS;
}
