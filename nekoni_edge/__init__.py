"""nekoni_edge: the offline nekoni agent in a plug."""

__version__ = "0.1.0"
