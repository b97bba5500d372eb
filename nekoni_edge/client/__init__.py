"""The reference phone client: a library and the ``nekoni-edge chat`` command."""
