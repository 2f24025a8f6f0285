"""What every game shares: decisions, randomness, viewers, rules contract, table."""
