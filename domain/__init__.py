"""Pure game logic: rules, state and events as frozen dataclasses; stdlib only."""
