#!/bin/sh
# Regenerate traces from the running program: ./gen_traces.sh OUTDIR N SEED [CLIENTS] [ROUNDS]
# Writes OUTDIR/trace_01.ndjson .. trace_NN.ndjson using seeds SEED, SEED+1, ...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
outdir=$1; n=$2; seed=$3; g=${4:-3}; rounds=${5:-2}
bin=$("$here/build.sh")
mkdir -p "$outdir"
i=1
while [ "$i" -le "$n" ]; do
  f=$(printf '%s/trace_%02d.ndjson' "$outdir" "$i")
  timeout 20 "$bin" $((seed + i - 1)) "$f" "$g" "$rounds"
  echo "$f ($(wc -l < "$f") lines)"
  i=$((i + 1))
done
