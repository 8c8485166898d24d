#!/bin/bash
# usage: measure.sh <binary> <users> <N> <reps>; per request = (I(2N)-I(N))/(U*N), worker thread and all threads
bin=$1; u=$2; n=$3; reps=${4:-3}
for i in $(seq $reps); do
  read aw aa an < <(/tmp/cpu2/cl.sh $bin $u $n); read bw ba bn < <(/tmp/cpu2/cl.sh $bin $u $((2*n)))
  echo "$(basename $bin) u=$u n=$n worker: $aw $bw per_req=$(( (bw-aw)/(u*n) )) | all: $aa $ba per_req=$(( (ba-aa)/(u*n) )) | threads $an $bn"
done
