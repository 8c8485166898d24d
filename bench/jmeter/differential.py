#!/usr/bin/env python3
"""Differential test: what Apache JMeter sends vs what stampede sends for the same .jmx plan.

    python3 bench/jmeter/differential.py PLAN.jmx [-J name=value]... [--set TOKEN=value]...

Starts a loopback recording HTTP server (127.0.0.1, ephemeral port) that records every request
(method, target, HTTP version, headers in order, body bytes) and answers each with 200, a small
JSON body and `Set-Cookie: SID=s1; Path=/`. Runs PLAN through JMeter (non-GUI) and then through
stampede against that server, each with a fresh recording, and compares the two recordings.

Arguments after PLAN:
  -J name=value      a JMeter property, passed to both (`-Jname=value` / `-J name=value`)
  --set TOKEN=value  literal text replacement in the plan: stampede does it itself (`--set`);
                     for JMeter the same replacements, in the same order, are applied to a
                     temporary copy of the plan
  The literal `{port}` in any -J/--set value becomes the recording server's port. A -J/--set
  value that names an existing file (absolute, or relative to the current directory or the
  plan's directory) whose text contains `{port}` is replaced by a temporary copy of that file
  with the port filled in (for host CSV files such as `http,127.0.0.1,{port}`).

Options:
  --keep DIR         keep the work directory (plan copies, logs, JTL, recordings as JSON) in DIR
  --timeout SECONDS  limit for each tool's run (default 300)
  --only-jmeter / --only-stampede   run one side only and print its recording

Environment:
  JMETER_HOME  assembled JMeter (default ${XDG_CACHE_HOME:-$HOME/.cache}/stampede/jmeter-5.6.3;
               bench/jmeter/fetch-jmeter.sh assembles it, and is run if it is missing)
  STAMPEDE     stampede binary (default target/release/stampede, else target/debug/stampede,
               of the repository holding this script)
  JAVA         java binary (default: java)

Each tool runs in a work directory of its own whose entries are symbolic links to the files
beside the plan, so relative data-file paths resolve as they would next to the plan, while
the files the run writes (JTL files of listeners, logs) land in the work directory.

Exit status: 0 when the recordings agree, 1 on differences, 2 on errors.
Compared per request kind (method + path without the query): the number of requests, the
request-line target's query strings, HTTP version, header names and values (User-Agent and
Connection are ignored; everything else, Host included, is compared), and the bodies. Requests
of one kind are compared as multisets, since the threads interleave differently in each run.
"""

import argparse
import collections
import difflib
import http.server
import json
import os
import shutil
import signal
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

IGNORED_HEADERS = {"user-agent", "connection"}
RESPONSE_BODY = b'{"result":{"token":"tok-1","id":"x-7"},"responseCode":"OK"}'
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


# --------------------------------------------------------------------------- recording server

class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []

    def reset(self):
        with self.lock:
            self.requests = []

    def add(self, req):
        with self.lock:
            req["seq"] = len(self.requests)
            self.requests.append(req)

    def snapshot(self):
        with self.lock:
            return list(self.requests)


HTML_PAGE = (
    b'<!DOCTYPE html><html><head><link rel="stylesheet" href="/res/s.css"><link rel="next" href="/no.html">'
    b'<script src="res/b.js"></script></head><body background="/res/bg.png"><img src="/res/a.png">'
    b'<img src="/res/a.png"><img src="/res/skip.gif"><a href="/no2.html">x</a>'
    b'<div style="background: url(/res/st.png)">x</div><iframe src="/res/f.json"></iframe></body></html>'
)

# /anchor-page* is an HTML page of links and a form (plans/elem-anchor.jmx: HTML Link Parser).
ANCHOR_PAGE = (
    b'<html><head><title>t</title></head><body><a href="/link/a?x=1&amp;y=two">a</a>'
    b'<a href="link/b?x=2&amp;z=a%20b">b</a><a href="/link/c?flag&amp;x=3">c</a><a href="javascript:go()">j</a><a name="n">n</a>'
    b'<form action="/form/submit" method="post"><input name="user" value="u1">'
    b'<input type="hidden" name="pass" value="p+1"><select name="s"><option value="o1">one</option></select></form>'
    b'</body></html>'
)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "recorder"
    sys_version = ""

    def log_message(self, fmt, *args):  # quiet
        pass

    def _read_body(self):
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            chunks = []
            while True:
                line = self.rfile.readline()
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def _handle(self):
        body = self._read_body()
        self.server.recorder.add({
            "method": self.command,
            "target": self.path,
            "version": self.request_version,
            "headers": [(k, v) for k, v in self.headers.items()],
            "body": body,
            "conn": "%s:%s" % self.client_address[:2],
            "time": time.time(),
        })
        # /embedded-page* is an HTML page naming resources (plans/embedded-*.jmx: "Retrieve All
        # Embedded Resources"); every other path the JSON body.
        page = self.path.startswith("/embedded-page") or self.path.startswith("/anchor-page")
        reply = (ANCHOR_PAGE if self.path.startswith("/anchor-page") else HTML_PAGE) if page else RESPONSE_BODY
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=UTF-8" if page else "application/json")
        self.send_header("Set-Cookie", "SID=s1; Path=/")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _handle


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def start_server():
    srv = Server(("127.0.0.1", 0), Handler)
    srv.recorder = Recorder()
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    return srv


# --------------------------------------------------------------------------- running the tools

def die(msg, code=2):
    print("differential: error: " + msg, file=sys.stderr)
    sys.exit(code)


def split_kv(s, what):
    if "=" not in s:
        die("%s expects NAME=VALUE, got %r" % (what, s))
    k, v = s.split("=", 1)
    return k, v


def find_stampede():
    env = os.environ.get("STAMPEDE")
    if env:
        if not os.access(env, os.X_OK):
            die("STAMPEDE=%s is not an executable file" % env)
        return env
    for p in ("target/release/stampede", "target/debug/stampede"):
        full = os.path.join(REPO, p)
        if os.access(full, os.X_OK):
            return full
    die("no stampede binary: set STAMPEDE=/path/to/stampede or build one "
        "(CARGO_TARGET_DIR=/tmp/oracle-target cargo build --release)")


def find_jmeter():
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    home = os.environ.get("JMETER_HOME") or os.path.join(cache, "stampede", "jmeter-5.6.3")
    launcher = os.path.join(home, "bin", "ApacheJMeter.jar")
    if not os.path.isfile(launcher):
        print("differential: JMeter not found in %s, running fetch-jmeter.sh" % home, file=sys.stderr)
        env = dict(os.environ, JMETER_HOME=home)
        r = subprocess.run(["bash", os.path.join(HERE, "fetch-jmeter.sh")], env=env,
                           stdout=subprocess.DEVNULL)
        if r.returncode != 0 or not os.path.isfile(launcher):
            die("could not assemble JMeter in %s (see fetch-jmeter.sh's messages above)" % home)
    return launcher


def workdir_for(plan, parent, name):
    """A directory holding copies of the files beside the plan (stampede refuses a file reached
    through a symbolic link that leads out of the plan's directory); directories are linked."""
    d = os.path.join(parent, name)
    os.makedirs(d)
    src = os.path.dirname(os.path.abspath(plan))
    for entry in os.listdir(src):
        path = os.path.join(src, entry)
        if os.path.isfile(path):
            shutil.copy2(path, os.path.join(d, entry))
        else:
            os.symlink(path, os.path.join(d, entry))
    return d


def fill_port_in_file(value, plan_dir, port, tmp, counter=[0]):
    """If VALUE names an existing file holding `{port}`, a port-filled copy's path; else None."""
    for cand in (value, os.path.join(plan_dir, value)):
        if os.path.isfile(cand):
            try:
                with open(cand, encoding="utf-8") as f:
                    text = f.read()
            except (UnicodeDecodeError, OSError):
                return None
            if "{port}" not in text:
                return None
            counter[0] += 1
            out_dir = os.path.join(tmp, "data%d" % counter[0])
            os.makedirs(out_dir)
            out = os.path.join(out_dir, os.path.basename(cand))
            with open(out, "w", encoding="utf-8") as f:
                f.write(text.replace("{port}", str(port)))
            return out
    return None


def resolve_values(pairs, plan_dir, port, tmp):
    out = []
    for k, v in pairs:
        v = v.replace("{port}", str(port))
        filled = fill_port_in_file(v, plan_dir, port, tmp)
        out.append((k, filled if filled else v))
    return out


def run_cmd(cmd, cwd, timeout, log_path):
    with open(log_path, "wb") as log:
        log.write(("$ " + " ".join(cmd) + "\n").encode())
        log.flush()
        p = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            return None
    return rc


def tail(path, n=25):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def run_jmeter(launcher, plan, props, sets, work, timeout):
    d = workdir_for(plan, work, "jmeter")
    with open(plan, encoding="utf-8") as f:
        text = f.read()
    for token, value in sets:
        text = text.replace(token, value)
    copy = os.path.join(d, "plan.differential.jmx")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text)
    java = os.environ.get("JAVA", "java")
    cmd = [java, "-Dfile.encoding=UTF-8", "-jar", launcher, "-n", "-t", copy,
           "-l", os.path.join(d, "differential.jtl"), "-j", os.path.join(d, "jmeter.log")]
    cmd += ["-J%s=%s" % kv for kv in props]
    log = os.path.join(work, "jmeter.out")
    rc = run_cmd(cmd, d, timeout, log)
    if rc is None:
        die("JMeter did not finish within %ss; output: %s\n%s" % (timeout, log, tail(log)))
    if rc != 0:
        die("JMeter exited with %s; output:\n%s" % (rc, tail(log)))
    return log


def run_stampede(binary, plan, props, sets, work, timeout):
    d = workdir_for(plan, work, "stampede")
    copy = os.path.join(d, "plan.differential.jmx")
    shutil.copyfile(plan, copy)
    cmd = [binary, "run", copy, "-q", "--out", os.path.join(work, "stampede-run")]
    for k, v in props:
        cmd += ["-J", "%s=%s" % (k, v)]
    for k, v in sets:
        cmd += ["--set", "%s=%s" % (k, v)]
    log = os.path.join(work, "stampede.out")
    rc = run_cmd(cmd, d, timeout, log)
    if rc is None:
        die("stampede did not finish within %ss; output: %s\n%s" % (timeout, log, tail(log)))
    if rc != 0:
        # A run whose requests failed may exit non-zero; only a run that sent nothing is fatal.
        print("differential: note: stampede exited with %s (output: %s)" % (rc, log), file=sys.stderr)
    return log, rc


# --------------------------------------------------------------------------- comparison

def kind_of(req):
    path = req["target"].split("?", 1)[0]
    return (req["method"], path)


def query_of(req):
    t = req["target"]
    return t.split("?", 1)[1] if "?" in t else None


def header_map(req):
    """name (lower case) -> list of values, ignoring the ignored headers."""
    m = collections.OrderedDict()
    for k, v in req["headers"]:
        if k.lower() in IGNORED_HEADERS:
            continue
        m.setdefault(k.lower(), []).append(v)
    return m


def fmt_counter(c):
    return ", ".join("%r ×%d" % (v, n) if n > 1 else repr(v)
                     for v, n in sorted(c.items(), key=lambda x: repr(x[0])))


def show_body(b, limit=300):
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        s = repr(b)
    return s if len(s) <= limit else s[:limit] + "…(%d bytes)" % len(b)


def body_diff(a, b):
    def lines(x):
        try:
            s = x.decode("utf-8")
        except UnicodeDecodeError:
            s = repr(x)
        # Break long single-line bodies (JSON, forms) for a readable diff.
        for sep in ("&", ",", "\n"):
            if sep in s:
                return [p + (sep if i < s.count(sep) else "") for i, p in enumerate(s.split(sep))]
        return [s]
    d = list(difflib.unified_diff(lines(a), lines(b), "jmeter", "stampede", lineterm="", n=1))
    return d[:30]


def compare(jm, st):
    """Returns a list of report lines for differences (empty when none) and info lines."""
    diffs, info = [], []
    jk = collections.defaultdict(list)
    sk = collections.defaultdict(list)
    for r in jm:
        jk[kind_of(r)].append(r)
    for r in st:
        sk[kind_of(r)].append(r)
    # A kind sent by one tool only is paired with a one-sided kind of the other tool that has the
    # same method and count and the most similar path (e.g. `/api` vs `/api/`), so that the path
    # difference is reported and the headers and bodies are still compared.
    only_j = [k for k in jk if k not in sk]
    only_s = [k for k in sk if k not in jk]
    pairs = {}
    for k in sorted(only_j, key=lambda k: (k[1], k[0])):
        cands = [o for o in only_s if o[0] == k[0] and len(sk[o]) == len(jk[k]) and o not in pairs.values()]
        if cands:
            pairs[k] = max(cands, key=lambda o: difflib.SequenceMatcher(None, k[1], o[1]).ratio())
    for kj, ks in pairs.items():
        merged = (kj[0], "%s | stampede: %s" % (kj[1], ks[1]))
        jk[merged] = jk.pop(kj)
        sk[merged] = sk.pop(ks)
    kinds = sorted(set(jk) | set(sk), key=lambda k: (k[1], k[0]))
    info.append("requests: jmeter %d, stampede %d; connections: jmeter %d, stampede %d"
                % (len(jm), len(st), len({r["conn"] for r in jm}), len({r["conn"] for r in st})))
    for kind in kinds:
        a, b = jk.get(kind, []), sk.get(kind, [])
        name = "%s %s" % kind
        kd = []
        if " | stampede: " in kind[1]:
            pj, ps = kind[1].split(" | stampede: ", 1)
            name = "%s %s" % (kind[0], pj)
            kd.append("path: jmeter %r / stampede %r" % (pj, ps))
        if len(a) != len(b):
            kd.append("count: jmeter %d, stampede %d" % (len(a), len(b)))
        if not a or not b:
            diffs.append((name, kd))
            continue
        # Query strings (raw, as sent on the request line).
        qa = collections.Counter(query_of(r) for r in a)
        qb = collections.Counter(query_of(r) for r in b)
        if qa != qb:
            kd.append("query: jmeter [%s] / stampede [%s]" % (fmt_counter(qa - qb), fmt_counter(qb - qa)))
        va = collections.Counter(r["version"] for r in a)
        vb = collections.Counter(r["version"] for r in b)
        if va != vb:
            kd.append("HTTP version: jmeter [%s] / stampede [%s]" % (fmt_counter(va), fmt_counter(vb)))
        # Headers.
        ha = [header_map(r) for r in a]
        hb = [header_map(r) for r in b]
        names_a = collections.OrderedDict((n, None) for h in ha for n in h)
        names_b = collections.OrderedDict((n, None) for h in hb for n in h)
        for n in names_a:
            if n not in names_b:
                kd.append("header only in jmeter: %s: [%s]" % (n, fmt_counter(
                    collections.Counter("; ".join(h[n]) for h in ha if n in h))))
        for n in names_b:
            if n not in names_a:
                kd.append("header only in stampede: %s: [%s]" % (n, fmt_counter(
                    collections.Counter("; ".join(h[n]) for h in hb if n in h))))
        for n in names_a:
            if n not in names_b:
                continue
            ca = collections.Counter("; ".join(h[n]) if n in h else None for h in ha)
            cb = collections.Counter("; ".join(h[n]) if n in h else None for h in hb)
            if ca != cb:
                kd.append("header %s: jmeter [%s] / stampede [%s]" % (n, fmt_counter(ca - cb), fmt_counter(cb - ca)))
        # Header order (information only).
        oa = collections.Counter(tuple(k for k, _ in r["headers"]) for r in a)
        ob = collections.Counter(tuple(k for k, _ in r["headers"]) for r in b)
        if set(oa) != set(ob):
            info.append("%s: header order/case differs: jmeter %s / stampede %s"
                        % (name, " | ".join(", ".join(o) for o in oa), " | ".join(", ".join(o) for o in ob)))
        # Bodies.
        ba = collections.Counter(r["body"] for r in a)
        bb = collections.Counter(r["body"] for r in b)
        if ba != bb:
            only_a = list((ba - bb).elements())
            only_b = list((bb - ba).elements())
            kd.append("bodies differ: %d jmeter-only, %d stampede-only" % (len(only_a), len(only_b)))
            for x in sorted(set(only_a))[:3]:
                kd.append("  jmeter   body: %s" % show_body(x))
            for x in sorted(set(only_b))[:3]:
                kd.append("  stampede body: %s" % show_body(x))
            if only_a and only_b:
                best = max(only_b, key=lambda y: difflib.SequenceMatcher(None, only_a[0], y).ratio())
                kd.extend("  " + l for l in body_diff(only_a[0], best))
        diffs.append((name, kd))
    return diffs, info


def dump(reqs):
    out = []
    for r in reqs:
        d = dict(r)
        try:
            d["body"] = r["body"].decode("utf-8")
        except UnicodeDecodeError:
            d["body_hex"] = r["body"].hex()
            del d["body"]
        out.append(d)
    return out


def print_recording(label, reqs):
    print("== %s: %d requests" % (label, len(reqs)))
    for r in reqs:
        print("%s %s %s  [%s]" % (r["method"], r["target"], r["version"], r["conn"]))
        for k, v in r["headers"]:
            print("    %s: %s" % (k, v))
        if r["body"]:
            print("    body: %s" % show_body(r["body"], 500))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("plan")
    ap.add_argument("-J", dest="props", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="TOKEN=VALUE")
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--only-jmeter", action="store_true")
    ap.add_argument("--only-stampede", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true", help="print both recordings")
    args = ap.parse_args()

    plan = os.path.abspath(args.plan)
    if not os.path.isfile(plan):
        die("no plan file %s" % args.plan)
    props = [split_kv(p, "-J") for p in args.props]
    sets = [split_kv(s, "--set") for s in args.sets]

    launcher = None if args.only_stampede else find_jmeter()
    binary = None if args.only_jmeter else find_stampede()

    if args.keep:
        work = os.path.abspath(args.keep)
        if os.path.exists(work):
            shutil.rmtree(work)
        os.makedirs(work)
    else:
        work = tempfile.mkdtemp(prefix="stampede-differential-")

    srv = start_server()
    port = srv.server_address[1]
    try:
        plan_dir = os.path.dirname(plan)
        rprops = resolve_values(props, plan_dir, port, work)
        rsets = resolve_values(sets, plan_dir, port, work)
        print("plan: %s" % args.plan)
        print("recording server: 127.0.0.1:%d" % port)
        for k, v in rprops:
            print("  -J %s=%s" % (k, v))
        for k, v in rsets:
            print("  --set %s=%s" % (k, v))

        jm = st = None
        if launcher:
            srv.recorder.reset()
            t0 = time.time()
            run_jmeter(launcher, plan, rprops, rsets, work, args.timeout)
            time.sleep(0.3)
            jm = srv.recorder.snapshot()
            print("jmeter:   %d requests in %.1fs" % (len(jm), time.time() - t0))
        if binary:
            srv.recorder.reset()
            t0 = time.time()
            slog, _ = run_stampede(binary, plan, rprops, rsets, work, args.timeout)
            time.sleep(0.3)
            st = srv.recorder.snapshot()
            print("stampede: %d requests in %.1fs" % (len(st), time.time() - t0))
            if not st:
                print(tail(slog), file=sys.stderr)

        with open(os.path.join(work, "recordings.json"), "w") as f:
            json.dump({"port": port, "jmeter": dump(jm or []), "stampede": dump(st or [])}, f, indent=1)

        if jm is None or st is None or args.verbose:
            if jm is not None:
                print_recording("jmeter", jm)
            if st is not None:
                print_recording("stampede", st)
            if jm is None or st is None:
                return 0
        if not jm and not st:
            print("RESULT: neither tool sent a request: nothing compared (see %s)" % work)
            return 1

        diffs, info = compare(jm, st)
        print()
        for line in info:
            print("info: " + line)
        n = 0
        for name, kd in diffs:
            if kd:
                n += len([l for l in kd if not l.startswith("  ")])
                print("\n[DIFF] %s" % name)
                for l in kd:
                    print("  " + l)
            else:
                print("[same] %s" % name)
        print()
        if n:
            print("RESULT: %d difference(s); work directory: %s" % (n, work))
            return 1
        print("RESULT: the recordings agree (User-Agent and Connection ignored); work directory: %s" % work)
        return 0
    finally:
        srv.shutdown()
        srv.server_close()


if __name__ == "__main__":
    sys.exit(main())
