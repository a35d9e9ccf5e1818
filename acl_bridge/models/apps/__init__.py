"""Applications and commands on top of the runner: the face detector's and face mesh's pre-
and post-processing (:mod:`.blazeface`, :mod:`.face_mesh`), image classifiers
(:mod:`.classify`), images (:mod:`.images`), the main job (:mod:`.detect_demo`), the model
commands of the CLI (:mod:`.cli_commands`) and the models they fetch (:mod:`.fetch`)."""
