#!/bin/bash
# paired rounds at nginx, c50/c1000, order swapped every other round
set -u
NEW=$1; OLD=$2; OUT=$3; N=${4:-3}
cd /work/main
for r in $(seq $N); do
  for first in stampede before; do
    d=/tmp/rounds/$r-$first; rm -rf $d; mkdir -p $d
    if [ $first = stampede ]; then S=$NEW; B=$OLD; else S=$OLD; B=$NEW; fi
    # run.sh runs TOOLS in order: "stampede before"; to swap the order we swap the binaries and label after
    STAMPEDE=$S BEFORE=$B TOOLS="stampede before" TARGETS=nginx CONNS="50 1000" MEM_CONNS=0 DURATION=5s RUN_DIR=$d bash bench/compare/run.sh > $d/log 2>&1
    for c in 50 1000; do
      for t in stampede before; do
        f=$d/nginx-$t-c$c
        req=$(python3 -c "import json;d=json.load(open('$f.summary.json'));print(d['total']['samples'])")
        rps=$(python3 -c "import json;d=json.load(open('$f.summary.json'));print(int(d['total']['throughput_rps']))")
        read e u s m < $f.time
        bin=$([ $t = stampede ] && echo $S || echo $B)
        who=$([ $bin = $NEW ] && echo new || echo before)
        python3 -c "r=$req;print('| $r-$first | $who | $c | %d | %.2f |'%($rps,($u+$s)*1e6/r))"
      done
    done
  done
done > $OUT
