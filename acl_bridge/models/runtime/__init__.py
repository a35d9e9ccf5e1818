"""The plan on ACL (NEON or OpenCL): negotiation, buffers and arena, the caches of a load, one
Schedule per run of ACL steps with the CPU fallback between them (:mod:`.tflite_runner`,
:mod:`.segments`)."""
