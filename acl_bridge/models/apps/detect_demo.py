"""The main job: MediaPipe's BlazeFace (a published TFLite model) end to end on padded
NdArrays and ACL, checked against TFLite's interpreter and Arm NN in one run.

``python -m acl_bridge.models.apps.detect_demo [--model NAME] [--image PATH] [--out OUT.png]``:

1. loads the model onto ACL functions (negotiated padding, one allocation per buffer);
2. detects the face on scikit-image's astronaut photograph (or ``--image``);
3. prints bytes copied per inference, the largest difference from TFLite's interpreter
   (where it installs; else from the plan run by numpy), Arm NN's TfLite parser on CpuAcc
   (its difference, or its exact refusal), and the time per inference of the bridge, Arm NN
   and TFLite in interleaved rounds of this run (medians, and paired ratios to the bridge);
4. runs MediaPipe's face mesh (``face_landmark.tflite``) on ACL on the first face's region
   (acl_bridge.models.apps.face_mesh), against the interpreter on the same crop, and says how far
   its nose tip lies from BlazeFace's nose keypoint (``--no-landmarks`` skips it);
5. writes the photograph with the box (and the 468 points) as PNG;
6. one int8 step: MLPerf Tiny's Visual Wake Words (an int8 MobileNetV1, float32 in and out)
   on ACL on the same photograph, beside TFLite's answer (or the plan run by numpy where the
   interpreter does not install), with its bytes copied (``--no-int8`` skips it).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable, Dict, Optional, Sequence

import numpy as np

from ..profiling.paired_timing import interleaved


def _max_diff(a: Dict[str, np.ndarray], b: Dict[str, np.ndarray]) -> float:
    return max(float(np.abs(np.asarray(a[k]).reshape(b[k].shape) - b[k]).max()) for k in b)


def _tflite_interpreter(path, reference: bool = False):
    """TFLite's interpreter (1 thread) as x -> outputs, or None and why not."""
    from ..oracles.tflite_oracle import InterpreterUnavailable, runner

    try:
        return runner(path, num_threads=1, reference=reference)
    except InterpreterUnavailable as e:
        return None, f"not available ({e})"
    except ImportError as e:
        return None, (f"not available ({e}; ai-edge-litert has aarch64 wheels for CPython 3.11 (1.4.0) and "
                      f"3.13 (2.3.0), this is {sys.version_info[0]}.{sys.version_info[1]})")


def _face_mesh(detection, img, say) -> Optional[np.ndarray]:
    """Step 4: the face mesh on ACL for one detection (picture pixels); its points, or None
    when it copied beyond its input or found no face."""
    from . import face_mesh, fetch
    from ..runtime.tflite_runner import TfliteRunner

    path = fetch.model_path("face_landmark")
    t0 = time.perf_counter()
    runner = TfliteRunner(path)
    roi = face_mesh.roi_from_detection(detection)
    x = face_mesh.model_input(img, roi)
    ours = {k: v.copy() for k, v in runner.run(x).items()}
    c = runner.copied_bytes_per_inference
    say(f"face mesh {path.name}: {len(runner.functions)} ACL functions, loaded in {time.perf_counter() - t0:.1f} s; "
        f"bytes copied per inference: {c['total']} (input {c['input']}, staged {c['staged']}, "
        f"copy steps {c['copy_steps']})")
    interp, why = _tflite_interpreter(path)
    if interp is not None:
        say(f"  max difference from the {why} on the same crop: {_max_diff(ours, interp(x)):.3g}")
    else:
        say(f"  TFLite interpreter: {why}")
    mesh = face_mesh.from_outputs(ours, roi)
    nose = face_mesh.nose_offset_px(mesh, detection)
    say(f"  {len(mesh.points)} points, face flag {mesh.face_score:.3f}; the mesh's nose tip is {nose:.1f} px from "
        f"BlazeFace's nose keypoint (box {detection.box[2] - detection.box[0]:.1f} px wide)")
    runner.close()
    return mesh.points if mesh.is_face and c["staged"] == 0 and c["copy_steps"] == 0 else None


def _int8_step(img, say) -> bool:
    """Step 6: Visual Wake Words (int8 inside) on ACL against the reference; True when the
    classes agree, the scores are within 2 output steps (1/256) and nothing but the input was
    copied."""
    from . import classify, fetch
    from ..planning.numpy_executor import run_plan
    from ..format.tflite_reader import UnsupportedModelError
    from ..runtime.tflite_runner import TfliteRunner

    name = "visual_wake_words"
    path = fetch.model_path(name)
    t0 = time.perf_counter()
    try:
        runner = TfliteRunner(path)
    except UnsupportedModelError as e:  # ACL 20.08: per-channel int8 depthwise
        say(f"int8 {path.name}: not on this ACL: {e}")
        return True
    loaded_s = time.perf_counter() - t0
    cls = classify.CLASSIFIERS[name]
    ours = classify.classify(img, runner.run, runner.plan, cls)
    c = runner.copied_bytes_per_inference
    interp, why = _tflite_interpreter(path, reference=True)
    unavailable = None
    if interp is None:
        unavailable = why
        why = "plan run by numpy (TFLite's integer arithmetic; matches the interpreter on the host)"

        def interp(x):
            return run_plan(runner.plan, x)
    ref = classify.classify(img, interp, runner.plan, cls)
    say(f"int8 {path.name}: {len(runner.functions)} ACL functions, loaded in {loaded_s:.1f} s; bytes copied per "
        f"inference: {c['total']} (input {c['input']}, staged {c['staged']}, copy steps {c['copy_steps']})")
    if unavailable:
        say(f"  TFLite interpreter: {unavailable}")
    say("  bridge (ACL): " + ", ".join(f"{s.label} {s.score:.3f}" for s in ours))
    say(f"  {why}: " + ", ".join(f"{s.label} {s.score:.3f}" for s in ref))
    runner.close()
    close = {s.label: s.score for s in ours}
    return (ours[0].label == ref[0].label and all(abs(close[s.label] - s.score) <= 2 / 256 + 1e-6 for s in ref)
            and c["staged"] == 0 and c["copy_steps"] == 0)


def main(argv: Optional[Sequence[str]] = None) -> int:
    from ... import armnn, native
    from . import blazeface, fetch, images
    from ..planning.numpy_executor import run_plan
    from ..runtime.tflite_runner import TfliteRunner

    ap = argparse.ArgumentParser(prog="python -m acl_bridge.models.apps.detect_demo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="face_detection_front", choices=sorted(blazeface.MODELS))
    ap.add_argument("--image", help="picture (default: scikit-image's astronaut, from the fetch cache)")
    ap.add_argument("--out", default="detect-astronaut.png", help="PNG with the box drawn (default: %(default)s)")
    ap.add_argument("--repeats", type=int, default=5,
                    help="interleaved rounds, each runtime once per round (median and paired ratio)")
    ap.add_argument("--threads", type=int, default=1, help="ACL threads (default 1, as the interpreter)")
    ap.add_argument("--no-landmarks", action="store_true", help="skip the face mesh (step 4)")
    ap.add_argument("--no-int8", action="store_true", help="skip the int8 classifier (step 6)")
    args = ap.parse_args(argv)
    say = print
    native.set_num_threads(args.threads)
    path = fetch.model_path(args.model)
    options = blazeface.MODELS[args.model]
    t0 = time.perf_counter()
    runner = TfliteRunner(path)
    say(f"model {path.name} (md5 {runner.plan.model.md5[:16]}), ACL {native.acl_version()}: "
        f"loaded in {time.perf_counter() - t0:.1f} s")
    say(f"  {runner.summary()}")
    img = images.load_rgb(args.image or fetch.photo_path())
    x, box = images.model_input(img, options.anchors.input_size)
    ours = {k: v.copy() for k, v in runner.run(x).items()}
    c = runner.copied_bytes_per_inference
    say(f"bytes copied per inference: {c['total']} (input {c['input']}, staged by the bridge {c['staged']}, "
        f"copy steps {c['copy_steps']})")
    contenders: Dict[str, Callable[[], object]] = {"bridge (ACL)": lambda: runner.run(x)}

    interp, why = _tflite_interpreter(path)
    if interp is not None:
        ref = interp(x)
        say(f"max difference from the {why}: {_max_diff(ours, ref):.3g}")
        contenders["TFLite"] = lambda: interp(x)
    else:
        ref = run_plan(runner.plan, x)
        say(f"TFLite interpreter: {why}")
        say(f"max difference from the plan run by numpy (float64; matches TFLite on the host): {_max_diff(ours, ref):.3g}")
    ok, armnn_why = armnn.armnn_available()
    if ok:
        from ..oracles.armnn_tflite import ArmnnTfliteModel

        try:
            model = ArmnnTfliteModel(path)
            got = model.run(x)
            say(f"Arm NN {armnn.release()} TfLite parser on CpuAcc: max difference {_max_diff(got, ours):.3g} from the bridge")
            contenders["Arm NN"] = lambda: model.run(x)
        except armnn.ArmnnError as e:
            say(f"Arm NN {armnn.release()}: {e}")
    else:
        say(f"Arm NN: {armnn_why}")
    # the runtimes take turns in each round (benchmarks' way: paired ratios, not medians
    # taken one after the other)
    times = interleaved(contenders, args.repeats, "bridge (ACL)")
    say(f"{times.text()} ({args.threads} ACL thread(s))")

    found = blazeface.detect(*blazeface.split_outputs(ours), options)
    want = blazeface.detect(*blazeface.split_outputs(ref), options)
    px = [d.scaled(img.size[0], img.size[1], box.as_tuple()) for d in found]
    for d in px:
        say(f"face: score {d.score:.3f}, box [{', '.join(f'{v:.1f}' for v in d.box)}] (pixels)")
    if found and want:
        say(f"IoU with the reference's box: {blazeface.iou(found[0].box, want[0].box):.4f}")
    runner.close()
    points = _face_mesh(px[0], img, say) if px and not args.no_landmarks else None
    mesh_ok = args.no_landmarks or points is not None
    images.draw_boxes(img, [d.box for d in px], args.out, [f"{d.score:.2f}" for d in px],
                      [] if points is None else [points])
    say(f"wrote {args.out}")
    int8_ok = args.no_int8 or _int8_step(img, say)
    return 0 if found and c["staged"] == 0 and c["copy_steps"] == 0 and mesh_ok and int8_ok else 1


if __name__ == "__main__":
    sys.exit(main())
