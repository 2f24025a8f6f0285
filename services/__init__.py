"""Use cases over the event store, and the gRPC adapter in ``services.api``."""
