"""Proto <-> domain conversions: one module per game, plus the shared envelopes."""
