"""The server-facing layer: the only code that speaks HTTP or WebSocket to a Bot API server."""
