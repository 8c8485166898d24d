#!/usr/bin/env python3
"""usage: calldiff.py A_N A_2N B_N B_2N REQS PATTERN : per function matching PATTERN, callees' Ir/request in A and B"""
import subprocess, sys, re
def clean(s):
    s = re.sub(r'\s*\[[^\]]*\]$', '', s); return re.sub(r'^\?\?\?:', '', s)
def load(f):
    out = subprocess.run(['callgrind_annotate', '--tree=calling', '--threshold=100', '--inclusive=yes', f], capture_output=True, text=True).stdout
    res = {}; cur = None
    for line in out.splitlines():
        if not line.strip(): cur = None; continue
        m = re.match(r'\s*([\d,]+)\s+\([^)]*\)\s+\*\s+(.*)$', line)
        if m:
            cur = clean(m.group(2)); res.setdefault(cur, {})['(inclusive)'] = (int(m.group(1).replace(',', '')), 0); continue
        m = re.match(r'\s*([\d,]+)\s+\([^)]*\)\s+>\s+(.*?)\s+\(([\d,]+)x\)', line)
        if m and cur:
            d = res[cur]; k = clean(m.group(2)); c, n = d.get(k, (0, 0))
            d[k] = (c + int(m.group(1).replace(',', '')), n + int(m.group(3).replace(',', '')))
    return res
a1, a2, b1, b2 = (load(f) for f in sys.argv[1:5]); reqs = int(sys.argv[5]); pat = sys.argv[6]
def per(x1, x2, fn):
    d1, d2 = x1.get(fn, {}), x2.get(fn, {})
    return {k: ((d2.get(k, (0, 0))[0] - d1.get(k, (0, 0))[0]) / reqs, (d2.get(k, (0, 0))[1] - d1.get(k, (0, 0))[1]) / reqs) for k in set(d1) | set(d2)}
for fn in sorted(set(a1) | set(b1) | set(a2) | set(b2)):
    if not re.search(pat, fn): continue
    pa, pb = per(a1, a2, fn), per(b1, b2, fn)
    print(f"== {fn[:170]}")
    for k in sorted(set(pa) | set(pb), key=lambda k: -max(abs(pa.get(k, (0, 0))[0]), abs(pb.get(k, (0, 0))[0]))):
        x, y = pa.get(k, (0, 0)), pb.get(k, (0, 0))
        if max(abs(x[0]), abs(y[0])) >= 1:
            print(f"  A {x[0]:7.0f} ({x[1]:.2f}x)  B {y[0]:7.0f} ({y[1]:.2f}x)  d {y[0]-x[0]:+6.0f}  {k[:160]}")
