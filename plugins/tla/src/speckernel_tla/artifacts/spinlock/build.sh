#!/bin/sh
# Build the spinlock program: ./build.sh [OUTDIR]   (default: ./build next to this script)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/build"}
mkdir -p "$out"
gcc -std=c11 -O2 -Wall -Wextra -pthread -o "$out/spinlock" "$here/spinlock.c"
echo "$out/spinlock"
