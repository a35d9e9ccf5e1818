"""The TFLite file format (pure): the flatbuffer read into a frozen ModelSpec
(:mod:`.tflite_reader`), sparse tensors densified (:mod:`.sparsity`), the quantization
parameters every operator needs checked (:mod:`.tflite_quantization`), and the parsed model
kept by content between processes (:mod:`.model_cache`)."""
