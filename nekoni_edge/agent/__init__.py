"""The agent: what the box does with a user's message."""
