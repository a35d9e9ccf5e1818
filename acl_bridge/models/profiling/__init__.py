"""Where the seconds go (pure): a load's phases and native calls (:mod:`.configure_profile`),
an inference per function (:mod:`.operator_profile`), Arm NN's profile matched to it
(:mod:`.armnn_profile`), and ratios from paired, interleaved rounds (:mod:`.paired_timing`)."""
