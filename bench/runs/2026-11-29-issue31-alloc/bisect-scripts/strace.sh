#!/bin/bash
# usage: strace.sh <binary> <users> <n>  -> strace -c -f summary
bin=$1; u=$2; n=$3; d=$(mktemp -d /tmp/bisect-runs/st-XXXXXX)
TOKIO_WORKER_THREADS=${TW:-1} strace -c -f -o $d/strace.txt $bin run --url http://127.0.0.1:18431/ -u $u -n $n -q --out $d/run > $d/stdout 2>&1
cat $d/strace.txt; grep "Total" $d/stdout | head -1; rm -rf $d
