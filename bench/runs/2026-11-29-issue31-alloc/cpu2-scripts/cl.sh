#!/bin/bash
# usage: cl.sh <binary> <users> <iterations-per-user>
# prints: <worker-thread Ir> <all-threads Ir> <nthreads>  (callgrind, one tokio worker)
bin=$1; u=$2; n=$3
d=$(mktemp -d /tmp/bisect-runs/cl-XXXXXX)
TOKIO_WORKER_THREADS=1 valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=$d/cl.%p \
  $bin run --url http://127.0.0.1:18431/ -u $u -n $n -q --out $d/run > $d/stdout 2> $d/vg.log
w=0; all=0; nt=0
for f in $d/cl.*-*; do
  s=$(grep -m1 '^summary:' $f | awk '{print $2}'); all=$((all+s)); nt=$((nt+1))
  if grep -q 'multi_thread::worker::run$' $f; then w=$((w+s)); fi
done
grep -q "Samples\|samples" $d/stdout || echo "WARN: no summary in $d/stdout" >&2
echo "$w $all $nt"
rm -rf $d
