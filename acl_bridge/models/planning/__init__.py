"""From a ModelSpec to a frozen Plan and what is decided from it (pure): the lowering run over
the graph with views, fusion and the partition (:mod:`.tflite_plan`), where buffers live
(:mod:`.memory_plan`), the lowered plan kept between processes (:mod:`.plan_cache`), and the
plan carried out on numpy, the host check of the plan (:mod:`.numpy_executor`)."""
