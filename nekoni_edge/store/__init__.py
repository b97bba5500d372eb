"""The one SQLite file: connection (with sqlite-vec), migrations, typed access."""
