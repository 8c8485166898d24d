#!/bin/bash
# usage: keep.sh <binary> <tag> -> callgrind per-thread files at u=4, n=2500 and 5000 in /tmp/cpu2/keep; prints worker files
bin=$1; tag=$2; cd /tmp/cpu2/keep
for n in 2500 5000; do
  rm -f $tag-u4-n$n.*
  TOKIO_WORKER_THREADS=1 valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=/tmp/cpu2/keep/$tag-u4-n$n.%p \
    $bin run --url http://127.0.0.1:18431/ -u 4 -n $n -q --out /tmp/cpu2/keep/o-$tag-$n > /tmp/cpu2/keep/$tag-u4-n$n.stdout 2>&1
  rm -rf /tmp/cpu2/keep/o-$tag-$n
done
grep -l 'multi_thread::worker::run$' $tag-u4-n2500.*-0? $tag-u4-n5000.*-0?
