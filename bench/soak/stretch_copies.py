#!/usr/bin/env python3
"""Stretches the controller's copies of an agents' soak (bench/soak/agents.sh, which builds them
through the writers for an hour or so) to HOURS hours, to time `merge` and `report` of a copy of
that length without drawing every sample: each copy's first hour (its six 10-minute lines and
its hour line, the exact sum of those six) is repeated hour after hour, its times shifted. The
copy is left as a killed run leaves it (no summary.json: every figure is summed from its
lines), so a reader reads and cross-checks every line.

    python3 bench/soak/stretch_copies.py SRC_COPIES_DIR OUT_DIR HOURS [COPIES]

COPIES (default: as many as SRC has) repeats the source copies, numbered on, as more agents.
"""
import json
import os
import sys

HOUR_US = 3_600_000_000


def shift_stats(s, by):
    if s and s.get("samples", 0) > 0:
        s["first_start_us"] += by
        s["last_end_us"] += by


def shifted(line, by, lines_per_hour, hour):
    v = json.loads(line)
    v["i"] += hour * lines_per_hour
    v["start_us"] += by
    v["end_us"] += by
    for s in v.get("labels", []):
        shift_stats(s, by)
    shift_stats(v.get("total"), by)
    for s in v.get("lateness", []) or []:
        shift_stats(s, by)
    return json.dumps(v, separators=(",", ":"))


def first_hour(path):
    with open(path) as f:
        return [l for l in f if l.strip() and json.loads(l)["start_us"] < HOUR_US]


def main():
    src, out, hours = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sources = sorted(os.listdir(src))
    copies = int(sys.argv[4]) if len(sys.argv) > 4 else len(sources)
    os.makedirs(out, exist_ok=True)
    for n in range(copies):
        name = sources[n % len(sources)]
        d = os.path.join(out, f"{n + 1}-stretched")
        os.makedirs(d)
        with open(os.path.join(src, name, "meta.json")) as f:
            meta = json.load(f)
        meta["status"] = "interrupted"
        meta["part"]["segment"] = f"{n + 1}/{copies}"
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=2)
        open(os.path.join(d, "intervals.jsonl"), "w").close()
        for width in meta["log"]["rollups_s"]:
            lines = first_hour(os.path.join(src, name, f"intervals-{width}s.jsonl"))
            with open(os.path.join(d, f"intervals-{width}s.jsonl"), "w") as f:
                for h in range(hours):
                    for line in lines:
                        f.write(shifted(line, h * HOUR_US, len(lines), h) + "\n")


if __name__ == "__main__":
    main()
