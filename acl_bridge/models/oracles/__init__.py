"""Other runtimes run on the same .tflite file, as the references the bridge is checked and
timed against: TFLite's own interpreter (:mod:`.tflite_oracle`) and Arm NN's TFLite parser
(:mod:`.armnn_tflite`)."""
