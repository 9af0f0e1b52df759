"""The page of ``knightmate-bot play``: its HTTP server (session, Host check) and its static files."""
