"""``acl-ndarray detect``, ``classify``, ``run-tflite``, ``inspect`` and ``fetch``.

``acl_bridge/cli.py`` calls :func:`register` with its subparsers; each subcommand sets
``handler(args, out, err) -> exit code``. Errors are this library's exceptions, raised, never
printed here: ``acl_bridge.cli.exit_code_for`` turns them into exit codes and one line.
"""

from __future__ import annotations

import json
from typing import Dict, Tuple

import numpy as np

from ndarray.errors import UnsupportedOptionError

from ..fallback.tflite_segments import ENGINES, describe
from ..format.files import check_out
from .input_files import load_inputs

PROG = "acl-ndarray"
BACKENDS = ("auto", "acl", "cl", "numpy")
BACKEND_HELP = ("auto (default: acl where the native ACL module loads, else numpy; the choice is said on stderr), "
                "acl (the bridge's ACL functions on NEON), cl (ACL's OpenCL functions; ACL_NDARRAY_CL_LAYER=1 for "
                "software devices) or numpy (the same plan on any machine)")


def register(subparsers) -> None:
    d = subparsers.add_parser(
        "detect", help="find faces in a picture with MediaPipe's BlazeFace on ACL",
        description="Detect faces with a BlazeFace TFLite model run on the bridge's ACL functions. Models come "
                    "from the cache filled by `acl-ndarray fetch`. Prints one line per face, or 'no face found'.")
    d.add_argument("image", metavar="IMAGE", help="picture to search (any format Pillow reads)")
    d.add_argument("--out", metavar="OUT.png", help="write the picture with the boxes drawn")
    d.add_argument("--json", action="store_true", help="print the detections as JSON: [{score, box}] (box: "
                   "[xmin, ymin, xmax, ymax] in pixels of IMAGE), highest score first; [] when no face is found")
    d.add_argument("--model", default=None, help="face_detection_front (the default without --model-file), "
                   "face_detection_back or face_detection_full_range (anchors per the model's published options); "
                   "with --model-file, read from the file's input size unless given")
    d.add_argument("--model-file", metavar="PATH", help="the .tflite file (default: the cached --model)")
    d.add_argument("--plain-nms", action="store_true", help="plain NMS instead of MediaPipe's weighted NMS")
    d.add_argument("--landmarks", action="store_true", help="also run MediaPipe's face mesh (face_landmark.tflite) "
                   "on every face: 468 points per face, drawn with --out, listed with --json")
    d.add_argument("--backend", choices=BACKENDS, default="auto", help=BACKEND_HELP)
    d.set_defaults(handler=cmd_detect)

    from .classify import CLASSIFIERS

    c = subparsers.add_parser(
        "classify", help="classify a picture with a published TFLite classifier (float or int8) on ACL",
        description="Classify IMAGE with a TFLite image classifier run on the bridge's ACL functions: the picture "
                    "is resized to the model's input, scaled and (int8 inputs) quantized as the model was trained; "
                    "prints every class with its score, best first. Models come from the cache filled by "
                    "`acl-ndarray fetch`.")
    c.add_argument("image", metavar="IMAGE", help="picture to classify (any format Pillow reads)")
    c.add_argument("--model", default="visual_wake_words", choices=sorted(CLASSIFIERS),
                   help="the classifier (default visual_wake_words: person / non_person)")
    c.add_argument("--model-file", metavar="PATH", help="the .tflite file (default: the cached --model); --model "
                   "still names its classes and pixel scaling")
    c.add_argument("--json", action="store_true", help="print [{label, score}] as JSON, best first")
    c.add_argument("--backend", choices=BACKENDS, default="auto", help=BACKEND_HELP)
    c.set_defaults(handler=cmd_classify)

    r = subparsers.add_parser(
        "run-tflite", help="run a TFLite model on ACL on an input saved with numpy",
        description="Run MODEL on INPUT (a numpy .npy file, or a .npz holding one array or one named as the "
                    "model's input) with the bridge's ACL functions and write every output under its tensor name "
                    "in the model to OUT.npz. The input must have the model's dtype and shape: nothing is cast.")
    r.add_argument("model", metavar="MODEL", help=".tflite file")
    r.add_argument("input", metavar="INPUT", help="the model's input (.npy or .npz)")
    r.add_argument("--out", metavar="OUT.npz", required=True, help="where to write the outputs")
    r.add_argument("--json", action="store_true", help="print what was written as JSON: {out, outputs: {name: "
                   "{shape, dtype}}}")
    r.add_argument("--backend", choices=BACKENDS, default="auto", help=BACKEND_HELP)
    r.add_argument("--no-fallback", action="store_true", help="refuse a model with an operator the lowering or ACL "
                   "does not take, naming it, instead of running that operator on the CPU fallback (numpy) between "
                   "ACL segments (the default says on stderr how many operators run there and why)")
    r.add_argument("--fallback-engine", choices=ENGINES, default="auto", help="what runs each fallback segment: "
                   "numpy kernels, TFLite's interpreter (ai-edge-litert, where installed) on the segment cut from "
                   "the file (int8 on its reference-exact kernels), tflite-default: the same with XNNPACK on int8 too "
                   "(faster, not bit for bit), or auto: the interpreter for segments with a compute-heavy operator "
                   "(default)")
    r.add_argument("--memory", action="store_true", help="after the run, report the model's memory: activations "
                   "(the arena, its lower bound, one buffer each), inputs/outputs, constants, resident memory "
                   "(ACL backends only)")
    r.add_argument("--profile", action="store_true", help="after the run, report where the start-up time went: "
                   "each loading phase (read, lower, negotiation, allocate, configure, renegotiation, schedule) with "
                   "its native calls (negotiate, check_layouts, probe, configure, import: seconds, calls made, "
                   "answers reused), the costliest steps, and the first run; then where an inference's time goes, "
                   "ACL function by function (median of 5 runs, timed inside the native schedule; ACL backends only)")
    r.add_argument("--armnn-profile", action="store_true", help="with --profile on --backend acl: also load MODEL "
                   "with Arm NN's TfLite parser on CpuAcc (pyarmnn), profile 5 of its inferences on the same input "
                   "with its own IProfiler, and set its layers beside the bridge's functions, TFLite operator by "
                   "operator, with the ACL kernels Arm NN ran")
    r.set_defaults(handler=cmd_run_tflite)

    n = subparsers.add_parser(
        "inspect", help="a TFLite model's inputs, outputs and operators, and where each operator would run",
        description="Print MODEL's inputs and outputs (name, shape, dtype, quantization) and every operator with "
                    "where the runner would run it: on ACL (the lowering's functions) or on the CPU fallback, with "
                    "the reason, as decided from the file alone; and whether ACL is present here. Nothing runs.")
    n.add_argument("model", metavar="MODEL", help=".tflite file")
    n.add_argument("--json", action="store_true", help="print {model, inputs, outputs, operators, summary, acl} "
                   "as JSON")
    n.set_defaults(handler=cmd_inspect)

    from . import fetch

    f = subparsers.add_parser("fetch", help="download the published models and the test photograph (hash-pinned)",
                              description=fetch.__doc__.split("\n\n")[0])
    fetch.add_arguments(f)
    f.add_argument("--json", action="store_true", help="print where everything is as JSON")
    f.set_defaults(handler=cmd_fetch)


# ---------------------------------------------------------------------------- backends
def choose_backend(name: str, err) -> str:
    """THE backend choice of the model commands: ``auto`` becomes ``acl`` where the native
    ACL module loads and ``numpy`` elsewhere (said on ``err``, with the reason); any other
    name is returned as given, for :func:`make_executor`."""
    if name != "auto":
        return name
    from acl_bridge import native_available

    ok, why = native_available()
    if ok:
        print(f"{PROG}: backend auto: acl ({why})", file=err)
        return "acl"
    print(f"{PROG}: backend auto: numpy (the native ACL module is not available here; `{PROG} info` says why)",
          file=err)
    return "numpy"


def make_executor(model_file, backend: str, fallback: bool = True, fallback_engine: str = "auto"):
    """A callable x -> outputs by name, for ``backend`` (``acl``, ``cl`` or ``numpy``), and the
    plan; ``fallback``: operators the lowering or ACL does not take run on the CPU fallback,
    each segment on ``fallback_engine`` (:mod:`..fallback.tflite_segments`)."""
    if backend not in ("acl", "cl", "numpy"):
        raise UnsupportedOptionError(f"backend is {backend!r}, expected one of {list(BACKENDS)}")
    from ..runtime.tflite_runner import TfliteRunner

    runner = TfliteRunner(model_file, backend="neon" if backend == "acl" else backend, fallback=fallback,
                          fallback_engine=fallback_engine)
    return runner.run, runner.plan


def fallback_report(plan) -> Dict[str, object]:
    """How many operators run on the CPU fallback, in how many segments, and why, per operator."""
    sides = [side for side, _ in plan.segments()]
    return {"operators": len(plan.fallbacks), "acl_segments": sides.count("acl"),
            "fallback_segments": sides.count("fallback"),
            "by_operator": [{"operator": f.op_index, "opcode": f.opcode, "kind": f.kind, "reason": f.reason}
                            for f in plan.fallbacks]}


def model_input_spec(plan) -> Tuple[str, Tuple[int, ...], np.dtype]:
    """(name, shape, dtype) of the model's (first) input tensor."""
    t = plan.model.tensors[plan.model.inputs[0]]
    return t.name, tuple(t.shape), np.dtype(t.dtype)


# ---------------------------------------------------------------------------- detect
def _detector_options(model, model_file, plan):
    """BlazeFace's options for ``model``, or (``model`` None) the one whose input size is
    the file's; a named model must have the file's input size."""
    from . import blazeface

    _, shape, _ = model_input_spec(plan)
    side = tuple(shape[1:3])
    if model is None:
        known = {o.anchors.input_size: name for name, o in blazeface.MODELS.items()}
        if side not in known:
            raise UnsupportedOptionError(
                f"{model_file}'s input is {list(shape)}; detect knows BlazeFace models with inputs "
                + ", ".join(f"{h}x{w} ({n})" for (h, w), n in sorted(known.items())) + ": give --model")
        return blazeface.MODELS[known[side]]
    options = blazeface.MODELS[model]
    if side != tuple(options.anchors.input_size):
        raise UnsupportedOptionError(
            f"{model_file}'s input is {list(shape)}, --model {model} expects "
            f"{options.anchors.input_size[0]}x{options.anchors.input_size[1]}")
    return options


def detect_faces(image_path, model=None, model_file=None, backend: str = "acl", weighted: bool = True):
    """(image, detections in pixels of the image, highest score first). ``model`` None:
    face_detection_front, or with ``model_file`` the model of the file's input size."""
    from . import blazeface, fetch, images

    if model is not None and model not in blazeface.MODELS:
        raise UnsupportedOptionError(f"model is {model!r}, expected one of {sorted(blazeface.MODELS)}")
    if model_file is None:
        model = model or "face_detection_front"
        model_file = fetch.model_path(model)
    img = images.load_rgb(image_path)  # a picture that cannot be read fails before the model loads
    run, plan = make_executor(model_file, backend)
    options = _detector_options(model, model_file, plan)
    blazeface.check_outputs({plan.model.tensors[i].name: plan.model.tensors[i].shape for i in plan.model.outputs},
                            options, str(model_file))
    x, box = images.model_input(img, options.anchors.input_size)
    outputs = run(x)
    found = blazeface.detect(*blazeface.split_outputs(outputs), options, weighted=weighted)
    return img, [d.scaled(img.size[0], img.size[1], box.as_tuple()) for d in found]


def face_meshes(image, found, backend: str = "acl"):
    """MediaPipe's face mesh for each detection (picture pixels), on ``backend``."""
    from . import face_mesh, fetch

    if not found:
        return []
    run, _ = make_executor(fetch.model_path("face_landmark"), backend)
    return [face_mesh.face_mesh(run, image, d) for d in found]


def cmd_detect(args, out, err) -> int:
    from . import images

    if args.out is not None:
        check_out(args.out, images.writable_suffixes())
    backend = choose_backend(args.backend, err)
    img, found = detect_faces(args.image, args.model, args.model_file, backend, not args.plain_nms)
    meshes = face_meshes(img, found, backend) if args.landmarks else []
    if args.out:
        images.draw_boxes(img, [d.box for d in found], args.out, [f"{d.score:.2f}" for d in found],
                          [m.points for m in meshes])
    if args.json:
        rows = [{"score": round(d.score, 6), "box": [round(v, 2) for v in d.box]} for d in found]
        for row, m in zip(rows, meshes):
            row.update(face_score=round(m.face_score, 6), landmarks=np.round(m.points, 2).tolist())
        print(json.dumps(rows), file=out)
        if not found:
            print(f"{PROG} detect: no face found in {args.image}", file=err)
    else:
        if not found:
            print(f"no face found in {args.image}", file=out)
        for k, d in enumerate(found):
            print(f"face {d.score:.3f} at [{', '.join(f'{v:.1f}' for v in d.box)}]", file=out)
            if k < len(meshes):
                print(f"  face mesh: {len(meshes[k].points)} points, face flag {meshes[k].face_score:.3f}", file=out)
        if args.out:
            print(f"wrote {args.out}", file=out)
    return 0


# ---------------------------------------------------------------------------- classify
def classify_picture(image_path, model: str = "visual_wake_words", model_file=None, backend: str = "acl"):
    """Scores (label, score) for the picture, best first."""
    from . import classify, fetch, images

    classifier = classify.classifier_named(model)
    img = images.load_rgb(image_path)  # a picture that cannot be read fails before the model loads
    run, plan = make_executor(model_file or fetch.model_path(model), backend)
    return classify.classify(img, run, plan, classifier)


def cmd_classify(args, out, err) -> int:
    backend = choose_backend(args.backend, err)
    found = classify_picture(args.image, args.model, args.model_file, backend)
    if args.json:
        print(json.dumps([{"label": s.label, "score": round(s.score, 6)} for s in found]), file=out)
    else:
        for s in found:
            print(f"{s.label} {s.score:.3f}", file=out)
    return 0


# ---------------------------------------------------------------------------- run-tflite
def cmd_run_tflite(args, out, err) -> int:
    backend = choose_backend(args.backend, err)
    if args.memory and backend == "numpy":
        raise UnsupportedOptionError("--memory reports what a model holds on ACL: it needs --backend acl or cl, "
                                     "not numpy")
    if getattr(args, "profile", False) and backend == "numpy":
        raise UnsupportedOptionError("--profile reports how a model is configured on ACL: it needs --backend acl or "
                                     "cl, not numpy")
    armnn_wanted = getattr(args, "armnn_profile", False)
    if armnn_wanted and not (getattr(args, "profile", False) and backend == "acl"):
        raise UnsupportedOptionError("--armnn-profile sets Arm NN's CpuAcc profile beside the bridge's: it needs "
                                     f"--profile and --backend acl, not {'--backend ' + backend if getattr(args, 'profile', False) else 'no --profile'}")
    check_out(args.out, (".npz",))
    run, plan = make_executor(args.model, backend, fallback=not getattr(args, "no_fallback", False),
                              fallback_engine=getattr(args, "fallback_engine", "auto"))
    fallback = fallback_report(plan) if plan.fallbacks else None
    engines = run.__self__.schedule.fallback_engines if fallback is not None else []  # run is TfliteRunner.run here
    if fallback is not None:
        fallback["engines"] = [{"operators": list(e.operators), "engine": e.engine, "reason": e.reason} for e in engines]
    if fallback is not None and backend == "cl":  # the maps that hand tensors between CL and the CPU
        fallback["cl_maps_per_inference"] = run.__self__.cl_maps_per_inference  # run is TfliteRunner.run here
    if fallback is not None:
        kinds: Dict[str, int] = {}
        for f in plan.fallbacks:
            kinds[f.kind] = kinds.get(f.kind, 0) + 1
        print(f"{PROG}: {fallback['operators']} of {len(plan.model.operators)} operators run on the CPU fallback "
              f"({', '.join(f'{n} {k}' for k, n in kinds.items())}; {fallback['acl_segments']} ACL segment(s)): "
              + ", ".join(f"#{f.op_index} {f.opcode}" for f in plan.fallbacks)
              + ("; CL buffers mapped per inference: {total} ({fallback_boundaries} at fallback boundaries)".format(
                  **fallback["cl_maps_per_inference"]) if "cl_maps_per_inference" in fallback else "")
              + describe(engines), file=err)
    inputs = [plan.model.tensors[i] for i in plan.model.inputs]
    given = load_inputs(args.input, [(t.name, tuple(t.shape), np.dtype(t.dtype)) for t in inputs])
    x = given[inputs[0].name] if len(inputs) == 1 else given
    outputs: Dict[str, np.ndarray] = {k: np.array(v) for k, v in run(x).items()}
    try:
        with open(args.out, "wb") as f:  # the file named, exactly (np.savez would append .npz to another name)
            np.savez(f, **outputs)
    except OSError as e:  # a write error (a full disk) names no file by itself
        raise OSError(e.errno, e.strerror, args.out) from None
    memory = run.__self__.memory_report() if args.memory else None  # run is TfliteRunner.run here
    profile = run.__self__.configure_profile() if getattr(args, "profile", False) else None
    operators = run.__self__.profile() if profile is not None else None
    # a partitioned plan: each segment's time (ACL functions in one native call, or fallback operators)
    segments = run.__self__.segment_profile() if profile is not None and plan.fallbacks else None
    versus = armnn_beside(args.model, x, operators, plan) if armnn_wanted and operators is not None else None
    if args.json:
        report = {"out": str(args.out), "outputs": {k: {"shape": list(v.shape), "dtype": v.dtype.name}
                                                    for k, v in outputs.items()}}
        if fallback is not None:
            report["fallback"] = fallback
        if memory is not None:
            report["memory"] = memory
        if profile is not None and operators is not None:
            report["configure_profile"] = profile.as_dict()
            report["operator_profile"] = operators.as_dict()
            if segments is not None:
                report["segment_profile"] = [{"segment": t.index, "side": t.side, "seconds": t.seconds,
                                              "operators": [list(o) for o in t.operators]} for t in segments]
        if versus is not None:
            report["armnn_profile"] = versus.as_dict()
        print(json.dumps(report), file=out)
    else:
        print(f"wrote {args.out}: " + ", ".join(f"{k} {list(v.shape)}" for k, v in outputs.items()), file=out)
        if memory is not None:
            print(memory_text(memory), file=out)
        if profile is not None and operators is not None:
            print(profile.text(), file=out)
            print(operators.text(), file=out)
            if segments is not None:
                print("time per segment (mean of 5 inferences):\n" + "\n".join(t.describe() for t in segments),
                      file=out)
        if versus is not None:
            print(versus.text(), file=out)
    return 0


def armnn_beside(model, x: np.ndarray, operators, plan):
    """Arm NN's IProfiler profile of the same file on CpuAcc (5 inferences on ``x``, after
    one), matched to the bridge's ``operators`` operator by operator (:mod:`.armnn_profile`)."""
    from ..profiling.armnn_profile import compare_profiles, fused_producers
    from ..oracles.armnn_tflite import ArmnnTfliteModel

    reference = ArmnnTfliteModel(model)
    theirs = reference.profile(x, rounds=operators.rounds)
    ops = {op.index: (op.inputs, op.outputs) for op in plan.model.operators}
    # an activation fused into its producer goes with the producer, a folded PAD with its ADD
    fused_into = {**fused_producers(plan.fused, ops), **dict(plan.folded_pads)}
    return compare_profiles(operators, theirs, fused_into)


def memory_text(m: Dict[str, object]) -> str:
    """TfliteRunner.memory_report() for people, in MiB."""
    def mib(key: str) -> str:
        v = m[key]
        return "unknown" if v is None else f"{int(v) / 2**20:.2f} MiB"

    kinds = m.get("constants_marked_unused_by_kind") or {}
    return (f"activations: {mib('activations_bytes')} ({'arena' if m['arena'] else 'one buffer each'}; lower bound "
            f"{mib('activations_lower_bound_bytes')}, one buffer each {mib('activations_one_buffer_each_bytes')})\n"
            f"graph inputs and outputs: {mib('inputs_outputs_bytes')}\n"
            f"ACL workspaces: {mib('workspaces_bytes')} ({'one pool shared by' if m['workspaces_shared'] else 'a pool each for'} "
            f"{m['functions_in_workspaces']} functions)\n"
            f"constants: {mib('constants_in_file_bytes')} in the file, {mib('constants_given_to_acl_bytes')} given to "
            f"ACL ({mib('constants_shared_bytes')} of the model's own memory in place, {mib('constants_copied_bytes')} "
            f"copied with padding), {mib('constants_marked_unused_bytes')} of them marked unused by ACL after it prepared its own "
            f"copies ({', '.join(sorted(kinds)) or 'no kind'}; kept)\n"  # type: ignore[call-overload]
            f"resident memory of the process after the run: {mib('resident_bytes')}")


# ---------------------------------------------------------------------------- inspect
def cmd_inspect(args, out, err) -> int:
    from .inspect_model import inspect_model, inspect_text

    facts = inspect_model(args.model)
    print(json.dumps(facts) if args.json else inspect_text(facts), file=out)
    return 0


# ---------------------------------------------------------------------------- fetch
def cmd_fetch(args, out, err) -> int:
    from . import fetch

    return fetch.execute(args, out, err)
