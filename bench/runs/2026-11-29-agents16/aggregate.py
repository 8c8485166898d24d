#!/usr/bin/env python3
"""The repeats table of README.md from repeats/: nN-dD-rR.json is bench/agents/run.sh's
figures.json of N agents for D seconds, round R; .cpu.json the agents' CPU (their meta.json),
.single.json one process's CPU and samples (20 s runs only).  python3 aggregate.py"""
import glob, json, os, re, statistics as st

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repeats")
rows = {}
for f in glob.glob(os.path.join(here, "n*-d*-r*.json")):
    m = re.fullmatch(r"n(\d+)-d(\d+)-r(\d+)\.json", os.path.basename(f))
    if not m:
        continue
    n, dur, rep = map(int, m.groups())
    j = json.load(open(f))
    base = f[: -len(".json")]
    r = dict(j, cpu=j["c_user"] + j["c_sys"], agents_cpu=json.load(open(base + ".cpu.json"))["agents_cpu_s"])
    if os.path.exists(base + ".single.json"):
        r.update(json.load(open(base + ".single.json")))
    rows[(n, dur, rep)] = r


def cell(xs, fmt):
    return f"{fmt.format(st.median(xs))} ({fmt.format(min(xs))}–{fmt.format(max(xs))})" if xs else ""


print("| agents | run | controller CPU s | ms per agent interval, whole run | ms per agent interval, 20 s − 5 s | ms per merged second, 20 s − 5 s | controller peak MiB | max start skew ms | merged / one process req/s | wrk / one process req/s | CPU per request, agents / one process |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in (1, 4, 16):
    for dur in (5, 20):
        rs = [r for k, r in sorted(rows.items()) if k[:2] == (n, dur)]
        short = [rows.get((n, 5, k[2])) for k in sorted(rows) if k[:2] == (n, dur)] if dur == 20 else []
        pairs = [(r, s) for r, s in zip(rs, short) if s]
        single = [r for r in rs if r.get("single_rps")]
        print("| " + " | ".join([
            str(n), f"{dur} s",
            cell([r["cpu"] for r in rs], "{:.3f}"),
            cell([r["cpu"] * 1000 / r["agent_lines"] for r in rs], "{:.2f}"),
            cell([(r["cpu"] - s["cpu"]) * 1000 / (r["agent_lines"] - s["agent_lines"]) for r, s in pairs], "{:.2f}"),
            cell([(r["cpu"] - s["cpu"]) * 1000 / (r["run_lines"] - s["run_lines"]) for r, s in pairs], "{:.2f}"),
            cell([r["c_kib"] / 1024 for r in rs], "{:.1f}"),
            cell([max(r["skews"]) for r in rs], "{:.1f}"),
            cell([r["rps"] / r["single_rps"] for r in single], "{:.2f}"),
            cell([r["wrk_rps"] / r["single_rps"] for r in single], "{:.2f}"),
            cell([(r["agents_cpu"] / r["samples"]) / (r["single_cpu_s"] / r["single_samples"]) for r in single], "{:.2f}"),
        ]) + " |")
