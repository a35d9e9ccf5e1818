/*
 * acl_shim.h -- the whole ABI between Python (cffi, API mode) and the C++ that
 * drives the Arm Compute Library (ACL) NEON functions.
 *
 * Rules of this ABI:
 *  - plain C: opaque handles, fixed-width integers, float/double, plain structs;
 *    no C++ types; nothing throws across it (every entry point catches all
 *    C++ exceptions and turns them into a status code);
 *  - every fallible call returns an int32_t status (ACL_SHIM_OK == 0); the
 *    message of the last failure on the calling thread is acl_shim_last_error();
 *  - dimension order is ACL's: index 0 is the innermost (x) dimension;
 *  - units are in the names: *_in_bytes are bytes, everything else counts elements.
 *
 * The part between the CDEF markers is read verbatim by acl_bridge/_build.py
 * as the cffi declarations, so it must stay parseable by pycparser: no
 * #include/#if inside it, only integer #defines, typedefs and prototypes.
 */
#ifndef ACL_SHIM_H
#define ACL_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ACL_SHIM_CDEF_BEGIN */

#define ACL_SHIM_ABI_VERSION 20
#define ACL_SHIM_MAX_DIMS 6
#define ACL_SHIM_MAX_FUNCTION_TENSORS 32 /* a function's tensors (ABI 16: 8 before; lstm takes 27) */

/* ---- status codes ------------------------------------------------------ */
#define ACL_SHIM_OK 0
#define ACL_SHIM_ERR_INVALID_ARGUMENT 1 /* the shim rejected an argument (null, unknown enum, rank...) */
#define ACL_SHIM_ERR_ACL_STATUS 2       /* an ACL Status was an error; message is ACL's */
#define ACL_SHIM_ERR_EXCEPTION 3        /* a C++ exception was caught at the boundary */
#define ACL_SHIM_ERR_OUT_OF_MEMORY 4    /* std::bad_alloc */
#define ACL_SHIM_ERR_NOT_IMPORTED 5     /* run() before every tensor had memory imported */
#define ACL_SHIM_ERR_UNSUPPORTED 6      /* not available in the ACL version this was built against */
#define ACL_SHIM_ERR_INDEX_OUT_OF_RANGE 8 /* run: an index value outside its tensor (ABI 17, gather_nd); nothing written */

/* ---- enums (values are the ABI; the C++ maps them onto ACL's) --------- */
#define ACL_SHIM_DT_F32 0
#define ACL_SHIM_DT_F16 1
#define ACL_SHIM_DT_S32 2
#define ACL_SHIM_DT_U8 3
#define ACL_SHIM_DT_QASYMM8 4
#define ACL_SHIM_DT_QASYMM8_SIGNED 5
#define ACL_SHIM_DT_S8 6
#define ACL_SHIM_DT_S16 7
#define ACL_SHIM_DT_U16 8
#define ACL_SHIM_DT_QSYMM8_PER_CHANNEL 9 /* int8 weights, symmetric, one scale per output channel (ABI 9) */
#define ACL_SHIM_DT_S64 10               /* int64 (ABI 13): an arg max / min's indices, ACL 24.x */
#define ACL_SHIM_DT_QSYMM8 11            /* int8, symmetric, one scale (ABI 18, qlstm: its weights) */
#define ACL_SHIM_DT_QSYMM16 12           /* int16, symmetric, one scale (ABI 18, qlstm: cell state, peepholes,
                                            layer-norm weights) */

#define ACL_SHIM_LAYOUT_NCHW 0
#define ACL_SHIM_LAYOUT_NHWC 1

/* Function kinds and the order of their tensors (NULL allowed where "opt"). */
#define ACL_SHIM_FN_ACTIVATION 1      /* src, dst */
#define ACL_SHIM_FN_ADD 2             /* a, b, dst (broadcasting) */
#define ACL_SHIM_FN_SUB 3             /* a, b, dst (broadcasting) */
#define ACL_SHIM_FN_MUL 4             /* a, b, dst (broadcasting), times params.scale */
#define ACL_SHIM_FN_POOLING 5         /* src, dst */
#define ACL_SHIM_FN_CONVOLUTION 6     /* src, weights, bias (opt), dst */
#define ACL_SHIM_FN_DEPTHWISE 7       /* src, weights, bias (opt), dst */
#define ACL_SHIM_FN_FULLY_CONNECTED 8 /* src, weights, bias (opt), dst */
#define ACL_SHIM_FN_GEMM 9            /* a, b, c (opt), dst: dst = alpha*a@b + beta*c */
#define ACL_SHIM_FN_SOFTMAX 10        /* src, dst */
#define ACL_SHIM_FN_PERMUTE 11        /* src, dst */
#define ACL_SHIM_FN_COPY 12           /* src, dst */
#define ACL_SHIM_FN_PAD 13            /* src, dst */
#define ACL_SHIM_FN_FILL 14           /* dst */
#define ACL_SHIM_FN_CAST 15           /* src, dst (data type conversion) */
#define ACL_SHIM_FN_QUANTIZE 16       /* src, dst */
#define ACL_SHIM_FN_DEQUANTIZE 17     /* src, dst */
#define ACL_SHIM_FN_LOG_SOFTMAX 18    /* src, dst */
#define ACL_SHIM_FN_RESIZE 19         /* src, dst (ABI 6): dst's height and width set the scale */
#define ACL_SHIM_FN_PRELU 20          /* src, alpha, dst (ABI 7): dst = src > 0 ? src : alpha * src, alpha broadcasting */
/* the elementwise family (ABI 12, native/acl_shim_elementwise.cpp): binary a, b, dst (broadcasting) */
#define ACL_SHIM_FN_DIV 21                /* dst = a / b */
#define ACL_SHIM_FN_MAXIMUM 22            /* dst = max(a, b) */
#define ACL_SHIM_FN_MINIMUM 23            /* dst = min(a, b) */
#define ACL_SHIM_FN_SQUARED_DIFFERENCE 24 /* dst = (a - b)^2 */
#define ACL_SHIM_FN_POWER 25              /* dst = a^b */
/* ... and unary src, dst */
#define ACL_SHIM_FN_ABS 26
#define ACL_SHIM_FN_EXP 27
#define ACL_SHIM_FN_LOG 28
#define ACL_SHIM_FN_NEG 29
#define ACL_SHIM_FN_RSQRT 30
#define ACL_SHIM_FN_SIN 31
#define ACL_SHIM_FN_ROUND 32              /* ACL's rounding: half to even */
#define ACL_SHIM_FN_FLOOR 33
/* the reduction family (ABI 12, native/acl_shim_reduction.cpp): src, dst along params.axis (ACL
   order), the axis kept with extent 1 */
#define ACL_SHIM_FN_REDUCE_SUM 34
#define ACL_SHIM_FN_REDUCE_MEAN 35
#define ACL_SHIM_FN_REDUCE_MAX 36
#define ACL_SHIM_FN_REDUCE_MIN 37
#define ACL_SHIM_FN_REDUCE_PROD 38
/* the logic family (ABI 13, native/acl_shim_logic.cpp): comparisons a, b, dst (broadcasting; dst
   U8 holding 0 or 1), logical and / or a, b, dst and not src, dst (U8, ACL 24.x), arg max / min
   src, dst along params.axis (ACL order, removed from dst), select condition, a, b, dst */
#define ACL_SHIM_FN_EQUAL 70
#define ACL_SHIM_FN_NOT_EQUAL 71
#define ACL_SHIM_FN_LESS 72
#define ACL_SHIM_FN_LESS_EQUAL 73
#define ACL_SHIM_FN_GREATER 74
#define ACL_SHIM_FN_GREATER_EQUAL 75
#define ACL_SHIM_FN_LOGICAL_AND 76
#define ACL_SHIM_FN_LOGICAL_OR 77
#define ACL_SHIM_FN_LOGICAL_NOT 78
#define ACL_SHIM_FN_ARG_MAX 79
#define ACL_SHIM_FN_ARG_MIN 80
#define ACL_SHIM_FN_SELECT 81
/* the data-movement family (ABI 14, native/acl_shim_movement.cpp): src, dst unless said */
#define ACL_SHIM_FN_STRIDED_SLICE 39  /* params.slice_* per ACL dimension; mask bit i: ACL dimension i */
#define ACL_SHIM_FN_GATHER 40         /* src, indices (int32, 1-D), dst: along params.axis (ACL order) */
#define ACL_SHIM_FN_TILE 41           /* params.multiples per ACL dimension */
#define ACL_SHIM_FN_DEPTH_TO_SPACE 42 /* params.block_x */
#define ACL_SHIM_FN_SPACE_TO_DEPTH 43 /* params.block_x */
#define ACL_SHIM_FN_BATCH_TO_SPACE 44 /* params.block_x, block_y; crops in pad_left/right/top/bottom */
#define ACL_SHIM_FN_SPACE_TO_BATCH 45 /* params.block_x, block_y; paddings in pad_left/right/top/bottom */
/* the neural-network layers (ABI 15, native/acl_shim_nn.cpp) */
#define ACL_SHIM_FN_DECONVOLUTION 82  /* src, weights, bias (opt), dst: TFLite's TRANSPOSE_CONV; stride and
                                         pad_* crop the full (in - 1) * stride + kernel output */
#define ACL_SHIM_FN_L2_NORMALIZE 83   /* src, dst: dst = src / sqrt(max(sum(src^2), epsilon)) along axis */
#define ACL_SHIM_FN_NORMALIZATION 84  /* src, dst: cross-channel local response normalization,
                                         dst = src / (kappa + alpha * sum over norm_size channels of src^2)^beta */
#define ACL_SHIM_FN_MATMUL 85         /* a, b, dst: batched dst = a @ b (adj_a / adj_b transpose the last two
                                         numpy axes); ACL 24.11 (20.08 has none) */
#define ACL_SHIM_FN_CONVOLUTION_3D 86 /* src, weights, bias (opt), dst: NDHWC (the shim marks the tensors so),
                                         weights DHWIO; stride_*, pad_* with pad_front / pad_back; ACL 24.11 */
/* 3-D pooling (ABI 16, native/acl_shim_pooling3d.cpp) */
#define ACL_SHIM_FN_POOLING_3D 90     /* src, dst: NDHWC (the shim marks the tensors so); pool_type max / avg,
                                         kernel_w / _h / _d, stride_x / _y / _z, pad_* with pad_front /
                                         pad_back, exclude_padding; ACL 24.11 (20.08 has none) */

/* the LSTM family (ABI 16, native/acl_shim_lstm.cpp) */
#define ACL_SHIM_FN_LSTM 100          /* TFLite's 24 LSTM inputs in its order (NULL where absent), output_state_out
                                         (opt), cell_state_out (opt), output (opt): one float time step;
                                         activation / act_a / act_b the cell activation, cell_clip,
                                         projection_clip (0: none) */

/* the quantized LSTM (ABI 18, native/acl_shim_qlstm.cpp): NEON, ACL 24.11 */
#define ACL_SHIM_FN_QLSTM 110         /* as lstm, TFLite's integer LSTM (8x8_16): src, output_state_in, output
                                         QASYMM8_SIGNED; weights QSYMM8; biases S32; cell_state_in / _out,
                                         peepholes, layer-norm weights QSYMM16; cell_clip, projection_clip,
                                         qlstm_matmul_scales, qlstm_hidden_scale, qlstm_hidden_zero_point */

/* detection post-process (ABI 16, native/acl_shim_detection.cpp): NEON only (ACL has no CL function) */
#define ACL_SHIM_FN_GATHER_ND 115     /* src (K, C), indices (N, D) S32 or S64, dst (N, C) (ABI 17): row n of dst =
                                         row sum_j indices[n, j] * params.gather_nd_strides[j] of src; the
                                         shim flattens and checks the indices on the CPU (every component inside
                                         its axis, else ACL_SHIM_ERR_INDEX_OUT_OF_RANGE before anything is
                                         written), then ACL's Gather moves the rows; NEON and CL */
#define ACL_SHIM_FN_DETECTION_POST_PROCESS 95 /* box encodings (4, N), class scores (num_classes + 1, N), anchors
                                                 (4, N), boxes (4, M), classes (M), scores (M), num_detections (1),
                                                 ACL order, M = max_detections * max_classes_per_detection:
                                                 TFLite's TFLite_Detection_PostProcess (F32 outputs) */

#define ACL_SHIM_ACT_NONE -1
#define ACL_SHIM_ACT_RELU 0
#define ACL_SHIM_ACT_BOUNDED_RELU 1    /* min(a, max(0, x)) */
#define ACL_SHIM_ACT_LU_BOUNDED_RELU 2 /* min(a, max(b, x)) */
#define ACL_SHIM_ACT_LEAKY_RELU 3      /* x > 0 ? x : a*x */
#define ACL_SHIM_ACT_LOGISTIC 4
#define ACL_SHIM_ACT_TANH 5            /* a * tanh(b * x) */
#define ACL_SHIM_ACT_SOFT_RELU 6
#define ACL_SHIM_ACT_ELU 7
#define ACL_SHIM_ACT_ABS 8
#define ACL_SHIM_ACT_SQUARE 9
#define ACL_SHIM_ACT_SQRT 10
#define ACL_SHIM_ACT_LINEAR 11         /* a*x + b */
#define ACL_SHIM_ACT_IDENTITY 12
#define ACL_SHIM_ACT_HARD_SWISH 13
#define ACL_SHIM_ACT_SWISH 14          /* ACL >= 21.x only */
#define ACL_SHIM_ACT_GELU 15           /* ACL >= 23.x only */

#define ACL_SHIM_POOL_MAX 0
#define ACL_SHIM_POOL_AVG 1
#define ACL_SHIM_POOL_L2 2

#define ACL_SHIM_POLICY_WRAP 0
#define ACL_SHIM_POLICY_SATURATE 1

#define ACL_SHIM_ROUND_TO_ZERO 0
#define ACL_SHIM_ROUND_TO_NEAREST_UP 1
#define ACL_SHIM_ROUND_TO_NEAREST_EVEN 2

#define ACL_SHIM_PAD_CONSTANT 0
#define ACL_SHIM_PAD_REFLECT 1
#define ACL_SHIM_PAD_SYMMETRIC 2

/* resize (ABI 6): ACL's InterpolationPolicy and SamplingPolicy */
#define ACL_SHIM_INTERP_NEAREST 0
#define ACL_SHIM_INTERP_BILINEAR 1

#define ACL_SHIM_SAMPLING_CENTER 0      /* src = (dst + 0.5) * in / out - 0.5 (TFLite half_pixel_centers) */
#define ACL_SHIM_SAMPLING_TOP_LEFT 1    /* src = dst * in / out, or dst * (in - 1) / (out - 1) with align_corners */

/* ---- value types ------------------------------------------------------- */
typedef struct acl_shim_tensor_desc {
    int32_t num_dims;                                /* 1..6 */
    uint32_t shape[ACL_SHIM_MAX_DIMS];               /* ACL order, x first */
    uint64_t strides_in_bytes[ACL_SHIM_MAX_DIMS];    /* ACL order; ignored by required_padding */
    uint64_t offset_first_element_in_bytes;          /* from the imported base pointer */
    uint64_t total_size_in_bytes;
    int32_t data_type;                               /* ACL_SHIM_DT_* */
    int32_t data_layout;                             /* ACL_SHIM_LAYOUT_* */
    float quantization_scale;                        /* quantized types only */
    int32_t quantization_offset;
    /* declare_padding != 0: the memory is laid out exactly as ACL pads a tensor
     * (TensorInfo::extend_padding(padding)); ACL then knows the padding (padding()
     * reports it, border-filling kernels write into it). The shim checks that the
     * resulting strides and offset are the ones given above. */
    int32_t declare_padding;
    uint32_t padding_top;
    uint32_t padding_right;
    uint32_t padding_bottom;
    uint32_t padding_left;
    int32_t backend; /* ACL_SHIM_BACKEND_*: NEON (0, the default of a zeroed desc) or CL */
    /* QSYMM8_PER_CHANNEL (ABI 9): one scale per output channel, quantization_offset 0.
     * Borrowed for the duration of the call that takes the desc (ACL's QuantizationInfo
     * copies them); NULL and 0 for every other data type. A pointer and a count rather than
     * a fixed array: channel counts have no useful bound (MobileNet 1024, ResNet-50 2048),
     * and a fixed array would make every desc of every tensor that size. */
    const float *quantization_scales;
    uint32_t quantization_scales_count;
} acl_shim_tensor_desc;

typedef struct acl_shim_padding {
    uint32_t top;
    uint32_t right;
    uint32_t bottom;
    uint32_t left;
} acl_shim_padding;

/* Parameters of every function kind in one flat struct; each kind reads only its fields. */
typedef struct acl_shim_params {
    int32_t activation;          /* ACL_SHIM_ACT_*; NONE for no fused activation */
    float act_a;
    float act_b;
    int32_t convert_policy;      /* add, sub, mul, cast */
    int32_t rounding_policy;     /* mul */
    float scale;                 /* mul */
    int32_t pool_type;           /* pooling */
    uint32_t kernel_w;           /* pooling window */
    uint32_t kernel_h;
    uint32_t stride_x;           /* pooling, convolution, depthwise */
    uint32_t stride_y;
    uint32_t pad_left;
    uint32_t pad_right;
    uint32_t pad_top;
    uint32_t pad_bottom;
    int32_t exclude_padding;     /* avg pooling */
    uint32_t depth_multiplier;   /* depthwise */
    int32_t transpose_weights;   /* fully connected */
    float alpha;                 /* gemm; normalization: the coefficient of the sum */
    float beta;                  /* gemm: beta; softmax: beta (exponent scale); normalization: the power */
    int32_t axis;                /* softmax */
    int32_t perm_len;            /* permute: dst dim i = src dim perm[i] (ACL order) */
    uint32_t perm[ACL_SHIM_MAX_DIMS];
    int32_t pad_len;             /* pad: per ACL dimension, elements before/after */
    uint32_t pad_before[ACL_SHIM_MAX_DIMS];
    uint32_t pad_after[ACL_SHIM_MAX_DIMS];
    int32_t pad_mode;            /* ACL_SHIM_PAD_* */
    double constant_value;       /* pad, fill (cast to the tensor's data type) */
    int32_t interpolation;       /* resize: ACL_SHIM_INTERP_* (ABI 6) */
    int32_t sampling;            /* resize: ACL_SHIM_SAMPLING_* */
    int32_t align_corners;       /* resize: TOP_LEFT sampling only */
    int32_t slice_len;           /* strided_slice (ABI 14): entries per ACL dimension */
    int32_t slice_begin[ACL_SHIM_MAX_DIMS];
    int32_t slice_end[ACL_SHIM_MAX_DIMS];
    int32_t slice_stride[ACL_SHIM_MAX_DIMS];
    int32_t begin_mask;          /* strided_slice: bit i set, ACL dimension i from its start */
    int32_t end_mask;            /* ... to its end */
    int32_t shrink_mask;         /* ... one element, the dimension dropped from dst */
    int32_t multiples_len;       /* tile: entries per ACL dimension */
    uint32_t multiples[ACL_SHIM_MAX_DIMS];
    int32_t block_x;             /* depth_to_space, space_to_depth (block_x only), batch_to_space, space_to_batch */
    int32_t block_y;
    uint32_t norm_size;          /* normalization: channels summed (odd) (ABI 15) */
    float kappa;                 /* normalization: the added constant (TFLite's bias) */
    float epsilon;               /* l2_normalize: the lower bound of the sum of squares */
    int32_t adj_a;               /* matmul: transpose a's last two numpy axes */
    int32_t adj_b;               /* matmul: transpose b's last two numpy axes */
    uint32_t stride_z;           /* convolution_3d: the depth stride */
    uint32_t pad_front;          /* convolution_3d: depth padding */
    uint32_t pad_back;
    uint32_t kernel_d;           /* pooling_3d (ABI 16): the window's depth */

    float cell_clip;             /* lstm family: |cell state| bound, 0 for none (ABI 16) */
    float projection_clip;       /* lstm family: |projected output| bound, 0 for none */

    /* detection post-process (ABI 16, the detection family) */
    uint32_t max_detections;            /* detection_post_process: boxes kept */
    uint32_t max_classes_per_detection; /* ... classes per box (fast NMS: 1 on ACL) */
    uint32_t detections_per_class;      /* ... boxes kept per class (regular NMS) */
    int32_t use_regular_nms;            /* ... 1: NMS per class; 0: the fast NMS on each box's best class */
    float nms_score_threshold;          /* ... scores below it are dropped */
    float nms_iou_threshold;            /* ... a box overlapping a kept one by more is dropped */
    uint32_t num_classes;               /* ... classes without the background column */
    float box_scales[4];                /* ... y, x, h, w: the box codes' scales */

    /* gather_nd runtime indices (ABI 17, the gather_nd family) */
    int64_t gather_nd_strides[ACL_SHIM_MAX_DIMS]; /* gather_nd: src rows per step of index component j (numpy order) */

    /* the quantized LSTM (ABI 18, the qlstm family) */
    float qlstm_matmul_scales[4];       /* qlstm: the gates' (i, f, c, o) matmul output scales */
    float qlstm_hidden_scale;           /* ... the hidden state's scale (before the projection) */
    int32_t qlstm_hidden_zero_point;    /* ... and its zero point */
} acl_shim_params;

typedef struct acl_shim_cpu_report {
    uint32_t num_cpus;           /* as ACL's CPUInfo counts them */
    uint32_t num_threads;        /* NEScheduler's current thread count */
    int32_t has_fp16;            /* 1 yes, 0 no, -1 not reported by this ACL version */
    int32_t has_dotprod;
    int32_t has_sve;
    int32_t has_sve2;
    int32_t has_bf16;
    int32_t has_i8mm;
    int32_t f16_kernels;         /* 1 when this ACL build accepts F16 tensors (validate of an
                                    F16 activation passes); CPU fp16 alone is not enough */
} acl_shim_cpu_report;

/* ---- OpenCL backend ----------------------------------------------------
 * A tensor made from a desc with backend CL is an ACL CLTensor; required_padding, probe
 * and function_create run the CL function of the kind when their tensors are CL (all must
 * agree). A CL function's run() returns after CLScheduler::sync(): results are in host
 * memory. Built only where the ACL headers have the CL runtime (acl_shim_cl_available). */
#define ACL_SHIM_BACKEND_NEON 0
#define ACL_SHIM_BACKEND_CL 1

#define ACL_SHIM_ERR_NO_DEVICE 7 /* no usable OpenCL device: none found, or ACL cannot run its
                                    kernels on it (the message says what is missing) */

/* How a tensor's memory reached the device (acl_shim_tensor_memory.route). */
#define ACL_SHIM_MEMORY_NONE 0          /* nothing imported yet */
#define ACL_SHIM_MEMORY_HOST 1          /* NEON: ACL reads and writes the host pointer itself */
#define ACL_SHIM_MEMORY_CL_IMPORT_ARM 2 /* cl_arm_import_memory over the allocation (Mali) */
#define ACL_SHIM_MEMORY_CL_USE_HOST_PTR 3 /* cl_mem with CL_MEM_USE_HOST_PTR over the allocation */
#define ACL_SHIM_MEMORY_CL_STAGED 4     /* the device refused both: a device buffer, written
                                           before and read back after every run (counted) */

typedef struct acl_shim_cl_device {
    int32_t platform_index;
    int32_t device_index;
    char platform_name[128];
    char device_name[128];
    char device_version[128];           /* CL_DEVICE_VERSION */
    char driver_version[64];
    int32_t non_uniform_work_groups;    /* ACL accepts it: cl_arm_non_uniform_work_group_size, an
                                           OpenCL 3.0 CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, or 2.x */
    int32_t native_non_uniform_work_groups; /* the same, from the driver alone (without the layer) */
    int32_t layer_active;               /* acl-ndarray's OpenCL layer is in this device's chain */
    int32_t arm_import_memory;          /* cl_arm_import_memory (+ _host) */
    int32_t fp16;                       /* cl_khr_fp16 */
    int32_t selected;                   /* the device ACL's CLScheduler uses */
    char extensions_of_interest[256];   /* those of the above the device lists, space-separated */
} acl_shim_cl_device;

typedef struct acl_shim_tensor_memory {
    int32_t backend;                    /* ACL_SHIM_BACKEND_* */
    int32_t route;                      /* ACL_SHIM_MEMORY_* */
    uint64_t base_address;              /* the host allocation imported */
    uint64_t mapped_address;            /* CL: what mapping the device buffer returns (== base
                                           when the device uses the host memory); NEON: buffer() */
    uint64_t size_in_bytes;             /* the bytes handed to the device */
    uint64_t bytes_staged_per_run;      /* copies the shim makes per run (STAGED only) */
} acl_shim_tensor_memory;

struct acl_shim_tensor; /* declared with its typedef under "value types" below */

/* 1 when this module was built with ACL's CL (NEON) backend, else 0. */
int32_t acl_shim_cl_available(void);
int32_t acl_shim_neon_available(void);
/* The OpenCL platforms' devices as ACL's OpenCL loader sees them: *count receives how many
 * there are; min(count, capacity) are written to out. */
int32_t acl_shim_cl_devices(acl_shim_cl_device *out, int32_t capacity, int32_t *count);
/* Initialise ACL's CLScheduler on a device (-1, -1: ACL's default, the first platform's
 * default device). Fails with ACL_SHIM_ERR_NO_DEVICE when ACL cannot run its kernels there
 * (no non-uniform work-group support and the layer is not active). Called implicitly by the
 * first CL tensor or function; a second call for another device fails. */
int32_t acl_shim_cl_init(int32_t platform_index, int32_t device_index);
/* How a tensor's memory reached the device, and the address mapping it gives (maps and
 * unmaps the buffer: pointer identity proves the device uses the host bytes). */
int32_t acl_shim_tensor_memory_get(const struct acl_shim_tensor *tensor, acl_shim_tensor_memory *out);

/* ---- OpenCL program cache (ABI 8) ----------------------------------------
 * ACL keeps every CL program it compiled (CLKernelLibrary's built programs, keyed by program
 * name and build options) for the life of the process; these entry points hand them to ACL's
 * save_program_cache_to_file / restore_program_cache_from_file (arm_compute/runtime/CL/Utils.h).
 * Each starts OpenCL on ACL's default device first, as a CL tensor does. Not to be called
 * while a CL function is being configured on another thread. */
/* *count receives how many built programs ACL holds now. */
int32_t acl_shim_cl_program_count(int32_t *count);
/* Write every built program to path (ACL's file format); *count receives how many. */
int32_t acl_shim_cl_program_cache_save(const char *path, int32_t *count);
/* Give the programs of an ACL program-cache file to ACL (each is built from its binary for
 * the device). ACL reads the file without any check: the caller verifies it first
 * (acl_bridge.cl_program_cache). If a program fails to build, every restored program is
 * dropped again (ACL compiles from source on demand) and the status says which one failed.
 * *count receives how many programs were added. */
int32_t acl_shim_cl_program_cache_restore(const char *path, int32_t *count);

typedef struct acl_shim_tensor acl_shim_tensor;     /* owns an arm_compute::Tensor (shared) */
typedef struct acl_shim_function acl_shim_function; /* owns a configured ACL function */

/* ---- library ----------------------------------------------------------- */
int32_t acl_shim_abi_version(void);
/* Major*100+minor of the ACL headers this was compiled against (2008, 2411). */
int32_t acl_shim_compiled_acl_version(void);
/* NUL-terminated message of the last failure on this thread ("" if none). */
const char *acl_shim_last_error(void);
/* arm_compute::build_information() copied into buf (truncated, NUL-terminated);
 * *needed receives the full length + 1. */
int32_t acl_shim_build_information(char *buf, uint64_t capacity, uint64_t *needed);
int32_t acl_shim_set_num_threads(uint32_t num_threads); /* 0: ACL's default (all cores) */
/* NEScheduler's current thread count (ABI 11: without the CPU report's probes). */
int32_t acl_shim_num_threads(uint32_t *out);
int32_t acl_shim_cpu_report_get(acl_shim_cpu_report *out);
/* What ACL's answers depend on besides the question (ABI 19, acl_shim_identity.cpp), as text
 * copied into buf (truncated, NUL-terminated; *needed receives the full length + 1): the line
 * "hwcap=<hex> hwcap2=<hex> cpus=<n> models=<ACL's CPUModel per core, comma-separated>
 * fp16=<0|1> dotprod=<0|1>[ sve= sve2= bf16= i8mm= on 24.x]", then "library\t<real path>\t<size>
 * \t<mtime ns>" per loaded object whose name holds "libarm_compute" (dl_iterate_phdr) and the
 * same line tagged "shim" for the shim's own file (dladdr). Fails (INVALID_ARGUMENT) where one
 * cannot be stat'ed. */
int32_t acl_shim_identity(char *buf, uint64_t capacity, uint64_t *needed);

/* ---- tensors ----------------------------------------------------------- */
/* A tensor whose info is exactly desc (custom strides, offset, total size) and is
 * NOT resizable: ACL may not add padding to it. No memory yet. */
int32_t acl_shim_tensor_create(const acl_shim_tensor_desc *desc, acl_shim_tensor **out);
/* Import memory: base is the start of the allocation; the first element is at
 * base + offset_first_element_in_bytes. The caller keeps it alive and must call
 * this after acl_shim_function_create (ACL 20.08 silently misconfigures otherwise). */
int32_t acl_shim_tensor_import(acl_shim_tensor *tensor, void *base);
/* Read back the info ACL holds (strides, offset, total, padding). */
int32_t acl_shim_tensor_describe(const acl_shim_tensor *tensor, acl_shim_tensor_desc *out,
                                 acl_shim_padding *padding);
/* 0 once ACL has marked the tensor unused (ITensor::is_used): after a function's prepare,
 * an input ACL copied into a form of its own (reshaped weights) is never read again (ABI 10). */
int32_t acl_shim_tensor_is_used(const acl_shim_tensor *tensor, int32_t *used);
void acl_shim_tensor_destroy(acl_shim_tensor *tensor);

/* ---- functions --------------------------------------------------------- */
/* Padding negotiation: build throw-away resizable tensors with the shapes, types
 * and layouts of descs (strides/offset/total ignored; NULL entries = absent
 * optional tensor), configure the function on them and report the padding ACL
 * asked for, per tensor, in out[0..n) (zero for NULL entries). */
int32_t acl_shim_required_padding(int32_t kind, const acl_shim_params *params,
                                  const acl_shim_tensor_desc *const *descs, int32_t n,
                                  acl_shim_padding *out);
/* Probe how ACL treats these exact layouts, on scratch memory (never the caller's):
 * configures a second instance of the function on tensors with exactly these descs
 * (imported infos, as acl_shim_tensor_create makes them; buffers of total_size_in_bytes
 * plus a 256-byte guard, non-element bytes set to one value) and a third on dense tensors
 * of the same shapes, fills the elements of both with the same values, runs both once and
 * reports:
 *   writes_outside[i] = 1 when a byte of tensor i that is not an element changed
 *                       (padding, gaps of a strided view), 2 when a byte past
 *                       total_size_in_bytes changed (the guard), else 0;
 *   *same_result      = 1 when every element of every tensor equals the dense run's
 *                       (floats within 1e-3 relative, integers within 1), else 0:
 *                       0 means some kernel mis-addresses these layouts. */
int32_t acl_shim_probe(int32_t kind, const acl_shim_params *params,
                       const acl_shim_tensor_desc *const *descs, int32_t n,
                       int32_t *writes_outside, int32_t *same_result);
/* validate() then configure() on the given tensors (NULL = absent optional).
 * The function keeps the tensors alive (shared ownership). */
int32_t acl_shim_function_create(int32_t kind, const acl_shim_params *params,
                                 acl_shim_tensor *const *tensors, int32_t n,
                                 acl_shim_function **out);
/* Run once. Runs of one function are serialised here (a mutex per function, also taken by
 * acl_shim_schedule_run); different functions may run on different threads at once. */
int32_t acl_shim_function_run(acl_shim_function *function);
/* The caller must not destroy a function while a run of it is in progress, nor free the
 * memory imported into its tensors before destroying it (acl_bridge ties both to the
 * lifetime of the Python handle object). */
void acl_shim_function_destroy(acl_shim_function *function);

/* ---- layouts and schedules (ABI 4) --------------------------------------- */
/* The padding ACL's own TensorInfo::auto_padding() gives a tensor of desc's shape and type
 * (strides/offset/total ignored): a fact from ACL, not a copy of its constants. */
int32_t acl_shim_auto_padding(const acl_shim_tensor_desc *desc, acl_shim_padding *out);
/* validate() and configure() function kind on non-resizable infos exactly as descs say
 * (declared padding included), without memory: ACL_SHIM_OK when ACL accepts these layouts,
 * else its status (e.g. "Insufficient Padding!"). Nothing is kept. */
int32_t acl_shim_check_layouts(int32_t kind, const acl_shim_params *params,
                               const acl_shim_tensor_desc *const *descs, int32_t n);
/* Run functions[0..n) in order, in one call (a schedule), each under its run mutex. Stops at
 * the first failure and puts its index in *failed_index (-1 when all ran). The caller keeps
 * the functions alive. */
int32_t acl_shim_schedule_run(acl_shim_function *const *functions, int32_t n, int32_t *failed_index);
/* The same, `rounds` times, each function's run timed inside the native layer (steady clock):
 * seconds[r * n + i] for round r and function i (native/acl_shim_profile.cpp). */
int32_t acl_shim_schedule_profile(acl_shim_function *const *functions, int32_t n, int32_t rounds,
                                  double *seconds, int32_t *failed_index);

/* ---- workspaces shared by functions (ABI 10; native/acl_shim_workspace.cpp) ---- */
/* A workspace is one ACL memory manager (MemoryManagerOnDemand, one pool; NEON an
 * OffsetLifetimeManager, CL a BlobLifetimeManager) for the internal scratch tensors of the
 * functions configured with it: functions that run one after the other share its pool, so on
 * NEON their workspaces cost the largest need, not the sum (on CL between the two). States: open (functions join it) -> allocated (the pool exists; runs may start; no
 * function may join). A function of a workspace refuses to run before allocate (ACL would
 * wait forever for a pool); two of its functions run at once from two threads take turns. */
typedef struct acl_shim_workspace acl_shim_workspace;
typedef struct {
    int32_t backend;       /* ACL_SHIM_BACKEND_* */
    int32_t allocated;     /* 1 after acl_shim_workspace_allocate */
    int32_t functions;     /* configured with this workspace */
    uint64_t size_in_bytes; /* the pool's size (before allocate: what it will be so far) */
} acl_shim_workspace_report;
int32_t acl_shim_workspace_create(int32_t backend, acl_shim_workspace **out);
/* acl_shim_function_create, the function's scratch tensors managed by workspace (which must be
 * open and on the tensors' backend); NULL workspace: the function allocates its own. */
int32_t acl_shim_function_create_in(acl_shim_workspace *workspace, int32_t kind, const acl_shim_params *params,
                                    acl_shim_tensor *const *tensors, int32_t n, acl_shim_function **out);
/* Make the pool, after the last function joined and before the first run; *size_in_bytes
 * (may be NULL) receives its size. */
int32_t acl_shim_workspace_allocate(acl_shim_workspace *workspace, uint64_t *size_in_bytes);
int32_t acl_shim_workspace_report_get(const acl_shim_workspace *workspace, acl_shim_workspace_report *out);
/* Drops the handle; functions configured with the workspace keep its pool alive. */
void acl_shim_workspace_destroy(acl_shim_workspace *workspace);

/* ---- configured plans (ABI 11; native/acl_shim_plan.cpp) -----------------
 * Many functions configured in one call, each exactly as acl_shim_tensor_create,
 * acl_shim_function_create_in and acl_shim_tensor_import would make it: what a second start of
 * a model does with the native descriptions it kept (acl_bridge.configure_batch). */
typedef struct acl_shim_planned_function {
    int32_t kind;                               /* ACL_SHIM_FN_* */
    const acl_shim_params *params;
    int32_t backend;                            /* ACL_SHIM_BACKEND_*: every desc must say the same */
    int32_t num_tensors;                        /* 1..ACL_SHIM_MAX_FUNCTION_TENSORS, the kind's tensor order */
    const acl_shim_tensor_desc *descs;          /* per tensor (ignored where bases[i] is NULL) */
    void *const *bases;                         /* per tensor: the memory imported after configure; NULL: absent */
    const uint64_t *available_in_bytes;         /* per tensor: bytes from base that are the caller's to give */
    const uint32_t *element_sizes_in_bytes;     /* per tensor: the size of the memory's elements */
} acl_shim_planned_function;

/* For each function in order: a tensor per desc, validate() and configure() (joining workspace,
 * which may be NULL), then the import of every base. A desc is refused before ACL sees it
 * where it addresses a byte at or past available_in_bytes (its total size, or its last
 * element), where its element size or x stride is not element_sizes_in_bytes, or where its
 * backend is not the function's.
 * out_functions[0..n) receives the functions; out_tensors, the tensors of all functions one
 * after the other (sum of num_tensors entries, NULL where absent). All or nothing: on a
 * failure everything made is destroyed, the outputs are left NULL, *failed_index is the
 * function that failed (else -1) and the message names it. seconds (NULL: not asked) receives
 * each function's seconds (steady clock: its tensors, validate(), configure() and imports). */
int32_t acl_shim_plan_create(acl_shim_workspace *workspace, const acl_shim_planned_function *functions, int32_t n,
                             acl_shim_function **out_functions, acl_shim_tensor **out_tensors,
                             double *seconds, int32_t *failed_index);

/* ACL_SHIM_CDEF_END */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ACL_SHIM_H */
