"""I/O around the protocol core: signaling endpoint, aiortc peers, DataChannel sessions."""
