#!/bin/sh
# Build the locksrv program: ./build.sh [OUTDIR]   (default: ./build next to this script)
# Standard library only. Prints the path of the binary.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/build"}
mkdir -p "$out"
(cd "$here" && GOFLAGS=-mod=mod GOPROXY=off go build -o "$out/locksrv" .)
echo "$out/locksrv"
