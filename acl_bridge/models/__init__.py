"""TFLite models on ACL, in rooms by job (docs/architecture.md has the table). Lower rooms
never import higher ones (the import-linter contract "acl_bridge.models rooms" in
pyproject.toml):

* :mod:`.apps`: commands and applications (detect, classify, the face mesh, the main job, fetch);
* :mod:`.oracles`: other runtimes run on the same file, as references (TFLite's interpreter, Arm NN);
* :mod:`.runtime`: the plan on ACL functions (NEON or CL), with the fallback between segments;
* :mod:`.profiling`: pure: where a load's and an inference's seconds go, paired timing;
* :mod:`.planning`: pure: ModelSpec -> Plan (views, fusion, partition), the memory plan, the
  plan cache, the plan run on numpy;
* :mod:`.fallback`: pure: numpy kernels, by TFLite opcode and by step kind, TFLite's int8 arithmetic;
* :mod:`.lowering`: pure: one rule per TFLite opcode -> bridge steps, and the partition predicate;
* :mod:`.format`: pure: the .tflite file -> ModelSpec (reader, sparsity, quantization checks)
  and the parsed-model cache.
"""
