// acl_shim_detection.cpp -- the detection post-process room (SSD models' TFLite_Detection_PostProcess):
//   detection_post_process (box encodings, class scores, anchors: float32, or uint8 QASYMM8 or
//     int8 QASYMM8_SIGNED, which ACL dequantizes as (q - offset) x scale; boxes, classes, scores,
//     num_detections): NEDetectionPostProcessLayer (ACL 20.08 and 24.11 alike) with a
//     DetectionPostProcessLayerInfo of params.max_detections, max_classes_per_detection,
//     nms_score_threshold, nms_iou_threshold, num_classes, box_scales (y, x, h, w),
//     use_regular_nms, detections_per_class. Its fast NMS is refused with more than one class
//     per detection (CPPDetectionPostProcessLayer then runs its NMS over a score per box and
//     class against one box each: reads past its decoded boxes). ACL has no CL function: a CL
//     call answers ACL_SHIM_ERR_UNSUPPORTED, so the runner's partition falls back.
// A new kind: its ACL_SHIM_FN_* constant in acl_shim.h, its row below.
#include "acl_shim_families.h"

#if ACL_SHIM_WITH_NEON
#include "arm_compute/runtime/NEON/functions/NEDetectionPostProcessLayer.h"
#endif

#include <array>

namespace acl_shim_detail {

namespace {

// The room uses no ACL types but its own function's (NEON only): the shared tags.
using Neon = NeonTag;
using Cl = ClTag;

acl::DetectionPostProcessLayerInfo detection_info(const acl_shim_params &p) {
    require(p.max_detections >= 1 && p.max_classes_per_detection >= 1 && p.num_classes >= 1 &&
                p.detections_per_class >= 1,
            "detection_post_process: max_detections, max_classes_per_detection, num_classes and "
            "detections_per_class must be >= 1");
    require(p.use_regular_nms != 0 || p.max_classes_per_detection == 1,
            "detection_post_process: the fast NMS takes max_classes_per_detection 1 on ACL, got " +
                std::to_string(p.max_classes_per_detection));
    const std::array<float, 4> scales{p.box_scales[0], p.box_scales[1], p.box_scales[2], p.box_scales[3]};
    return acl::DetectionPostProcessLayerInfo(p.max_detections, p.max_classes_per_detection, p.nms_score_threshold,
                                              p.nms_iou_threshold, p.num_classes, scales, p.use_regular_nms != 0,
                                              p.detections_per_class);
}

template <typename E>
std::unique_ptr<acl::IFunction> detection_post_process(const acl_shim_params &p,
                                                       const std::vector<typename E::ITensor *> &t,
                                                       const std::shared_ptr<acl::IMemoryManager> &mm);

#if ACL_SHIM_WITH_NEON
template <>
std::unique_ptr<acl::IFunction> detection_post_process<Neon>(const acl_shim_params &p,
                                                             const std::vector<acl::ITensor *> &t,
                                                             const std::shared_ptr<acl::IMemoryManager> &mm) {
    need(t, 7, {0, 1, 2, 3, 4, 5, 6}, "detection_post_process");
    const auto info = detection_info(p);
    check_status(acl::NEDetectionPostProcessLayer::validate(t[0]->info(), t[1]->info(), t[2]->info(), t[3]->info(),
                                                            t[4]->info(), t[5]->info(), t[6]->info(), info),
                 name<Neon>("DetectionPostProcessLayer").c_str());
    auto f = make<acl::NEDetectionPostProcessLayer>(mm);
    f->configure(t[0], t[1], t[2], t[3], t[4], t[5], t[6], info);
    return f;
}
#endif

#if ACL_SHIM_WITH_CL
template <>
std::unique_ptr<acl::IFunction> detection_post_process<Cl>(const acl_shim_params &, const std::vector<acl::ICLTensor *> &,
                                                           const std::shared_ptr<acl::IMemoryManager> &) {
    fail(ACL_SHIM_ERR_UNSUPPORTED, "ACL has no CL detection post-process function (NEDetectionPostProcessLayer "
                                   "runs on NEON only, in 20.08 and 24.11 alike)");
}
#endif

template <typename E>
std::unique_ptr<acl::IFunction> build(int32_t kind, const acl_shim_params &p, const std::vector<typename E::ITensor *> &t,
                                      const std::shared_ptr<acl::IMemoryManager> &mm) {
    switch (kind) {
        case ACL_SHIM_FN_DETECTION_POST_PROCESS: return detection_post_process<E>(p, t, mm);
        default: return nullptr;
    }
}

}  // namespace

ACL_SHIM_FAMILY_DEFINITIONS(build_detection)

}  // namespace acl_shim_detail
