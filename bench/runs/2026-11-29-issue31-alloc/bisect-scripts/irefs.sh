#!/bin/bash
# usage: irefs.sh <binary> <users> <iterations-per-user> [extra env...]; prints I refs
bin=$1; u=$2; n=$3
out=/tmp/bisect-runs/r-$$-$RANDOM
log=/tmp/bisect-runs/cg-$$-$RANDOM.log
TOKIO_WORKER_THREADS=${TW:-1} valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
  $bin run --url http://127.0.0.1:18431/ -u $u -n $n -q --out $out > $log.out 2> $log
r=$(grep 'I *refs' $log | tr -d ',' | awk '{print $NF}')
echo "$r"
rm -rf $out
