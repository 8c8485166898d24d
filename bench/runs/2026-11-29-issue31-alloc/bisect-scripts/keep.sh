#!/bin/bash
# usage: keep.sh <sha>  -> callgrind per-thread files at u=4, n=2500 and 5000 in /tmp/bisect-runs/keep; prints worker files
sha=$1; cd /tmp/bisect-runs/keep
for n in 2500 5000; do
  TOKIO_WORKER_THREADS=1 valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=/tmp/bisect-runs/keep/$sha-u4-n$n.%p \
    /tmp/bisect-bin/$sha run --url http://127.0.0.1:18431/ -u 4 -n $n -q --out /tmp/bisect-runs/keep/o-$sha-$n > /tmp/bisect-runs/keep/$sha-u4-n$n.stdout 2>&1
  rm -rf /tmp/bisect-runs/keep/o-$sha-$n
done
grep -l 'multi_thread::worker::run$' $sha-u4-n2500.*-0? $sha-u4-n5000.*-0?
