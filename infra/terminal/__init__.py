"""The terminal client of the ``tabletop`` command: play, spectate and replay.

A client like any other: it speaks only through the generated ``tabletop.v1``
stubs and gRPC, never through the server's own packages.
"""
