"""One package per game, each exporting ``RULES``."""
