// acl_shim_cl.cpp -- tensors of both backends, and the OpenCL side of the shim: devices as
// ACL's OpenCL loader sees them, CLScheduler initialisation with a clear error for devices
// ACL cannot run its kernels on, and how a CL tensor gets the NdArray's host memory:
//   1. cl_arm_import_memory (+ _host) where the device has it (Mali): the allocation itself;
//   2. else a cl_mem with CL_MEM_USE_HOST_PTR over the allocation (base, total size);
//   3. else (the device refused both) a device buffer, copied in before and out after runs.
// The program cache: ACL's compiled programs saved to and restored from a file with ACL's own
// save_program_cache_to_file / restore_program_cache_from_file; the file is verified by the
// Python side (acl_bridge/cl_program_cache.py) before ACL reads it, and a program that fails
// to build from its binary drops every restored program again.
// OpenCL calls go through ACL's own loader (libarm_compute exports the cl* entry points and
// dlopens libOpenCL.so), so the shim does not link libOpenCL itself.
#include "acl_shim_tensors.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#if ACL_SHIM_WITH_CL
#include "acl_ndarray_cl_layer.h"
#include "arm_compute/core/CL/CLHelpers.h"
#include "arm_compute/core/CL/CLKernelLibrary.h"
#include "arm_compute/core/CL/OpenCL.h"
#include "arm_compute/runtime/CL/CLScheduler.h"
#include "arm_compute/runtime/CL/Utils.h"

#include <fstream>
#endif

namespace acl_shim_detail {

acl::ITensor *TensorState::get() const {
#if ACL_SHIM_WITH_CL
    if (cl) return cl.get();
#endif
    return ne.get();
}

#if ACL_SHIM_WITH_CL
namespace {

const char *const kLayerHint =
    "enable acl-ndarray's OpenCL layer before the first OpenCL use: set ACL_NDARRAY_CL_LAYER=1 in the "
    "environment, or call acl_bridge.opencl.use_software_opencl_layer() (it sets OPENCL_LAYERS to "
    "libacl_ndarray_cl_layer.so; the ICD loader must be ocl-icd >= 2.3 or the Khronos loader)";

std::mutex g_mutex;
bool g_ready = false;
cl::Device g_device;
bool g_arm_import = false;

bool has_word(const std::string &list, const char *word) {
    const size_t n = std::strlen(word);
    for (size_t p = list.find(word); p != std::string::npos; p = list.find(word, p + n)) {
        if ((p == 0 || list[p - 1] == ' ') && (p + n == list.size() || list[p + n] == ' ')) return true;
    }
    return false;
}

std::string info_string(const cl::Device &d, cl_device_info what) {
    size_t n = 0;
    if (clGetDeviceInfo(d(), what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
    std::string s(n, '\0');
    if (clGetDeviceInfo(d(), what, n, &s[0], nullptr) != CL_SUCCESS) return "";
    s.resize(std::strlen(s.c_str()));
    return s;
}

bool layer_active(const cl::Device &d) {
    cl_uint v = 0;
    return clGetDeviceInfo(d(), ACL_NDARRAY_CL_LAYER_DEVICE_INFO, sizeof v, &v, nullptr) == CL_SUCCESS &&
           v == ACL_NDARRAY_CL_LAYER_VERSION;
}

// ACL 24.11's rule (CLCompileContext::generate_build_options): the Arm extension, OpenCL 2.x,
// or OpenCL 3.0 with CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT.
bool acl_accepts(const cl::Device &d, const std::string &extensions) {
    if (has_word(extensions, "cl_arm_non_uniform_work_group_size")) return true;
    const acl::CLVersion v = acl::get_cl_version(d);
    return v == acl::CLVersion::CL20 || (v == acl::CLVersion::CL30 && acl::get_cl_non_uniform_work_group_supported(d));
}

void load_opencl() {
    if (!acl::opencl_is_available())
        fail(ACL_SHIM_ERR_NO_DEVICE, "ACL could not load an OpenCL library (it dlopens libOpenCL.so: install an ICD "
                                     "loader such as ocl-icd-opencl-dev and a driver such as pocl-opencl-icd)");
}

std::vector<std::vector<cl::Device>> all_devices(std::vector<cl::Platform> &platforms) {
    platforms.clear();
    cl::Platform::get(&platforms);
    std::vector<std::vector<cl::Device>> devices(platforms.size());
    for (size_t i = 0; i < platforms.size(); ++i) platforms[i].getDevices(CL_DEVICE_TYPE_ALL, &devices[i]);
    return devices;
}

std::string describe_device(const cl::Device &d) {
    return "'" + info_string(d, CL_DEVICE_NAME) + "' (" + info_string(d, CL_DEVICE_VERSION) + ")";
}

void init_locked(const cl::Device &device) {
    if (g_ready) {
        require(g_device() == device(), "OpenCL is already initialised on " + describe_device(g_device) +
                                            "; ACL's CLScheduler cannot move to " + describe_device(device));
        return;
    }
    const std::string ext = info_string(device, CL_DEVICE_EXTENSIONS);
    if (!acl_accepts(device, ext)) {
        std::string m = "OpenCL device " + describe_device(device) +
                        " has no non-uniform work-group support: it lists no cl_arm_non_uniform_work_group_size "
                        "extension and reports no OpenCL 3.0 CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, and ACL's "
                        "CL kernels need one of them";
        m += layer_active(device) ? " (acl-ndarray's OpenCL layer is active but did not help: report this)"
                                  : "; to run them on this device, " + std::string(kLayerHint);
        fail(ACL_SHIM_ERR_NO_DEVICE, m);
    }
    cl::Device dev = device;
    cl::Context ctx(dev);
    acl::CLScheduler::get().default_init_with_context(dev, ctx);
    g_device = device;
    g_arm_import = has_word(ext, "cl_arm_import_memory") && has_word(ext, "cl_arm_import_memory_host");
    g_ready = true;
}

void init(int32_t platform_index, int32_t device_index) {
    std::lock_guard<std::mutex> lock(g_mutex);
    load_opencl();
    std::vector<cl::Platform> platforms;
    const auto devices = all_devices(platforms);
    if (platforms.empty()) fail(ACL_SHIM_ERR_NO_DEVICE, "no OpenCL platform found (no ICD registered)");
    if (platform_index < 0) {
        // ACL's own default: the first platform's default device
        std::vector<cl::Device> def;
        platforms[0].getDevices(CL_DEVICE_TYPE_DEFAULT, &def);
        if (def.empty()) def = devices[0];
        if (def.empty()) fail(ACL_SHIM_ERR_NO_DEVICE, "the first OpenCL platform has no device");
        init_locked(def[0]);
        return;
    }
    require(static_cast<size_t>(platform_index) < platforms.size(),
            "platform_index is " + std::to_string(platform_index) + ", there are " + std::to_string(platforms.size()));
    const auto &devs = devices[platform_index];
    require(device_index >= 0 && static_cast<size_t>(device_index) < devs.size(),
            "device_index is " + std::to_string(device_index) + ", platform " + std::to_string(platform_index) +
                " has " + std::to_string(devs.size()));
    init_locked(devs[device_index]);
}

void copy_text(char *dst, size_t capacity, const std::string &s) {
    const size_t n = std::min(capacity - 1, s.size());
    std::memcpy(dst, s.data(), n);
    dst[n] = '\0';
}

cl::CommandQueue &queue() { return acl::CLScheduler::get().queue(); }

}  // namespace

void cl_ready() {
    if (!g_ready) init(-1, -1);
}
#else
void cl_ready() {
    fail(ACL_SHIM_ERR_UNSUPPORTED, "this acl_bridge was built without ACL's OpenCL backend (the ACL headers "
                                   "found at build time had no CL runtime, or it is ACL < 24)");
}
#endif

std::shared_ptr<TensorState> make_tensor(int32_t backend, const acl::TensorInfo &info) {
    auto t = std::make_shared<TensorState>();
    t->backend = backend;
    if (backend == ACL_SHIM_BACKEND_NEON) {
        t->ne = std::make_unique<acl::Tensor>();
        t->ne->allocator()->init(info);
        return t;
    }
    require(backend == ACL_SHIM_BACKEND_CL, "unknown backend " + std::to_string(backend) + " (0 NEON, 1 CL)");
    cl_ready();
#if ACL_SHIM_WITH_CL
    t->cl = std::make_unique<acl::CLTensor>();
    t->cl->allocator()->init(info);
#endif
    return t;
}

void import_host(TensorState &t, void *base, uint64_t size) {
    require(base != nullptr, "base pointer is NULL");
    t.host_base = base;
    t.size_in_bytes = size;
    if (t.backend == ACL_SHIM_BACKEND_NEON) {
        check_status(t.ne->allocator()->import_memory(base), "TensorAllocator::import_memory");
        t.route = ACL_SHIM_MEMORY_HOST;
        t.imported = true;
        return;
    }
#if ACL_SHIM_WITH_CL
    require(size > 0, "a CL tensor needs total_size_in_bytes > 0");
    cl_ready();
    const cl::Context &ctx = acl::CLScheduler::get().context();
    cl_int err = CL_SUCCESS;
    cl_mem mem = nullptr;
    // ACL_NDARRAY_CL_MEMORY=staged: skip both zero-copy routes (tests the staging path; a
    // way out for a driver whose host-pointer buffers misbehave)
    const char *forced = std::getenv("ACL_NDARRAY_CL_MEMORY");
    const bool staged_only = forced != nullptr && std::strcmp(forced, "staged") == 0;
    if (g_arm_import && !staged_only) {
        const cl_import_properties_arm props[] = {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_HOST_ARM, 0};
        mem = clImportMemoryARM(ctx(), CL_MEM_READ_WRITE, props, base, size, &err);
        t.route = ACL_SHIM_MEMORY_CL_IMPORT_ARM;
    }
    if (mem == nullptr && !staged_only) {
        mem = clCreateBuffer(ctx(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, base, &err);
        t.route = ACL_SHIM_MEMORY_CL_USE_HOST_PTR;
    }
    if (mem == nullptr) {
        mem = clCreateBuffer(ctx(), CL_MEM_READ_WRITE, size, nullptr, &err);
        t.route = ACL_SHIM_MEMORY_CL_STAGED;
    }
    if (mem == nullptr) fail(ACL_SHIM_ERR_OUT_OF_MEMORY, "clCreateBuffer of " + std::to_string(size) +
                                                             " bytes failed: " + std::to_string(err));
    t.buffer = cl::Buffer(mem);  // takes the reference
    check_status(t.cl->allocator()->import_memory(t.buffer), "CLTensorAllocator::import_memory");
    t.imported = true;
#endif
}

void before_run(const Tensors &tensors) {
#if ACL_SHIM_WITH_CL
    for (const auto &t : tensors) {
        if (t->backend != ACL_SHIM_BACKEND_CL) continue;
        if (t->route == ACL_SHIM_MEMORY_CL_STAGED) {
            queue().enqueueWriteBuffer(t->buffer, CL_FALSE, 0, t->size_in_bytes, t->host_base);
        } else if (t->route == ACL_SHIM_MEMORY_CL_USE_HOST_PTR) {
            // the host wrote the allocation directly: a map that invalidates plus an unmap
            // tells a device with its own copy (discrete GPU) to take the host bytes
            void *p = queue().enqueueMapBuffer(t->buffer, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, t->size_in_bytes);
            queue().enqueueUnmapMemObject(t->buffer, p);
        }
    }
#else
    (void)tensors;
#endif
}

void after_run(const Tensors &tensors) {
#if ACL_SHIM_WITH_CL
    bool any = false;
    for (const auto &t : tensors) any = any || t->backend == ACL_SHIM_BACKEND_CL;
    if (!any) return;
    acl::CLScheduler::get().sync();
    for (const auto &t : tensors) {
        if (t->route == ACL_SHIM_MEMORY_CL_STAGED) {
            queue().enqueueReadBuffer(t->buffer, CL_TRUE, 0, t->size_in_bytes, t->host_base);
        } else if (t->route == ACL_SHIM_MEMORY_CL_USE_HOST_PTR) {
            void *p = queue().enqueueMapBuffer(t->buffer, CL_TRUE, CL_MAP_READ, 0, t->size_in_bytes);
            queue().enqueueUnmapMemObject(t->buffer, p);
        }
    }
    queue().finish();
#else
    (void)tensors;
#endif
}

void report_memory(const TensorState &t, acl_shim_tensor_memory &out) {
    std::memset(&out, 0, sizeof out);
    out.backend = t.backend;
    out.route = t.route;
    out.base_address = reinterpret_cast<uint64_t>(t.host_base);
    out.size_in_bytes = t.size_in_bytes;
    if (!t.imported) return;
    if (t.backend == ACL_SHIM_BACKEND_NEON) {
        out.mapped_address = reinterpret_cast<uint64_t>(t.ne->buffer());
        return;
    }
#if ACL_SHIM_WITH_CL
    void *p = queue().enqueueMapBuffer(t.buffer, CL_TRUE, CL_MAP_READ, 0, t.size_in_bytes);
    out.mapped_address = reinterpret_cast<uint64_t>(p);
    queue().enqueueUnmapMemObject(t.buffer, p);
    queue().finish();
    if (t.route == ACL_SHIM_MEMORY_CL_STAGED) out.bytes_staged_per_run = 2 * t.size_in_bytes;
#endif
}

}  // namespace acl_shim_detail

using namespace acl_shim_detail;

extern "C" {

int32_t acl_shim_cl_available(void) { return ACL_SHIM_WITH_CL; }

int32_t acl_shim_neon_available(void) { return ACL_SHIM_WITH_NEON; }

int32_t acl_shim_cl_init(int32_t platform_index, int32_t device_index) {
    return guarded([&] {
#if ACL_SHIM_WITH_CL
        init(platform_index, device_index);
#else
        (void)platform_index, (void)device_index;
        cl_ready();
#endif
    });
}

int32_t acl_shim_cl_devices(acl_shim_cl_device *out, int32_t capacity, int32_t *count) {
    return guarded([&] {
        require(count != nullptr && (out != nullptr || capacity == 0), "count (and out for capacity > 0) must not be NULL");
        *count = 0;
#if ACL_SHIM_WITH_CL
        std::lock_guard<std::mutex> lock(g_mutex);
        load_opencl();
        std::vector<cl::Platform> platforms;
        const auto devices = all_devices(platforms);
        int32_t k = 0;
        for (size_t p = 0; p < platforms.size(); ++p) {
            for (size_t i = 0; i < devices[p].size(); ++i, ++k) {
                if (k >= capacity) continue;
                const cl::Device &d = devices[p][i];
                acl_shim_cl_device &o = out[k];
                std::memset(&o, 0, sizeof o);
                o.platform_index = static_cast<int32_t>(p);
                o.device_index = static_cast<int32_t>(i);
                copy_text(o.platform_name, sizeof o.platform_name, platforms[p].getInfo<CL_PLATFORM_NAME>());
                copy_text(o.device_name, sizeof o.device_name, info_string(d, CL_DEVICE_NAME));
                copy_text(o.device_version, sizeof o.device_version, info_string(d, CL_DEVICE_VERSION));
                copy_text(o.driver_version, sizeof o.driver_version, info_string(d, CL_DRIVER_VERSION));
                const std::string ext = info_string(d, CL_DEVICE_EXTENSIONS);
                o.layer_active = layer_active(d);
                const std::string native =
                    o.layer_active ? info_string(d, ACL_NDARRAY_CL_LAYER_NATIVE_EXTENSIONS) : ext;
                o.non_uniform_work_groups = acl_accepts(d, ext);
                o.native_non_uniform_work_groups = acl_accepts(d, native);
                o.arm_import_memory = has_word(ext, "cl_arm_import_memory") && has_word(ext, "cl_arm_import_memory_host");
                o.fp16 = has_word(ext, "cl_khr_fp16");
                o.selected = g_ready && g_device() == d();
                std::string interest;
                for (const char *e : {"cl_arm_non_uniform_work_group_size", "cl_arm_import_memory",
                                      "cl_arm_import_memory_host", "cl_khr_fp16", "cl_arm_integer_dot_product_int8",
                                      "cl_khr_subgroups"})
                    if (has_word(ext, e)) interest += (interest.empty() ? "" : " ") + std::string(e);
                copy_text(o.extensions_of_interest, sizeof o.extensions_of_interest, interest);
            }
        }
        *count = k;
#else
        (void)out, (void)capacity;
#endif
    });
}

int32_t acl_shim_tensor_memory_get(const acl_shim_tensor *tensor, acl_shim_tensor_memory *out) {
    return guarded([&] {
        require(tensor != nullptr && out != nullptr, "tensor and out must not be NULL");
        report_memory(*tensor->state, *out);
    });
}

int32_t acl_shim_cl_program_count(int32_t *count) {
    return guarded([&] {
        require(count != nullptr, "count must not be NULL");
        *count = 0;
        cl_ready();
#if ACL_SHIM_WITH_CL
        *count = static_cast<int32_t>(acl::CLKernelLibrary::get().get_built_programs().size());
#endif
    });
}

int32_t acl_shim_cl_program_cache_save(const char *path, int32_t *count) {
    return guarded([&] {
        require(path != nullptr && count != nullptr, "path and count must not be NULL");
        *count = 0;
        cl_ready();
#if ACL_SHIM_WITH_CL
        acl::save_program_cache_to_file(path);  // throws when the file cannot be opened
        *count = static_cast<int32_t>(acl::CLKernelLibrary::get().get_built_programs().size());
#endif
    });
}

int32_t acl_shim_cl_program_cache_restore(const char *path, int32_t *count) {
    return guarded([&] {
        require(path != nullptr && count != nullptr, "path and count must not be NULL");
        *count = 0;
        cl_ready();
#if ACL_SHIM_WITH_CL
        // ACL's restore silently does nothing when the file cannot be opened: say so instead
        require(std::ifstream(path, std::ios::binary).is_open(), std::string("cannot open ") + path);
        acl::CLKernelLibrary &library = acl::CLKernelLibrary::get();
        const size_t before = library.get_built_programs().size();
        try {
            acl::restore_program_cache_from_file(path);
        } catch (const cl::Error &e) {
            library.clear_programs_cache();  // ACL compiles from source again on demand
            fail(ACL_SHIM_ERR_EXCEPTION, std::string("a program of the cache did not build from its binary (") +
                                             e.what() + ", OpenCL error " + std::to_string(e.err()) +
                                             "); every restored program was dropped");
        } catch (const std::exception &e) {
            library.clear_programs_cache();
            fail(ACL_SHIM_ERR_EXCEPTION, std::string("restoring the program cache failed (") + e.what() +
                                             "); every restored program was dropped");
        }
        *count = static_cast<int32_t>(library.get_built_programs().size() - before);
#endif
    });
}

}  // extern "C"
