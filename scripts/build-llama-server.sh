#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` from the source node-llama-cpp ships (its git bundle), once per
# machine and llama.cpp commit: the binary is cached outside the repository, and a second call
# only prints its path. test/integration/llama-server.test.ts runs `wapii run --remote` against it.
#   scripts/build-llama-server.sh          build if absent; prints the binary's path
#   WAPII_LLAMA_SERVER_JOBS=4 ...          parallel compile jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=node_modules/node-llama-cpp/llama/gitRelease.bundle
[ -f "$bundle" ] || { echo "build-llama-server: $bundle is missing (run npm ci first)" >&2; exit 1; }
commit=$(git bundle list-heads "$bundle" | awk '{print $1; exit}')
# Outside node_modules: `npm ci` empties that, and the build is minutes long.
cache=${WAPII_LLAMA_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wapii/llama-server}
dir="$cache/${commit:0:12}"
bin="$dir/llama-server"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

for tool in git cmake g++; do command -v "$tool" >/dev/null || { echo "build-llama-server: $tool is needed to build llama-server" >&2; exit 1; }; done
work=$(mktemp -d "${TMPDIR:-/tmp}/llama-server-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
git clone --quiet "$bundle" "$work/src" >&2
git -C "$work/src" checkout --quiet "$commit" >&2
# Only the server: no tests, examples or other tools, no libcurl (models are local files), static so the binary stands alone.
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF -DGGML_NATIVE=ON >"$work/configure.log" 2>&1 \
  || { tail -20 "$work/configure.log" >&2; exit 1; }
cmake --build "$work/build" --target llama-server -j "${WAPII_LLAMA_SERVER_JOBS:-2}" >"$work/build.log" 2>&1 \
  || { tail -30 "$work/build.log" >&2; exit 1; }
mkdir -p "$dir"
cp "$work/build/bin/llama-server" "$bin.tmp" && mv "$bin.tmp" "$bin"
echo "build-llama-server: built in $(( $(date +%s) - started )) s (commit ${commit:0:12})" >&2
echo "$bin"
