"""What touches the outside: settings, persistence, the server process, the CLI."""
