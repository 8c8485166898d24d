#!/usr/bin/env python3
"""usage: table.py A_N A_2N B_N B_2N [C_N C_2N] : self Ir/request per function, names normalised across the move of
client.rs into client/ (ResponseReader), top 15 by |B-A|"""
import subprocess, sys, re
def load(f):
    out = subprocess.run(['callgrind_annotate', '--threshold=100', '--inclusive=no', f], capture_output=True, text=True).stdout
    d = {}
    for line in out.splitlines():
        m = re.match(r'\s*([\d,]+)\s+\([^)]*\)\s+(.*)$', line)
        if not m: continue
        n = re.sub(r'\s*\[[^\]]*\]$', '', m.group(2)); n = re.sub(r'^\?\?\?:', '', n)
        n = n.replace('engine::client::ResponseReader', 'engine::client::read::ResponseReader')
        n = re.sub(r'^\./string/\.\./sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms\.S:', 'libc ', n)
        n = re.sub(r'^\./string/.*/(memset|memcmp)[^:]*:', r'libc ', n)
        d[n] = d.get(n, 0) + int(m.group(1).replace(',', ''))
    return d
fs = sys.argv[1:]; sets = []
for i in range(0, len(fs), 2):
    a, b = load(fs[i]), load(fs[i+1]); sets.append({k: (b.get(k, 0) - a.get(k, 0)) / 10000 for k in set(a) | set(b)})
keys = set().union(*sets)
A, B = sets[0], sets[1]
rows = sorted((k for k in keys if k != 'PROGRAM TOTALS'), key=lambda k: -abs(B.get(k, 0) - A.get(k, 0)))[:15]
hdr = ['4710b8a', '10d3151'] + (['final'] if len(sets) > 2 else [])
print('| function (self Ir per request) | ' + ' | '.join(hdr) + ' | 10d3151 − 4710b8a |' + (' final − 4710b8a |' if len(sets) > 2 else ''))
print('|---|' + '---:|' * (len(hdr) + 1 + (len(sets) > 2)))
for k in rows + ['PROGRAM TOTALS']:
    v = [s.get(k, 0) for s in sets]
    print(f"| `{k.replace('stampede::engine::', '')[:110]}` | " + ' | '.join(f'{x:,.0f}' for x in v) + f" | {v[1]-v[0]:+,.0f} |" + (f" {v[2]-v[0]:+,.0f} |" if len(v) > 2 else ''))
