#!/usr/bin/env python3
"""Run a command and write its CPU time and peak memory to a file, to the microsecond.

Usage: rusage.py OUT COMMAND ARGS...

Writes `USER_S SYSTEM_S MAXRSS_KIB` of the command and every descendant it waited for (so
`rusage.py out timeout 60 stampede run ...` measures stampede, not timeout). GNU time rounds
CPU to 10 ms, which is most of a controller's whole cost in a short run.
"""
import os
import resource
import subprocess
import sys

out, cmd = sys.argv[1], sys.argv[2:]
rc = subprocess.call(cmd)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    f.write(f"{ru.ru_utime:.6f} {ru.ru_stime:.6f} {ru.ru_maxrss}\n")
sys.exit(rc)
