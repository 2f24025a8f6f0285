"""Benchmark scripts; each prints its figures (docs/performance.md)."""
