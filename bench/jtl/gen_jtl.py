#!/usr/bin/env python3
"""Writes a JMeter results file (JTL, CSV, JMeter 5's default columns with the header) of about
SIZE bytes for the import benchmark: a soak test of 600 threads over nine labels in the ratio of
the seed's production mix, ~1 failure in 500, rows in end-time order as JMeter writes them.

    python3 bench/jtl/gen_jtl.py OUT.jtl 3G

Deterministic (fixed seed): the same size gives the same file."""
import random
import sys

HEADER = ("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
          "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n")
LABELS = [("ContentRead", 4), ("SendTelemetry", 3), ("CompositeSearch", 2), ("ContentHierarchy", 1),
          ("DialAssemble", 1), ("DialSearch", 1), ("FormRead", 1), ("OrgSearch", 1), ("TenantInfo", 1)]


def size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def main():
    out, want = sys.argv[1], size(sys.argv[2])
    rng = random.Random(20261123)
    names = [n for n, w in LABELS for _ in range(w)]
    # Pre-built row tails per label: the variable parts are formatted per row.
    ts = 1_700_000_000_000
    written = 0
    with open(out, "w", buffering=1 << 22) as f:
        f.write(HEADER)
        written += len(HEADER)
        batch = []
        while written < want:
            for _ in range(20000):
                label = names[rng.randrange(len(names))]
                elapsed = int(rng.lognormvariate(3.0, 0.9)) + 1
                ts += rng.randrange(0, 3)
                thread = rng.randrange(1, 601)
                if rng.randrange(500) == 0:
                    code, msg, ok = "503", "Service Unavailable", "false"
                else:
                    code, msg, ok = "200", "OK", "true"
                row = (f"{ts},{elapsed},{label},{code},{msg},Soak 1-{thread},text,{ok},,"
                       f"{300 + elapsed % 700},{180 + thread % 50},600,600,"
                       f"http://127.0.0.1:8080/api/{label.lower()},{max(1, elapsed - 1)},0,{1 if thread % 97 == 0 else 0}\n")
                batch.append(row)
                written += len(row)
            f.write("".join(batch))
            batch.clear()


if __name__ == "__main__":
    main()
