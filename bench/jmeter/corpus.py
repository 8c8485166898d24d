#!/usr/bin/env python3
"""Corpus-wide differential: every plan of a corpus run by JMeter 5.6.3 and by stampede.

    sudo python3 bench/jmeter/corpus.py CORPUS_DIR [--sets tests/corpus/sets.tsv] [--jobs 2]
        [--timeout 60] [--users 2] [--iterations 2] [--duration 20] [--sample N] [--only REGEX]
        [--out FILE.md] [--keep DIR]

Each plan (deduplicated by content hash) runs in a private network namespace of its own
(`unshare -n -m`, so it needs root): only `lo` is up, every literal IPv4 address the plan or
the files beside it name is added to `lo`, a private /etc/hosts (bind-mounted in the mount
namespace) maps every host name they name to 127.0.0.1, and one recording server listens on
every port they name plus 80 and 443, on all addresses. Nothing can leave the machine: the
namespace has no other interface (the script checks `ip -o addr` inside and refuses to run a
plan when anything but `lo` is there). A connection whose first byte is a TLS handshake is
terminated with a self-signed certificate (made once with `openssl`), and the request is
recorded with `tls: true`.

JMeter runs a copy of the plan with the `--set` replacements applied and, in every ThreadGroup /
SetupThreadGroup / PostThreadGroup, `num_threads`, `ramp_time`, the main controller's `loops`,
`scheduler=true` and `duration` rewritten to the bounds; stampede runs the plan with `--set`
and `--users --iterations --ramp-up --duration` (which override every thread group the same
way). A group whose `num_threads` is 0 (or a variable the plan never defines, which JMeter
reads as 0) keeps it: it runs no thread in either tool. The plugins' Ultimate, Stepping and
Concurrency Thread Groups become, in JMeter's copy, a plain ThreadGroup of the same name with
those bounds and the first `min(users, the schedule's users)` users, which is what stampede's
overrides make of them (the first users of the schedule, started evenly over the ramp-up, each
done after its iterations and not replaced); the Concurrency group's own `Iterations` would
otherwise renew users until its hold ends. An Arrivals group keeps its rate (cut at the
duration, concurrency capped). Both write a JTL. Then the recordings are compared as multisets of normalised requests
(method, path, query, body, headers but User-Agent, Connection, Content-Length and Keep-Alive),
and the JTLs as per-label (samples, errors) counts.

Normalised in every value (it differs from run to run): UUIDs, epoch milliseconds/seconds
(13/10 digits from 1.5e12/1.5e9), ISO-8601 date-times and HH:MM:SS clock times, multipart
boundaries. In plans that use a random source (__Random, __RandomString, __RandomDate,
__UUID-free random config: Random Variable) every run of digits is normalised too; requests of
plans with a Random / Random Order / Throughput (percent) controller or __RandomFromMultipleVars
are compared by count only (which request is sent is random there).

Prints a table (plan, JMeter requests, stampede requests, same?, cause) and the differences
grouped by cause; `--out FILE.md` also writes it, with the date, the commands and the commit.
Plans JMeter itself cannot load or run are listed as `skip`: that is not a difference.
"""

import argparse
import collections
import concurrent.futures
import csv
import difflib
import hashlib
import html
import http.server
import io
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import differential as D  # noqa: E402  (recording handler, tool discovery, run_cmd)

IGNORED_HEADERS = {"user-agent", "connection", "content-length", "keep-alive"}
THREAD_GROUPS = ("ThreadGroup", "SetupThreadGroup", "PostThreadGroup")
RANDOM_VALUES = re.compile(r"__Random\(|__RandomString\(|__RandomDate\(|RandomVariableConfig|__threadGroupName|"
                           r"__time\(|__timeShift\(|__javaScript|__groovy|__BeanShell|JSR223|BeanShell")
RANDOM_CHOICE = re.compile(r"RandomController|RandomOrderController|ThroughputController|__RandomFromMultipleVars|"
                           r"RuntimeController")


# --------------------------------------------------------------------------- plan scanning

DOMAIN = re.compile(r"(?<![\w.$@%/-])((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})\.)+[A-Za-z][A-Za-z0-9-]{1,62})(?![\w-])")
IPV4 = re.compile(r"(?<![\d.])((?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3})(?![\d.])")
URL = re.compile(r"(?i)\b(?:https?|wss?)://([A-Za-z0-9.-]+|\[[0-9a-f:]+\])(?::(\d{1,5}))?")
PROP = re.compile(r'<(?:stringProp|intProp|longProp) name="([^"]*)">([^<]*)<')
ARG = re.compile(r'<stringProp name="Argument.name">([^<]*)</stringProp>\s*<stringProp name="Argument.value">([^<]*)<')
P_FUNC = re.compile(r"__P(?:roperty)?\(\s*([^,()]*?)\s*,\s*([^,()]*?)\s*[,)]")
CSV_HOST = re.compile(r"(?im)^\s*\"?(https?)\"?\s*[,;\t|]\s*\"?([A-Za-z0-9.-]+)\"?\s*[,;\t|]\s*\"?(\d{1,5})\b")
HOST_PORT = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z0-9.-]*):(\d{2,5})(?![\d])")


def scan_text(text, hosts, ips, ports):
    for m in URL.finditer(text):
        hosts.add(m.group(1))
        if m.group(2):
            ports.add(int(m.group(2)))
    for m in DOMAIN.finditer(text):
        hosts.add(m.group(1))
    for m in IPV4.finditer(text):
        ips.add(m.group(1))
    for m in CSV_HOST.finditer(text):
        hosts.add(m.group(2))
        ports.add(int(m.group(3)))
    for m in HOST_PORT.finditer(text):
        hosts.add(m.group(1))
        ports.add(int(m.group(2)))
    pairs = PROP.findall(text) + ARG.findall(text) + P_FUNC.findall(text)
    for name, value in pairs:
        value = value.strip()
        if not value or "${" in value:
            continue
        low = name.lower()
        if "port" in low and value.isdigit():
            ports.add(int(value))
        elif re.search(r"host|domain|server|url|endpoint|base", low):
            if re.fullmatch(r"[A-Za-z0-9.-]+", value):
                hosts.add(value)


def scan_plan(text, plan_dir):
    """Host names, IPv4 addresses and ports the plan (after --set) and the files beside it name."""
    hosts, ips, ports = set(), set(), {80, 443}
    scan_text(text, hosts, ips, ports)
    for entry in sorted(os.listdir(plan_dir))[:200]:
        p = os.path.join(plan_dir, entry)
        if entry.endswith(".jmx") or not os.path.isfile(p) or os.path.getsize(p) > 2_000_000:
            continue
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                scan_text(f.read(), hosts, ips, ports)
        except OSError:
            pass
    hosts = {h.strip(".").lower() for h in hosts if IPV4.fullmatch(h) is None and not h.startswith("[")}
    hosts = {h for h in hosts if h and len(h) < 200 and not re.fullmatch(r"[\d.]+", h)}
    ips = {i for i in ips if not i.startswith(("0.", "127.", "224.", "239.", "255."))}
    ports = {p for p in ports if 0 < p < 65536}
    return sorted(hosts)[:3000], sorted(ips)[:256], sorted(ports)[:128]


UPLOAD = re.compile(r'<stringProp name="File\.path">([^<]+)</stringProp>')
CSV_DS = re.compile(r"<CSVDataSet\b[^>]*?(?:/>|>.*?</CSVDataSet>)", re.S)


# Stand-in values for the columns that say where to send: to the recorder (the port is one it
# listens on), so that the requests built from the other columns are sent and compared.
STUB_VALUES = {"protocol": "http", "scheme": "http", "host": "127.0.0.1", "hostname": "127.0.0.1",
               "domain": "127.0.0.1", "server": "127.0.0.1", "port": "8080"}


def csv_file_name(props, udv):
    """A CSV Data Set's file name after the plan's User Defined Variables and __P defaults."""
    name = props.get("filename", "").strip()
    name = re.sub(r"\$\{__P(?:roperty)?\(\s*[^,()]*,\s*([^,()]*?)\s*\)\}", r"\1", name)
    return re.sub(r"\$\{([^{}]+)\}", lambda v: udv.get(v.group(1), v.group(0)), name)


def stub_data_files(text, plan_dir):
    """[(relative path, text)]: a stand-in for each CSV Data Set file the plan names (after --set
    and its own User Defined Variables / __P defaults) that is not there, so that both tools read
    the same rows instead of both failing: a header line when the element takes its names from
    it, then 6 rows `name_1,...` (the variable names with the row number); and a line of text for
    each file an HTTP Request uploads."""
    udv = dict(ARG.findall(text))
    stubs = []
    for m in CSV_DS.finditer(text):
        el = m.group(0)
        props = dict(PROP.findall(el))
        name = csv_file_name(props, udv)
        if not name or "${" in name or os.path.isabs(name) or ".." in name.split("/"):
            continue
        name = os.path.normpath(name)
        if os.path.exists(os.path.join(plan_dir, name)) or any(n == name for n, _ in stubs):
            continue
        delim = props.get("delimiter", ",") or ","
        delim = "\t" if delim == "\\t" else delim
        names = [n.strip() for n in props.get("variableNames", "").split(",") if n.strip()]
        header = not names
        names = names or ["col1", "col2", "col3"]
        lines = ([delim.join(names)] if header or "ignoreFirstLine\">true" in el else [])
        lines += [delim.join(STUB_VALUES.get(n.lower(), "%s_%d" % (n, i)) for n in names) for i in range(1, 7)]
        stubs.append((name, "\n".join(lines) + "\n"))
    # A file an HTTP Request uploads: with it missing, JMeter sends the head and the part
    # headers of a multipart request before failing to open it, a half request no one wants.
    for name in set(UPLOAD.findall(text)):
        name = html.unescape(name).strip()
        if not name or "${" in name or os.path.isabs(name) or ".." in name.split("/"):
            continue
        name = os.path.normpath(name)
        if os.path.exists(os.path.join(plan_dir, name)) or any(n == name for n, _ in stubs):
            continue
        stubs.append((name, "stand-in upload %s\n" % name))
    return stubs


# --------------------------------------------------------------------------- JMeter's bounded copy

def set_prop(span, name, value):
    """Sets string/int/long prop NAME to VALUE in SPAN (the XML text of one element); adds it
    before the closing tag when missing."""
    pat = re.compile(r'<(stringProp|intProp|longProp|boolProp) name="%s"(?:/>|>[^<]*</\1>)' % re.escape(name))
    kind = "boolProp" if value in ("true", "false") else "stringProp"
    new = '<%s name="%s">%s</%s>' % (kind, name, value, kind)
    if pat.search(span):
        return pat.sub(lambda m: new, span)
    close = span.rfind("</")
    return span[:close] + new + span[close:]


UTG = "kg.apc.jmeter.threads.UltimateThreadGroup"
STEPPING = "kg.apc.jmeter.threads.SteppingThreadGroup"
CONCURRENCY = "com.blazemeter.jmeter.threads.concurrency.ConcurrencyThreadGroup"
ARRIVALS = "com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup"
BOUNDED = THREAD_GROUPS + (UTG, STEPPING, CONCURRENCY, ARRIVALS)


def own_prop(body, name, value):
    """Sets the thread group's own property NAME (not one inside its main controller or rows),
    adding it before the closing tag when missing."""
    masked = re.sub(r'<(elementProp|collectionProp)\b[^>]*?\bname="(?:ThreadGroup.main_controller|ultimatethreadgroupdata)"'
                    r'[^>]*?(?:/>|>.*?</\1>)', lambda x: "\1" * len(x.group(0)), body, flags=re.S)
    pat = re.compile(r'<(stringProp|intProp|longProp|boolProp) name="%s"(?:/>|>[^<]*</\1>)' % re.escape(name))
    hit = pat.search(masked)
    kind = "boolProp" if value in ("true", "false") else "stringProp"
    new = '<%s name="%s">%s</%s>' % (kind, name, value, kind)
    if hit:
        return body[:hit.start()] + new + body[hit.end():]
    close = body.rfind("</")
    return body[:close] + new + body[close:]


def runs_no_thread(value, text):
    """Whether a thread group's `num_threads` VALUE means no thread in JMeter: 0, or a lone
    `${name}` the plan never defines (JMeter reads the unreplaced text as 0)."""
    value = value.strip()
    if value == "0":
        return True
    m = re.fullmatch(r"\$\{([A-Za-z_][\w.-]*)\}", value)
    return bool(m) and re.search(r'>%s</stringProp>' % re.escape(m.group(1)), text) is None


def schedule_users(body, cls):
    """The users a plugin thread group's own schedule starts, or None when not a number."""
    def num(v):
        try:
            return int(float(v.strip()))
        except ValueError:
            return None
    if cls == UTG:
        rows = re.findall(r'<collectionProp name="[^"]*">\s*<stringProp name="[^"]*">([^<]*)</stringProp>', body)
        counts = [num(r) for r in rows]
        return None if not counts or None in counts else sum(counts)
    name = "TargetLevel" if cls == CONCURRENCY else "ThreadGroup.num_threads"
    m = re.search(r'<stringProp name="%s">([^<]*)<' % re.escape(name), body)
    return num(m.group(1)) if m else None


def plain_thread_group(head, body, cls, users, iterations, duration, ramp_up):
    """A plugin thread group (Ultimate, Stepping, Concurrency) as the plain ThreadGroup that
    stampede's overrides make of it: its first min(users, its own users) users, started evenly
    over the ramp-up, each done after its iterations (not replaced), all stopped at the duration."""
    name = re.search(r'testname="([^"]*)"', head)
    enabled = re.search(r'enabled="([^"]*)"', head)
    on_error = re.search(r'<stringProp name="ThreadGroup.on_sample_error">([^<]*)<', body)
    own = schedule_users(body, cls)
    n = users if own is None else min(users, own)
    return (
        '<ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="%s" enabled="%s">'
        '<stringProp name="ThreadGroup.on_sample_error">%s</stringProp>'
        '<elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" '
        'testclass="LoopController" testname="Loop Controller" enabled="true">'
        '<boolProp name="LoopController.continue_forever">false</boolProp>'
        '<stringProp name="LoopController.loops">%d</stringProp></elementProp>'
        '<stringProp name="ThreadGroup.num_threads">%d</stringProp>'
        '<stringProp name="ThreadGroup.ramp_time">%d</stringProp>'
        '<boolProp name="ThreadGroup.scheduler">true</boolProp>'
        '<stringProp name="ThreadGroup.duration">%d</stringProp>'
        '<stringProp name="ThreadGroup.delay"></stringProp></ThreadGroup>'
    ) % (name.group(1) if name else cls, enabled.group(1) if enabled else "true",
         on_error.group(1) if on_error else "continue", iterations, n, ramp_up, duration)


def bound_jmeter_plan(text, users, iterations, duration, ramp_up):
    """The plan with every thread group bounded as `stampede run --users --iterations --duration
    --ramp-up` bounds it: users (a group of no thread keeps none), ramp-up, loops of the main
    controller, a scheduler duration; the Ultimate, Stepping and Concurrency groups become plain
    ThreadGroups (see `plain_thread_group`); an Arrivals group keeps its rate, cut at the duration."""
    def tg(m):
        cls, span = m.group(1), m.group(0)
        head_end = span.index(">") + 1
        head, body = span[:head_end], span[head_end:]
        if head.endswith("/>"):
            return span
        # Any attribute order (Taurus writes elementType first).
        mc = re.search(r'<elementProp\b[^>]*\bname="ThreadGroup.main_controller"[^>]*>.*?</elementProp>', body, re.S)
        if mc:
            inner = set_prop(mc.group(0), "LoopController.loops", str(iterations))
            # "Continue forever" on the main controller ignores the count (as stampede's
            # --iterations does not): off, so that both tools run the same iterations.
            inner = set_prop(inner, "LoopController.continue_forever", "false")
            body = body[:mc.start()] + inner + body[mc.end():]
        if cls in THREAD_GROUPS:
            threads = re.search(r'<stringProp name="ThreadGroup.num_threads">([^<]*)<', body)
            props = (("ThreadGroup.ramp_time", str(ramp_up)), ("ThreadGroup.scheduler", "true"),
                     ("ThreadGroup.duration", str(duration)))
            if not (threads and runs_no_thread(threads.group(1), text)):
                props = (("ThreadGroup.num_threads", str(users)),) + props
        elif cls in (UTG, STEPPING, CONCURRENCY):
            return plain_thread_group(head, body, cls, users, iterations, duration, ramp_up)
        else:  # arrivals: the rate stays, the schedule is cut at the duration, concurrency capped
            props = (("RampUp", "0"), ("Steps", ""), ("Hold", str(duration)), ("Unit", "S"),
                     ("ConcurrencyLimit", str(users)))
        for name, value in props:
            body = own_prop(body, name, value)
        return head + body
    pat = re.compile(r"<(%s)\b[^>]*?(?:/>|>.*?</\1>)" % "|".join(re.escape(c) for c in BOUNDED), re.S)
    return pat.sub(tg, text)


# --------------------------------------------------------------------------- inner: one plan in its namespace

class DualServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    address_family = socket.AF_INET6
    request_queue_size = 128

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()

    def get_request(self):
        sock, addr = self.socket.accept()
        sock.settimeout(10)
        try:
            first = sock.recv(1, socket.MSG_PEEK)
        except OSError:
            first = b""
        tls = first == b"\x16"
        if tls and self.tls_context is not None:
            try:
                sock = self.tls_context.wrap_socket(sock, server_side=True)
            except (ssl.SSLError, OSError) as e:
                self.recorder.add({"method": "TLS-HANDSHAKE-FAILED", "target": str(e)[:80], "version": "",
                                   "headers": [], "body": b"", "conn": "%s:%s" % addr[:2], "time": time.time(),
                                   "tls": True, "port": self.server_address[1]})
                sock.close()
                raise OSError("tls handshake failed")
        sock.settimeout(30)
        return sock, addr


class Handler(D.Handler):
    def _handle(self):
        body = self._read_body()
        self.server.recorder.add({
            "method": self.command, "target": self.path, "version": self.request_version,
            "headers": [(k, v) for k, v in self.headers.items()], "body": body,
            "conn": "%s:%s" % self.client_address[:2], "time": time.time(),
            "tls": isinstance(self.connection, ssl.SSLSocket), "port": self.server.server_address[1],
        })
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Set-Cookie", "SID=s1; Path=/")
        self.send_header("Content-Length", str(len(D.RESPONSE_BODY)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(D.RESPONSE_BODY)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_TRACE = _handle


def sh(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def jtl_counts(path):
    """label -> [samples, errors] from a CSV JTL (header line), or None when there is none."""
    if not os.path.isfile(path):
        return None
    out = collections.defaultdict(lambda: [0, 0])
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        for row in csv.DictReader(f):
            label = row.get("label")
            if label is None:
                continue
            out[label][0] += 1
            if (row.get("success") or "").strip().lower() != "true":
                out[label][1] += 1
    return dict(out)


def inner(spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    work = spec["work"]
    result = {"plan": spec["rel"]}

    def finish():
        with open(os.path.join(work, "result.json"), "w") as f:
            json.dump(result, f)

    # The namespace: lo only, the plan's addresses on it, its host names on 127.0.0.1.
    sh(["ip", "link", "set", "lo", "up"])
    for ip in spec["ips"]:
        sh(["ip", "addr", "add", ip + "/32", "dev", "lo"])
    addr = sh(["ip", "-o", "addr"]).stdout
    ifaces = {line.split()[1].rstrip(":") for line in addr.splitlines() if line.strip()}
    result["interfaces"] = sorted(ifaces)
    if ifaces != {"lo"}:
        result["error"] = "the namespace has interfaces other than lo: %s" % sorted(ifaces)
        return finish()
    hosts = os.path.join(work, "hosts")
    with open(hosts, "w") as f:
        # The machine's own name too: JMeter resolves it at start (InetAddress.getLocalHost).
        f.write("127.0.0.1 localhost %s\n::1 localhost\n" % socket.gethostname())
        for h in spec["hosts"]:
            f.write("127.0.0.1 %s\n" % h)
    r = sh(["mount", "--bind", hosts, "/etc/hosts"])
    if r.returncode != 0:
        result["error"] = "cannot bind-mount /etc/hosts: " + r.stdout
        return finish()

    ctx = None
    if spec.get("cert"):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(spec["cert"], spec["key"])
    recorder = D.Recorder()
    servers = []
    for port in spec["ports"]:
        try:
            srv = DualServer(("::", port), Handler)
        except OSError as e:
            result.setdefault("port_errors", []).append("%d: %s" % (port, e))
            continue
        srv.recorder, srv.tls_context = recorder, ctx
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)

    def run_tool(name, cmd, cwd, jtl):
        """Runs one tool within the timeout; its requests, JTL counts and output into result."""
        t0 = time.time()
        rc = D.run_cmd(cmd, cwd, spec["timeout"], os.path.join(work, name + ".out"))
        result[name + "_seconds"] = round(time.time() - t0, 1)
        time.sleep(0.3)
        result[name + "_rc"] = rc
        result[name + "_requests"] = D.dump(recorder.snapshot())
        result[name + "_jtl"] = jtl_counts(jtl)
        result[name + "_out"] = D.tail(os.path.join(work, name + ".out"), 15)
        recorder.reset()

    def workdir(name):
        d = D.workdir_for(spec["plan"], work, name)
        for rel, content in spec.get("stubs", []):
            path = os.path.join(d, rel)
            if any(os.path.islink(os.path.join(d, *rel.split("/")[:i])) for i in range(1, rel.count("/") + 1)):
                continue  # inside a directory of the corpus: never write there
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)
        return d

    def jmeter(name):
        """JMeter's run of the bounded copy in a work directory NAME: (directory, command, JTL)."""
        jd = workdir(name)
        copy = os.path.join(jd, "plan.corpus.jmx")
        with open(copy, "w", encoding="utf-8") as f:
            f.write(spec["jmeter_text"])
        jtl = os.path.join(jd, "corpus.jtl")
        # C1 only and the serial collector: a short run starts faster; what is sent does not change.
        return jd, [os.environ.get("JAVA", "java"), "-Dfile.encoding=UTF-8", "-Djava.net.preferIPv4Stack=true",
                    "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-jar", spec["launcher"],
                    "-n", "-t", copy, "-l", jtl, "-j", os.path.join(jd, "jmeter.log")], jtl

    jd, cmd, jtl = jmeter("jmeter")
    run_tool("jmeter", cmd, jd, jtl)
    result["jmeter_log_errors"] = [line for line in D.tail(os.path.join(jd, "jmeter.log"), 400).splitlines()
                                   if " ERROR " in line][:10]

    if spec.get("self_check"):  # the other side is JMeter again: what differs is run-to-run noise
        sd, cmd, sjtl = jmeter("jmeter-again")
        run_tool("stampede", cmd, sd, sjtl)
        for srv in servers:
            srv.shutdown()
            srv.server_close()
        return finish()
    sd = workdir("stampede")
    scopy = os.path.join(sd, "plan.corpus.jmx")
    shutil.copyfile(spec["plan"], scopy)
    sjtl = os.path.join(sd, "corpus.jtl")
    cmd = [spec["stampede"], "run", scopy, "-q", "--out", os.path.join(work, "stampede-run"), "--jtl", sjtl,
           "--users", str(spec["users"]), "--iterations", str(spec["iterations"]),
           "--duration", "%ss" % spec["duration"], "--ramp-up", "%ss" % spec["ramp_up"]]
    for k, v in spec["sets"]:
        cmd += ["--set", "%s=%s" % (k, v)]
    run_tool("stampede", cmd, sd, sjtl)
    for srv in servers:
        srv.shutdown()
        srv.server_close()
    return finish()


# --------------------------------------------------------------------------- comparison

NORMALISERS = [
    (re.compile(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"), "<datetime>"),
    (re.compile(r"\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<time>"),
    (re.compile(r"(?<!\d)1[5-9]\d{11}(?!\d)"), "<epoch-ms>"),
    (re.compile(r"(?<!\d)1[5-9]\d{8}(?!\d)"), "<epoch-s>"),
]
DIGITS = re.compile(r"\d+")


def normalise(s, digits, rows=None):
    for pat, rep in NORMALISERS:
        s = pat.sub(rep, s)
    if rows:
        s = rows.sub(r"\1_<row>", s)
    if digits:
        s = DIGITS.sub("<n>", s)
    return s


def shared_rows(text, stubs):
    """A pattern of the stand-in values (`name_N`) of CSV Data Sets that several thread groups
    share (shareMode.all, the default), or None. JMeter hands their rows out in the order
    threads arrive, whatever group they are in, so which group's request gets which row differs
    between two JMeter runs too; their row numbers are compared as `name_<row>` (how many
    requests of each kind, and every other part of them, still count)."""
    groups = len(re.findall(r'testclass="(?:%s)"(?![^>]*enabled="false")' % "|".join(map(re.escape, BOUNDED)), text))
    if groups < 2 or not stubs:
        return None
    names, udv = [], dict(ARG.findall(text))
    for m in CSV_DS.finditer(text):
        props = dict(PROP.findall(m.group(0)))
        if os.path.normpath(csv_file_name(props, udv) or ".") not in stubs:
            continue
        if props.get("shareMode", "shareMode.all") != "shareMode.all":
            continue
        names += [n.strip() for n in props.get("variableNames", "").split(",")
                  if n.strip() and n.strip().lower() not in STUB_VALUES]
    if not names:
        return None
    return re.compile(r"\b(%s)_[1-6]\b" % "|".join(map(re.escape, sorted(set(names), key=len, reverse=True))))


def body_text(r):
    if "body" in r:
        return r["body"]
    return "hex:" + r.get("body_hex", "")


def norm_request(r, digits, rows=None):
    headers = []
    boundary = None
    for k, v in r["headers"]:
        kl = k.lower()
        if kl in IGNORED_HEADERS:
            continue
        if kl == "content-type" and "boundary=" in v:
            boundary = v.split("boundary=", 1)[1].split(";")[0].strip().strip('"')
            v = v.replace(boundary, "<boundary>")
        if kl == "host":
            v = v.lower()  # a host name is case-insensitive (JMeter keeps the plan's case)
        headers.append((kl, normalise(v, digits, rows)))
    body = body_text(r)
    if boundary:
        body = body.replace(boundary, "<boundary>")
    target = r["target"]
    path, _, query = target.partition("?")
    return (r["method"], normalise(path, digits, rows), normalise(query, digits, rows) if "?" in target else None,
            ("tls" if r.get("tls") else "plain") + ":%s" % r.get("port"),
            tuple(sorted(headers)), normalise(body, digits, rows))


FIELDS = ("method", "path", "query", "tls/port", "headers", "body")


def diff_causes(jm, st, digits, as_sets=False, rows=None):
    """Causes (short strings) why two recordings differ, and a few example lines.

    Requests are grouped by kind (method and normalised path); per kind, the number of requests
    and the multiset of each field (query, TLS/port, each header's values, body) are compared on
    their own, so that which thread sent which value (interleaving, `__threadNum` beside a shared
    counter) does not count, as in differential.py."""
    causes, examples = set(), []
    for side, reqs in (("JMeter", jm), ("stampede", st)):
        failed = [r for r in reqs if r["method"] == "TLS-HANDSHAKE-FAILED"]
        if failed:
            causes.add("TLS: %s rejects the recorder's self-signed certificate" % side)
            examples.append("%s: %d TLS handshakes failed: %s" % (side, len(failed), failed[0]["target"]))
    jm = [r for r in jm if r["method"] != "TLS-HANDSHAKE-FAILED"]
    st = [r for r in st if r["method"] != "TLS-HANDSHAKE-FAILED"]
    na = [norm_request(r, digits, rows) for r in jm]
    nb = [norm_request(r, digits, rows) for r in st]
    if as_sets:  # a run cut by the duration: how many depends on speed, not what
        na, nb = sorted(set(na)), sorted(set(nb))
    if collections.Counter(na) == collections.Counter(nb):
        return sorted(causes), examples
    ka, kb = collections.defaultdict(list), collections.defaultdict(list)
    for r in na:
        ka[r[:2]].append(r)
    for r in nb:
        kb[r[:2]].append(r)

    def note(cause, line):
        causes.add(cause)
        if len(examples) < 6:
            examples.append(line)

    only_a = [k for k in ka if k not in kb]
    only_b = [k for k in kb if k not in ka]
    pairs = []
    for k in sorted(only_a):
        cands = [o for o in only_b if o[0] == k[0] and len(kb[o]) == len(ka[k])]
        if cands:
            o = max(cands, key=lambda o: difflib.SequenceMatcher(None, k[1], o[1]).ratio())
            only_b.remove(o)
            note("path", "%s path: JMeter %r / stampede %r" % (k[0], k[1][:120], o[1][:120]))
            pairs.append((k, ka[k], kb[o]))
        else:
            note("request only sent by JMeter", "only JMeter: %d × %s %s" % (len(ka[k]), k[0], k[1][:120]))
    for o in only_b:
        note("request only sent by stampede", "only stampede: %d × %s %s" % (len(kb[o]), o[0], o[1][:120]))
    pairs += [(k, ka[k], kb[k]) for k in sorted(ka) if k in kb]
    for k, a, b in pairs:
        name = "%s %s" % (k[0], k[1][:60])
        if len(a) != len(b):
            note("request count", "%s: JMeter %d / stampede %d requests" % (name, len(a), len(b)))
            continue
        for i, field in ((2, "query"), (3, "tls/port"), (5, "body")):
            ca, cb = collections.Counter(r[i] for r in a), collections.Counter(r[i] for r in b)
            if ca != cb:
                x, y = sorted(map(str, (ca - cb).elements())), sorted(map(str, (cb - ca).elements()))
                note(field, "%s: %s: JMeter %r / stampede %r" % (name, field, (x[:1] or [""])[0][:200],
                                                               (y[:1] or [""])[0][:200]))
        names = sorted({h for r in a + b for h, _ in r[4]})
        for h in names:
            ca = collections.Counter(tuple(v for n, v in r[4] if n == h) for r in a)
            cb = collections.Counter(tuple(v for n, v in r[4] if n == h) for r in b)
            if ca != cb:
                x, y = sorted((ca - cb).elements()), sorted((cb - ca).elements())
                note("header %s" % h, "%s: header %s: JMeter %r / stampede %r"
                     % (name, h, x[:1] and x[0], y[:1] and y[0]))
    return sorted(causes), examples


JMETER_LOAD_ERRORS = re.compile(r"Problem loading XML|Error in NonGUIDriver|CannotResolveClassException|"
                                r"ConversionException|NoClassDefFoundError|ClassNotFoundException|"
                                r"An error occurred|Error loading")


def jmeter_skip_reason(res):
    out = (res.get("jmeter_out") or "") + "\n".join(res.get("jmeter_log_errors") or [])
    if res.get("jmeter_rc") is None:
        return "JMeter did not finish within the timeout"
    m = re.search(r"CannotResolveClassException: ([\w.$]+)", out)
    if m:
        return "JMeter cannot load class %s (plugin not installed)" % m.group(1)
    if res.get("jmeter_rc") != 0 or (JMETER_LOAD_ERRORS.search(out) and res.get("jmeter_jtl") is None):
        line = next((l for l in out.splitlines() if JMETER_LOAD_ERRORS.search(l)), "exit %s" % res.get("jmeter_rc"))
        return "JMeter cannot load/run the plan: " + line.strip()[:160]
    return None


def classify(res, text):
    """(status, cause, examples) of one plan's result: status same / differ / skip / error."""
    if res.get("error"):
        return "error", res["error"], []
    reason = jmeter_skip_reason(res)
    if reason:
        return "skip", reason, []
    if res.get("stampede_rc") is None:
        return "differ", "stampede did not finish within the timeout", []
    jm, st = res["jmeter_requests"], res["stampede_requests"]
    sout = res.get("stampede_out") or ""
    if res.get("stampede_rc") == 2 and not st:
        # The first problem (a refusal may list several after "error: PLAN: N problems:").
        lines = [l.strip() for l in sout.splitlines() if l.strip()]
        err = next((l for l in lines if l.startswith("error") and not re.search(r"\d+ problems:$", l)), "")
        err = err or next((l for l in lines if "<" in l and not l.startswith("error")), "")
        err = err or (lines or ["exit 2"])[-1]
        err = re.sub(r"/\S*/", "", err)
        unsupported = re.search(r"<([\w.$]+)>[^<]*(?:is )?not supported", sout)
        if unsupported:
            err = "<%s> is not supported" % unsupported.group(1)
        else:  # the kind of error, not which element: names and lines out
            err = re.sub(r'"[^"]*"', '"…"', re.sub(r"\S*\.jmx(:\d+)*", "PLAN", err))
        err = err[:200]
        samples = sum(n for n, _ in (res.get("jmeter_jtl") or {}).values())
        if jm or samples:
            return "differ", "stampede refuses a plan JMeter runs (%d samples): %s" % (samples, err), []
        return "none", "neither sends nor samples (stampede refuses: %s)" % err, []
    if not jm and not st and not res.get("jmeter_jtl") and not res.get("stampede_jtl"):
        return "none", "neither sends nor samples", []
    digits = bool(RANDOM_VALUES.search(text))
    if RANDOM_CHOICE.search(text):
        if len(jm) == len(st):
            return "same", "random choice: compared by count only", []
        return "differ", "request count (random choice: compared by count only)", []
    # A run that lasted the whole duration was cut by it: how many requests it sent depends on
    # each tool's speed; what it sent is still compared (as sets).
    limit = res.get("duration") or 20
    time_bound = any(len(reqs) > 1 and reqs[-1]["time"] - reqs[0]["time"] >= 0.8 * limit for reqs in (jm, st))
    rows = shared_rows(text, res.get("stubs") or [])
    causes, examples = diff_causes(jm, st, digits, as_sets=time_bound, rows=rows)
    # Per-label samples and errors.
    jj, sj = res.get("jmeter_jtl") or {}, res.get("stampede_jtl") or {}
    label_diffs = []
    for label in sorted(set(jj) | set(sj)) if not time_bound else []:
        x, y = jj.get(label, [0, 0]), sj.get(label, [0, 0])
        if list(x) != list(y):
            label_diffs.append("%s: JMeter %d samples/%d errors, stampede %d/%d" % (label[:60], x[0], x[1], y[0], y[1]))
    if label_diffs:
        causes.append("samples/errors per label")
        examples += label_diffs[:4]
    if not causes:
        notes = (["random values normalised"] if digits else []) + (
            ["rows of data shared by thread groups compared without their numbers"] if rows else []) + (
            ["cut by the duration: compared as sets (JMeter %d, stampede %d requests)" % (len(jm), len(st))]
            if time_bound else [])
        return "same", "; ".join(notes), []
    if time_bound:
        causes.append("(cut by the duration: compared as sets)")
    return "differ", ", ".join(causes), examples


# --------------------------------------------------------------------------- outer

def load_sets(path, corpus):
    sets = {}
    if not path:
        return sets
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if not cells[0]:
                continue
            pairs = []
            for c in cells[1:]:
                if "=" in c:
                    k, v = c.split("=", 1)
                    pairs.append((k, v.replace("{corpus}", corpus)))
            sets[cells[0]] = pairs
    return sets


def make_cert(d):
    cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
    r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "2", "-subj", "/CN=localhost"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (cert, key) if r.returncode == 0 else (None, None)


def find_jmeter_full():
    """JMETER_HOME's launcher, else the --full assembly (JMeter with every protocol module and
    the common jmeter-plugins: fetch-jmeter.sh --full assembles it when missing)."""
    if os.environ.get("JMETER_HOME"):
        return D.find_jmeter()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    home = os.path.join(cache, "stampede", "jmeter-5.6.3-full")
    launcher = os.path.join(home, "bin", "ApacheJMeter.jar")
    if not os.path.isfile(launcher):
        print("corpus: assembling JMeter with plugins in %s (fetch-jmeter.sh --full)" % home, file=sys.stderr)
        r = subprocess.run(["bash", os.path.join(HERE, "fetch-jmeter.sh"), "--full"], stdout=subprocess.DEVNULL)
        if r.returncode != 0 or not os.path.isfile(launcher):
            D.die("could not assemble JMeter in %s (see fetch-jmeter.sh's messages above)" % home)
    return launcher


def run_one(args, idx, plan, rel, sets, launcher, binary, cert, key, root):
    work = os.path.join(root, "%04d" % idx)
    os.makedirs(work)
    with open(plan, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for k, v in sets:
        text = text.replace(k, v)
    hosts, ips, ports = scan_plan(text, os.path.dirname(plan))
    stubs = stub_data_files(text, os.path.dirname(plan)) if args.stub_data else []
    if stubs and 8080 not in ports:
        ports.append(8080)
    spec = {"stubs": stubs,
        "plan": plan, "rel": rel, "work": work, "sets": sets, "hosts": hosts, "ips": ips, "ports": ports,
        "jmeter_text": bound_jmeter_plan(text, args.users, args.iterations, args.duration, args.ramp_up),
        "launcher": launcher, "stampede": binary, "cert": cert, "key": key, "timeout": args.timeout,
        "self_check": args.self_check,
        "users": args.users, "iterations": args.iterations, "duration": args.duration, "ramp_up": args.ramp_up,
    }
    spec_path = os.path.join(work, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    cmd = ["unshare", "-n", "-m", "--propagation", "private", sys.executable, os.path.abspath(__file__),
           "--inner", spec_path]
    t0 = time.time()
    rc = D.run_cmd(cmd, work, 2 * args.timeout + 30, os.path.join(work, "inner.out"))
    try:
        with open(os.path.join(work, "result.json")) as f:
            res = json.load(f)
    except (OSError, ValueError):
        res = {"plan": rel, "error": "the namespace run failed (rc %s): %s" % (rc, D.tail(os.path.join(work, "inner.out"), 5)[-300:])}
    res["seconds"] = round(time.time() - t0, 1)
    res["ports"], res["hosts_n"], res["ips"], res["duration"] = ports, len(hosts), ips, args.duration
    res["stubs"] = [n for n, _ in stubs]
    with open(os.path.join(work, "result.json"), "w") as f:
        json.dump(res, f)
    row = row_of(res, text)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return row


def row_of(res, text):
    """One line of the report from a plan's result (TEXT: the plan, `--set` values applied)."""
    status, cause, examples = classify(res, text)
    seconds = res.get("seconds") or (res.get("jmeter_seconds", 0) + res.get("stampede_seconds", 0))
    groups = [cause] if cause.startswith("stampede ") or status != "differ" else cause.split(", ")
    groups = [re.sub(r" \(\d+ samples\)", "", g) for g in groups]
    if res.get("stubs"):
        cause = (cause + "; " if cause else "") + "stand-in data: " + ", ".join(res["stubs"])
    return {"plan": res["plan"], "status": status, "cause": cause, "groups": groups, "examples": examples, "seconds": seconds,
            "jmeter": len(res.get("jmeter_requests") or []), "stampede": len(res.get("stampede_requests") or []),
            "interfaces": res.get("interfaces")}


def rows_from(keep):
    """The rows of a run kept with --keep, classified again (no tool is run)."""
    rows = []
    for d in sorted(os.listdir(keep)):
        try:
            with open(os.path.join(keep, d, "spec.json")) as f:
                spec = json.load(f)
            with open(os.path.join(keep, d, "result.json")) as f:
                res = json.load(f)
        except (OSError, ValueError):
            continue
        res.setdefault("plan", spec["rel"])
        res.setdefault("duration", spec["duration"])
        res.setdefault("stubs", [n for n, _ in spec.get("stubs", [])])
        rows.append(row_of(res, spec["jmeter_text"]))
    return sorted(rows, key=lambda r: r["plan"])


def unique_plans(corpus):
    """([(path, path relative to CORPUS)], number of duplicates): every .jmx under CORPUS, sorted by
    path, the later copies of a content (by SHA-256) left out."""
    plans, seen, dupes = [], set(), 0
    for dirpath, dirs, files in os.walk(corpus, followlinks=True):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".jmx"):
                continue
            p = os.path.join(dirpath, name)
            with open(p, "rb") as f:
                h = hashlib.sha256(f.read()).hexdigest()
            if h in seen:
                dupes += 1
                continue
            seen.add(h)
            plans.append((p, os.path.relpath(p, corpus)))
    return sorted(plans, key=lambda x: x[1]), dupes


def report_paths(text):
    """TEXT with the paths of the machine that wrote it made relative: the repository's own files
    relative to its root, a corpus as `<corpus>/`, anything else absolute as `<tmp>/`. Reports are
    committed and read elsewhere, where those directories mean nothing (a test checks it)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    text = text.replace(root + "/", "")
    text = re.sub(r"(?<![\w.~>-])/(?:[\w.-]+/)*corpus/", "<corpus>/", text)
    return re.sub(r"(?<![\w.~>-])/(?:tmp|work|root|home)/", "<tmp>/", text)


def write_outputs(out, text, columns, cells):
    """Writes the markdown report to OUT and the table as a .tsv beside it (when OUT is given)."""
    if not out:
        return
    with open(out, "w") as f:
        f.write(report_paths(text))
    with open(os.path.splitext(out)[0] + ".tsv", "w") as f:
        for row in [columns] + cells:
            f.write(report_paths("\t".join(str(c).replace("\t", " ").replace("\n", " ") for c in row)) + "\n")


def git_commit(binary):
    """(`stampede --version`, "the commit": the last commit of this checkout that touched stampede's
    sources, src/ and Cargo.*, which is what a binary built here runs; STAMPEDE_COMMIT overrides)."""
    r = sh([binary, "--version"])
    c = subprocess.run(["git", "-C", REPO, "log", "-1", "--format=%h", "--", "src", "Cargo.toml", "Cargo.lock"],
                       stdout=subprocess.PIPE, text=True)
    return (r.stdout.strip(), os.environ.get("STAMPEDE_COMMIT") or c.stdout.strip())


def report(rows, header):
    out = io.StringIO()
    w = out.write
    w(header)
    counts = collections.Counter(r["status"] for r in rows)
    ran = counts["same"] + counts["differ"]
    refused = sum(1 for r in rows if r["status"] == "differ" and r["cause"].startswith("stampede refuses"))
    both = ran - refused
    w("\n%d plans: %d same, %d differ, %d where neither tool sends or samples anything, %d skipped (JMeter "
      "cannot load/run them), %d harness errors. Of the %d plans JMeter runs and that send or sample: "
      "**%d same (%.1f%%)**.\n\n"
      % (len(rows), counts["same"], counts["differ"], counts["none"], counts["skip"], counts["error"], ran,
         counts["same"], 100.0 * counts["same"] / ran if ran else 0))
    w("Of the %d plans both tools run (JMeter runs them and stampede does not refuse them): **%d same (%.1f%%)**.\n\n"
      % (both, counts["same"], 100.0 * counts["same"] / both if both else 0))
    w("| plan | JMeter requests | stampede requests | same? | cause |\n|---|---:|---:|---|---|\n")
    for r in rows:
        w("| %s | %d | %d | %s | %s |\n" % (r["plan"], r["jmeter"], r["stampede"], r["status"],
                                          r["cause"].replace("|", "\\|")))
    groups = collections.defaultdict(list)
    for r in rows:
        if r["status"] == "differ":
            for c in r["groups"]:
                groups[c].append(r)
    w("\n## Differences grouped by cause\n")
    for cause, rs in sorted(groups.items(), key=lambda x: (-len(x[1]), x[0])):
        w("\n### %s (%d plans)\n\n" % (cause, len(rs)))
        for r in rs:
            w("- %s\n" % r["plan"])
            for e in r["examples"][:4]:
                w("  - `%s`\n" % e.replace("`", "'"))
    skips = collections.Counter(r["groups"][0] for r in rows if r["status"] == "skip")
    if skips:
        w("\n## Skipped: JMeter itself cannot load or run them\n\n")
        for c, n in skips.most_common():
            w("- %d × %s\n" % (n, c))
    return out.getvalue()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--inner":
        inner(sys.argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("corpus")
    ap.add_argument("--sets", help="TSV: plan path relative to CORPUS, then TOKEN=value cells ({corpus} = CORPUS)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=90, help="seconds per tool per plan (default 90)")
    ap.add_argument("--users", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--duration", type=int, default=20, help="seconds (default 20)")
    ap.add_argument("--ramp-up", type=int, default=1, help="seconds (default 1)")
    ap.add_argument("--sample", type=int, help="run every k-th deduplicated plan (sorted by path) to run about N")
    ap.add_argument("--only", help="regex on the plan's relative path")
    ap.add_argument("--self-check", action="store_true",
                    help="run JMeter twice instead (the 'stampede' columns are JMeter's second run): "
                         "how much the comparison sees between two runs of the same tool")
    ap.add_argument("--no-stub-data", dest="stub_data", action="store_false",
                    help="do not stand in for missing CSV Data Set files")
    ap.add_argument("--out", help="write the report (markdown) here too, and a .tsv beside it")
    ap.add_argument("--keep", help="keep every plan's work directory under DIR")
    ap.add_argument("--from", dest="from_dir", metavar="DIR",
                    help="no run: report again on the work directories a run kept with --keep DIR")
    args = ap.parse_args()
    if args.from_dir:
        binary = D.find_stampede()
        version, commit = git_commit(binary)
        rows = rows_from(args.from_dir)
        kept = os.path.join(args.from_dir, "header.md")  # the run's own header, when it wrote one
        if os.path.isfile(kept):
            with open(kept) as f:
                header = f.read() + "- report: made again from the kept run: `%s`\n" % " ".join(
                    ["python3", "bench/jmeter/corpus.py"] + sys.argv[1:])
        else:
                header = ("# JMeter 5.6.3 vs stampede: %s\n\n- date: %s (report); the run: see its work directories\n"
                      "- stampede: %s (commit %s)\n- command: `%s`\n- plans: %d\n"
                      % (os.path.basename(os.path.abspath(args.corpus)),
                         time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), version, commit,
                         " ".join(["python3", "bench/jmeter/corpus.py"] + sys.argv[1:]), len(rows)))
        text = report(rows, header)
        print(text)
        write_outputs(args.out, text, ["plan", "jmeter_requests", "stampede_requests", "status", "cause", "seconds"],
                      [[r["plan"], r["jmeter"], r["stampede"], r["status"], r["cause"], "%.1f" % r["seconds"]]
                       for r in rows])
        return 0
    if os.geteuid() != 0:
        D.die("needs root for unshare -n -m (network and mount namespaces)")

    corpus = os.path.abspath(args.corpus)
    sets = load_sets(args.sets, corpus)
    plans, dupes = unique_plans(corpus)
    plans.sort(key=lambda x: x[1])
    if args.only:
        plans = [p for p in plans if re.search(args.only, p[1])]
    total = len(plans)
    if args.sample and args.sample < len(plans):
        step = len(plans) / args.sample
        plans = [plans[int(i * step)] for i in range(args.sample)]

    launcher, binary = find_jmeter_full(), D.find_stampede()
    if args.keep:
        root = os.path.abspath(args.keep)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
    else:
        root = tempfile.mkdtemp(prefix="stampede-corpus-")
    cert, key = make_cert(root)
    version, commit = git_commit(binary)
    print("corpus: %s: %d plans after removing %d duplicates (by content hash); running %d, %d at a time"
          % (corpus, total, dupes, len(plans), args.jobs), file=sys.stderr)
    rows = [None] * len(plans)
    # Run in a fixed pseudo-random order (by the hash of the path), so that a run cut short
    # (Ctrl-C, SIGTERM: the report is still written) is a sample spread over the corpus.
    order = sorted(range(len(plans)), key=lambda i: hashlib.sha256(plans[i][1].encode()).hexdigest())
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    ex = concurrent.futures.ThreadPoolExecutor(args.jobs)
    futs = {ex.submit(run_one, args, i, plans[i][0], plans[i][1], sets.get(plans[i][1], []), launcher, binary,
                      cert, key, root): i for i in order}
    interrupted = False
    try:
        for n, fut in enumerate(concurrent.futures.as_completed(futs), 1):
            i = futs[fut]
            try:
                rows[i] = fut.result()
            except Exception as e:  # one plan's harness failure is a row, not the end of the run
                rows[i] = {"plan": plans[i][1], "status": "error", "cause": "harness: %r" % e, "examples": [],
                           "groups": ["harness error"],
                           "seconds": 0, "jmeter": 0, "stampede": 0, "interfaces": None}
            r = rows[i]
            print("[%d/%d] %-6s %5.1fs %s: %d/%d %s" % (n, len(plans), r["status"], r["seconds"], r["plan"],
                                                      r["jmeter"], r["stampede"], r["cause"][:120]),
                  file=sys.stderr)
    except KeyboardInterrupt:
        interrupted = True
        ex.shutdown(wait=False, cancel_futures=True)
    else:
        ex.shutdown()
    done = [r for r in rows if r is not None]
    if interrupted:
        print("corpus: interrupted: reporting the %d plans of %d that finished" % (len(done), len(plans)),
              file=sys.stderr)
    rows = done
    other = ("JMeter 5.6.3 (`--self-check`: the \"stampede\" columns are JMeter's second run)"
             if args.self_check else "stampede")
    header = ("# JMeter 5.6.3 vs %s: %s\n\n- date: %s\n- stampede: %s (commit %s)\n- JMeter: %s\n- command: `%s`\n"
              "- bounds: %d users, %d iterations, %ds duration, %ds ramp-up per thread group; %ds per tool per plan\n"
              "- plans: %d after removing %d duplicates by content hash; run: %d%s%s\n"
              "- namespace interfaces seen: %s\n"
              % (other, os.path.basename(corpus), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), version, commit,
                 os.path.dirname(os.path.dirname(launcher)).replace(os.path.expanduser("~"), "~"),
                 " ".join(["python3", "bench/jmeter/corpus.py"] + sys.argv[1:]), args.users, args.iterations,
                 args.duration, args.ramp_up, args.timeout, total, dupes, len(plans),
                 " (deterministic sample: every %.2fth plan by path)" % (total / len(plans)) if len(plans) < total else "",
                 "; **interrupted: %d of them finished** (run in the order of the SHA-256 of their path)" % len(rows)
                 if interrupted else "",
                 sorted({",".join(r["interfaces"] or ["?"]) for r in rows})))
    if args.keep:
        with open(os.path.join(root, "header.md"), "w") as f:
            f.write(header)
    text = report(rows, header)
    print(text)
    write_outputs(args.out, text, ["plan", "jmeter_requests", "stampede_requests", "status", "cause", "seconds"],
                  [[r["plan"], r["jmeter"], r["stampede"], r["status"], r["cause"], "%.1f" % r["seconds"]] for r in rows])
    if not args.keep and not interrupted:
        shutil.rmtree(root, ignore_errors=True)
    if interrupted:
        os._exit(130)
    return 0


if __name__ == "__main__":
    sys.exit(main())
