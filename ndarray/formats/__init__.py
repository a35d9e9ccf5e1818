"""One module per foreign layout convention: nd4j (shapeInfo), xla, directml, torch, dlpack."""
