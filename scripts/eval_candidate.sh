#!/usr/bin/env bash
# A candidate for the bundled model, measured as issue 47's targets are:
# the project's held-out eval (demo tools, the extended cases, and 100
# conversations with made-up tools), then BFCL v4's first LIMIT cases of
# the seven target categories, plain (the headline) and `--grounded`.
#
#   cargo build --release -p tool-use -p tool-train
#   scripts/eval_candidate.sh MODEL_DIR OUT_DIR [LIMIT]
#
# Writes OUT_DIR/heldout.json, bfcl.json and bfcl-grounded.json, and prints
# the BFCL table. BFCL's data: $TOOL_USE_BFCL_DATA, or bfcl-eval in
# target/llama-venv (as .ci/run installs it).
set -euo pipefail

model=${1:?usage: eval_candidate.sh MODEL_DIR OUT_DIR [LIMIT]}
out=${2:?usage: eval_candidate.sh MODEL_DIR OUT_DIR [LIMIT]}
limit=${3:-100}
root=$(cd "$(dirname "$0")/.." && pwd)
categories=simple_python,multiple,parallel,parallel_multiple,live_simple,irrelevance,live_irrelevance
if [ -z "${TOOL_USE_BFCL_DATA:-}" ]; then
    TOOL_USE_BFCL_DATA=$(echo "$root"/target/llama-venv/lib/python3*/site-packages/bfcl_eval/data)
    export TOOL_USE_BFCL_DATA
fi
mkdir -p "$out"

"$root/target/release/tool-train" eval --model "$model" --schemas 100 --json >"$out/heldout.json" 2>/dev/null
python3 - "$out/heldout.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
def pct(a, b):
    return f"{100 * a / b:.1f}% ({a}/{b})" if b else "-"
for key, title in [("constrained", "demo tools"), ("constrained_schemas", "made-up tools")]:
    s = report[key]
    print(f"{title}: exact calls {pct(s['exact_calls'], s['call_turns'])}, "
          f"right tools {pct(s['right_tools'], s['call_turns'])}, "
          f"no call on a request {pct(s['request_no_call'], s['request_turns'])}, "
          f"answers with the result {pct(s['answers_with_results'], s['result_turns'])}")
EOF
for mode in plain grounded; do
    flags=()
    report="$out/bfcl.json"
    if [ "$mode" = grounded ]; then
        flags=(--grounded)
        report="$out/bfcl-grounded.json"
    fi
    "$root/target/release/tool-use" eval bfcl --model "$model" --limit "$limit" \
        --categories "$categories" "${flags[@]}" --json "$report" >/dev/null 2>&1
done
python3 "$root/scripts/bfcl_table.py" "plain=$out/bfcl.json" "grounded=$out/bfcl-grounded.json"
