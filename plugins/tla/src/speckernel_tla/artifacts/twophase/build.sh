#!/bin/sh
# Build the twophase program: ./build.sh [TARGET_DIR]   (default: ./target next to this script)
# Standard library only; cargo runs offline. Prints the path of the binary.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tgt=${1:-"$here/target"}
cargo build --offline --release --quiet --manifest-path "$here/Cargo.toml" --target-dir "$tgt"
echo "$tgt/release/twophase"
