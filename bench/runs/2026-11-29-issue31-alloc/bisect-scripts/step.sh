#!/bin/bash
# git bisect run step: build HEAD, measure worker-thread Ir per request (u=4, n=2500 vs 5000), good if below midpoint
MID=8783
sha=$(git -C /work/wt/bisect rev-parse --short=7 HEAD)
/tmp/bisect-logs/build.sh $sha >> /tmp/bisect-logs/steps.log 2>&1 || { echo "$sha build failed: skip" >> /tmp/bisect-logs/steps.log; exit 125; }
cd /tmp/bisect-runs
line=$(/tmp/bisect-logs/measure.sh /tmp/bisect-bin/$sha 4 2500 1)
echo "$line" | tee -a /tmp/bisect-logs/results.txt >> /tmp/bisect-logs/steps.log
pr=$(echo "$line" | sed 's/.*worker: [0-9]* [0-9]* per_req=\([0-9]*\).*/\1/')
if [ -z "$pr" ] || [ "$pr" -le 0 ]; then echo "$sha no measurement: skip" >> /tmp/bisect-logs/steps.log; exit 125; fi
if [ "$pr" -gt $MID ]; then echo "$sha $pr BAD ($(date -u +%T))" >> /tmp/bisect-logs/steps.log; exit 1; else echo "$sha $pr GOOD ($(date -u +%T))" >> /tmp/bisect-logs/steps.log; exit 0; fi
