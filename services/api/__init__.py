"""The gRPC adapter: servicers, conversions and error mapping."""
