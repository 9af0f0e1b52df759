"""The live status page of a running bot (``bot.status_port``): what it plays, how, and what it declined.

On the run path, so it never imports the sandbox or ``play``'s page (:mod:`bot.web`); it shares
their session and Host check through :mod:`bot.httpd` and reads the vendored board's files from
``bot/web/static`` as package data, never its Python (the import-linter contract ``run-path``).
"""
