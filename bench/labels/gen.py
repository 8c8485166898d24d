#!/usr/bin/env python3
"""Inputs for bench/labels/run.sh: a plan with N labels, or a JMeter results file with N labels.

  gen.py plan N PORT DURATION USERS > plan.yaml   a weighted mix of N requests, each its own label
  gen.py jtl N ROWS > results.jtl                 ROWS rows spread evenly over N labels

Labels look like `item-00042`, as plans that put IDs into labels do. The plan keeps the YAML
defaults (redirects followed, so each request also has its `item-00042-0`..`-20` hop labels).
"""
import random
import sys


def plan(n, port, duration, users):
    print("name: labels-%d" % n)
    print("defaults:")
    print("  base_url: http://127.0.0.1:%s" % port)
    print("scenarios:")
    print("  - name: labels")
    print("    workload: {users: %s, duration: %s}" % (users, duration))
    print("    flow:")
    print("      - mix:")
    for i in range(n):
        print("          - {weight: 1, request: {label: item-%05d, url: /item/%05d}}" % (i, i))


def jtl(n, rows):
    rng = random.Random(11)
    out = sys.stdout
    out.write("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
              "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n")
    t = 1_700_000_000_000
    for r in range(rows):
        label = r % n
        elapsed = int(rng.lognormvariate(3.0, 0.8)) + 1
        ok = rng.random() > 0.01
        code, msg, success = ("200", "OK", "true") if ok else ("500", "Internal Server Error", "false")
        t += rng.randint(0, 2)
        out.write("%d,%d,item-%05d,%s,%s,Users 1-%d,text,%s,,%d,%d,50,50,http://127.0.0.1/item/%05d,%d,0,%d\n"
                  % (t, elapsed, label, code, msg, 1 + r % 50, success, 200 + label % 50, 120, label,
                     max(1, elapsed // 2), 1 if r % 100 == 0 else 0))


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "plan":
        plan(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
    elif kind == "jtl":
        jtl(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit("usage: gen.py plan N PORT DURATION USERS | gen.py jtl N ROWS")
