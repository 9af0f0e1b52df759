#!/bin/sh
# Fairy-Stockfish as a UCI engine on stdin/stdout, for bench/match/strength.py.
#
# Runs the WebAssembly build from the npm package fairy-stockfish-nnue.wasm under Node, installing
# the pinned version into bench/match/node_modules (git-ignored) on first use. Bench only: it is never a
# dependency of the knightmate-bot package. Installer messages go to stderr, so stdout stays UCI.
#
#   bench/match/fairy_stockfish.sh             run the engine (installs first if needed)
#   bench/match/fairy_stockfish.sh --install   only install, then exit
set -eu

VERSION=1.1.12
BENCH=$(cd "$(dirname "$0")" && pwd)
PACKAGE="$BENCH/node_modules/fairy-stockfish-nnue.wasm"

for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || { echo "fairy_stockfish.sh: $tool is not installed" >&2; exit 1; }
done

if ! grep -qs "\"version\": \"$VERSION\"" "$PACKAGE/package.json"; then
    npm install --prefix "$BENCH" --no-save --no-audit --no-fund --loglevel=error \
        "fairy-stockfish-nnue.wasm@$VERSION" >&2
fi

[ "${1:-}" = "--install" ] && exit 0

# Without --no-experimental-fetch, Node's fetch makes the Emscripten loader try to fetch
# stockfish.wasm as a URL instead of reading the file, and the engine never starts.
cd "$PACKAGE"
exec node --no-experimental-fetch uci.js
