"""Knowledge: extract, chunk, embed (ONNX MiniLM), store (sqlite-vec), upload reassembly."""
