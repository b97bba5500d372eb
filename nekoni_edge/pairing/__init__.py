"""Pairing by button: the window state machine, the service around it, button and LED."""
