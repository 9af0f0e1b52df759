# knightmate-bot as a long-running container service.
#   docker build -t knightmate-bot .
#   docker run -d --name knightmate-bot -e KNIGHTMATE_BOT_TOKEN -v knightmate-data:/data knightmate-bot
#   docker run --rm -p 127.0.0.1:8000:8000 knightmate-bot play --config /config/config.yml --host 0.0.0.0
#     (play the bot on a web page: published on the host's loopback only)
# The token comes only from the environment; games (PGNs), the state file and the heartbeat go to
# the /data volume, which is also the working directory, so relative paths in the config land there.
# Mount your own config over /config/config.yml to change the defaults.
# The engine is compiled (mypyc) into a wheel in a builder stage that has a C compiler; the
# runtime stage installs that wheel and needs no compiler.

FROM python:3.11-slim AS builder

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev python3-dev \
 && rm -rf /var/lib/apt/lists/*

# Only what the package needs to build: no tests, benchmarks or history (see .dockerignore).
COPY pyproject.toml setup.py README.md /src/
COPY variant /src/variant
COPY bot /src/bot
RUN pip wheel --no-deps --wheel-dir /wheels /src

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --system --create-home --uid 10001 --user-group knightmate

# Fairy-Stockfish (Debian's build, about 250 KB), so `engine.command: /usr/games/fairy-stockfish` works as is.
RUN apt-get update && apt-get install -y --no-install-recommends fairy-stockfish && rm -rf /var/lib/apt/lists/*

# The wheel built above; the image must run the compiled engine, never a silent pure-Python fallback.
COPY --from=builder /wheels /wheels
RUN pip install /wheels/*.whl && rm -rf /wheels \
 && knightmate-bot --version | grep -q '(compiled)'

COPY config.yml /config/config.yml
RUN mkdir -p /data && chown knightmate:knightmate /data
VOLUME ["/data"]
WORKDIR /data
USER knightmate

# Healthy while the bot's event stream is alive: the bot touches a heartbeat file on every line
# (keep-alives included; by default /data/knightmate-bot.heartbeat, as the working directory is
# /data) and `health` checks how old it is.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["knightmate-bot", "health", "--config", "/config/config.yml"]

# `docker stop` sends SIGTERM; the bot leaves its streams and exits 0 within seconds (its games go
# on after the next start). `docker kill --signal USR1` makes it finish its games first, then exit 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["knightmate-bot"]
CMD ["run", "--config", "/config/config.yml"]
