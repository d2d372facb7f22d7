#!/usr/bin/env bash
# Packages every crate of the workspace as `cargo publish` would, and checks
# that each .crate is under crates.io's 10 MB limit. The small crates are
# also built from their packaged sources (the heavy ones would rebuild candle
# under another profile; the tests compile them).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo package -q --workspace --no-verify --allow-dirty
cargo package -q -p tool-macros -p tool-runtime -p tool-use-mini --allow-dirty

packages="${CARGO_TARGET_DIR:-target}/package"
limit=$((10 * 1000 * 1000))
status=0
for crate in tool-macros tool-runtime tool-models tool-mcp tool-use-mini tool-use tool-train; do
    file=$(ls "$packages/$crate"-[0-9]*.crate)
    size=$(stat -c %s "$file")
    printf '%-16s %10d bytes\n' "$crate" "$size"
    if [ "$size" -ge "$limit" ]; then
        echo "$file is over crates.io's 10 MB limit" >&2
        status=1
    fi
done
# The model travels in its own crate, and only there. (Listings go through
# variables: `grep -q` closing a pipe early would fail the script under pipefail.)
mini=$(tar -tzf "$packages"/tool-use-mini-[0-9]*.crate)
facade=$(tar -tzf "$packages"/tool-use-[0-9]*.crate)
if ! grep '/model.safetensors$' <<<"$mini" >/dev/null; then
    echo "tool-use-mini's package has no model.safetensors" >&2
    status=1
fi
if grep 'safetensors' <<<"$facade" >/dev/null; then
    echo "tool-use's package carries model weights" >&2
    status=1
fi
exit $status
