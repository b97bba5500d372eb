"""Sans-IO protocol core: canonical JSON, signatures, messages, handshakes."""
