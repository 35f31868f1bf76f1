#!/usr/bin/env bash
# The token bench (ours beside XGrammar) as a folder that runs on a machine with nothing but
# Linux x64: `bash bench/tokens-bundle.sh DIR`, copy DIR there, and run
#   gzip -dc DIR/node.gz > /tmp/node && chmod +x /tmp/node && cd DIR && /tmp/node tokensAlone.mjs wapiibench tokens.json
# It walks the samples in (cores - 2) processes side by side. Made here: llama.cpp's tokens of every
# ground truth (tokens.json; llama.cpp does not go along, its rows are left out there), the bench
# bundled by esbuild, the XGrammar package, the qwen2 vocabulary, WAPIIBench, and this node.
set -euo pipefail
out=${1:?usage: bash bench/tokens-bundle.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
wapiibench=${WAPIIBENCH:-$root/../shared/wapiibench}
mkdir -p "$out/node_modules/@mlc-ai" "$out/node_modules/node-llama-cpp/dist" "$out/node_modules/.cache/wapii/vocab"
cd "$root"
WAPII_BENCH_TOKEN_SAMPLES=1 WAPII_BENCH_JOBS=1 WAPII_BENCH_TOKENIZED_WRITE="$out/tokens.json" npx tsx bench/index.ts tokens >/dev/null
npx esbuild bench/tokensAlone.ts bench/tokenShard.ts --bundle --platform=node --format=esm --target=node20 --main-fields=module,main \
  --outdir="$out" --out-extension:.js=.mjs --external:node-llama-cpp --external:@mlc-ai/web-xgrammar \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" --log-level=warning
cp -r node_modules/@mlc-ai/web-xgrammar "$out/node_modules/@mlc-ai/"
# A stand-in: resolving node-llama-cpp finds node_modules (and its .cache); nothing of it runs there.
echo '{"name":"node-llama-cpp","version":"0.0.0-standin","type":"module","main":"dist/index.js"}' >"$out/node_modules/node-llama-cpp/package.json"
printf '%s\n' "export const getLlama = () => { throw new Error('node-llama-cpp is not here'); };" 'export class LlamaGrammarEvaluationState {}' >"$out/node_modules/node-llama-cpp/dist/index.js"
cp node_modules/.cache/wapii/vocab/ggml-vocab-qwen2.gguf "$out/node_modules/.cache/wapii/vocab/"
rm -rf "$out/wapiibench" && cp -r "$wapiibench" "$out/wapiibench"
gzip -1 -c "$(command -v node)" >"$out/node.gz"
du -sh "$out"
