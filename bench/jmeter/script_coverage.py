#!/usr/bin/env python3
"""How many script elements and script functions of a corpus load in stampede (issue 14).

    python3 bench/jmeter/script_coverage.py [CORPUS_DIR ...] [--stampede BIN] [--jobs 2]
        [--out FILE.md]

Default corpora: /work/shared/corpus/public-jmx and /work/shared/corpus/sunbird-perf-tests.

Definitions (each .jmx plan, recursively; duplicates by content hash counted once):

- script element: an enabled element whose class is JSR223*, BeanShell* or BSF* (samplers,
  pre- and post-processors, assertions, timers, listeners) with a non-empty script or script
  file, under enabled parents. Its language is `scriptLanguage` (JSR223: empty is groovy; BSF:
  as written; BeanShell: beanshell); its place is its kind (PreProcessor, Sampler, ...).
- loads: `stampede check PLAN --skip-unsupported --format json` lists the element (matched by
  its line in the file) as supported or partial. Skipped, unsupported or ignored elements, and
  every element of a plan that check refuses as a whole, do not load.
- script function: each `${__groovy(`, `${__BeanShell(`, `${__javaScript(`, `${__jexl3(` or
  `${__jexl2(` in the file; it loads when check read the plan and no problem and no element
  that did not load names that function.

Prints the figures by language and place, the reasons elements do not load by frequency, and
writes them to --out when given.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_CORPORA = ["/work/shared/corpus/public-jmx", "/work/shared/corpus/sunbird-perf-tests"]
SCRIPT_CLASS = re.compile(r"^(JSR223|BeanShell|BSF)(\w*)$")
FUNC = re.compile(r"\$\{__(groovy|BeanShell|javaScript|jexl3|jexl2)\(")
OPEN_TAG = re.compile(r"<([\w.]+)\s[^>]*?testclass=\"([\w.]+)\"")
sys.path.insert(0, HERE)
from corpus import report_paths  # noqa: E402


def script_elements(text):
    """[(line, class, name, language, place)] of the enabled script elements with a script, in
    file order, from the XML (enabled parents only)."""
    try:
        root = ET.fromstring(text.encode("utf-8"))
    except ET.ParseError:
        return None
    found = []

    def walk(tree, on):
        kids = list(tree)
        for i, el in enumerate(kids):
            if el.tag == "hashTree":
                continue
            sub = kids[i + 1] if i + 1 < len(kids) and kids[i + 1].tag == "hashTree" else None
            here = on and el.get("enabled", "true") != "false"
            cls = (el.get("testclass") or el.tag).split(".")[-1]
            m = SCRIPT_CLASS.match(cls)
            if here and m:
                props = {p.get("name"): (p.text or "") for p in el.iter("stringProp")}
                script = props.get("script", "") or props.get("BeanShellSampler.query", "")
                script = script or props.get("BeanShellAssertion.query", "") or props.get("query", "")
                fname = props.get("filename", "") or props.get("BeanShellSampler.filename", "")
                fname = fname or props.get("BeanShellAssertion.filename", "")
                if script.strip() or fname.strip():
                    if m.group(1) == "BeanShell":
                        lang = "beanshell"
                    else:
                        lang = props.get("scriptLanguage", "").strip().lower() or "groovy"
                    place = m.group(2) or "Sampler"
                    found.append((cls, el.get("testname", ""), lang, place, "file" if not script.strip() else "inline"))
            if sub is not None:
                walk(sub, here)

    for top in root:
        if top.tag == "hashTree":
            walk(top, True)
    # Lines: the n-th opening tag of each class, in file order.
    lines = collections.defaultdict(list)
    for m in OPEN_TAG.finditer(text):
        lines[m.group(2).split(".")[-1]].append(text.count("\n", 0, m.start()) + 1)
    # ElementTree has no line numbers: match the n-th element of a class with the n-th tag of
    # that class in the text (disabled ones included, so count all).
    all_of = collections.defaultdict(list)

    def walk_all(tree):
        for el in tree:
            if el.tag != "hashTree":
                c = (el.get("testclass") or el.tag).split(".")[-1]
                all_of[c].append(el)
            walk_all(el) if el.tag == "hashTree" else None

    walk_all(root)
    out = []
    used = collections.Counter()
    for cls, name, lang, place, kind in found:
        # The first element of this class and name not yet matched.
        idx = None
        for i, el in enumerate(all_of[cls]):
            if el.get("testname", "") == name and i >= used[(cls, name)]:
                idx = i
                break
        used[(cls, name)] = (idx or 0) + 1
        line = lines[cls][idx] if idx is not None and idx < len(lines[cls]) else None
        out.append((line, cls, name, lang, place, kind))
    return out


def check(binary, path):
    cmd = [binary, "check", path, "--skip-unsupported", "--format", "json"]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120,
                           errors="replace", cwd=os.path.dirname(path))
    except subprocess.TimeoutExpired:
        return None, ["check did not finish within 120 s"]
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        return None, [err]
    problems = ["%s%s" % (q.get("element", "") + ": " if q.get("element") else "", q.get("message", ""))
                for q in doc.get("problems") or []]
    return doc.get("elements") or [], problems


def generic(reason):
    r = re.sub(r"line \d+, column \d+", "line L, column C", reason)
    r = re.sub(r"`[^`]{40,}`", "`…`", r)
    r = re.sub(r"\"[^\"]*\"", "\"…\"", r)
    return r[:200]


def one(binary, path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    els = script_elements(text)
    funcs = [m.group(1) for m in FUNC.finditer(text)]
    if not els and not funcs:
        return None
    if els is None:
        return {"plan": path, "elements": [], "functions": [], "invalid": True}
    elements, problems = check(binary, path)
    by_line = {e.get("line"): e for e in elements or []}
    res = {"plan": path, "elements": [], "functions": []}
    unloaded_notes = []
    for line, cls, name, lang, place, kind in els:
        e = by_line.get(line)
        if elements is None:
            status, why = "refused", problems[0] if problems else "check failed"
        elif e is None:
            status, why = "refused", problems[0] if problems else "not listed by check"
        else:
            status = str(e.get("status", "")).lower()
            why = e.get("note", "")
        ok = status in ("supported", "partial")
        if not ok:
            unloaded_notes.append(why)
        res["elements"].append({"line": line, "class": cls, "name": name, "lang": lang, "place": place,
                                "kind": kind, "loads": ok, "status": status, "why": "" if ok else why})
    for fn in funcs:
        named = [t for t in problems + unloaded_notes if "__" + fn in t]
        ok = elements is not None and not named
        why = "" if ok else (named[0] if named else (problems[0] if problems else "check failed"))
        res["functions"].append({"function": fn, "loads": ok, "why": why})
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("corpora", nargs="*", default=DEFAULT_CORPORA)
    ap.add_argument("--stampede", default=os.path.join(REPO, "target", "release", "stampede"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out")
    a = ap.parse_args()
    a.stampede = os.path.abspath(a.stampede)
    if not os.path.exists(a.stampede):
        alt = os.path.join(REPO, "target", "debug", "stampede")
        if os.path.exists(alt):
            a.stampede = alt
        else:
            sys.exit("no stampede binary: cargo build --release, or --stampede BIN")
    plans, seen = [], set()
    for c in a.corpora:
        for d, _, files in os.walk(c):
            for f in sorted(files):
                if f.endswith(".jmx"):
                    p = os.path.join(d, f)
                    with open(p, "rb") as fh:
                        h = hashlib.sha256(fh.read()).hexdigest()
                    if h not in seen:
                        seen.add(h)
                        plans.append(p)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        results = [r for r in ex.map(lambda p: one(a.stampede, p), sorted(plans)) if r]
    els = [e for r in results for e in r["elements"]]
    fns = [f for r in results for f in r["functions"]]
    out = []
    w = out.append
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    w("# Script coverage: %s\n\n- stampede: %s (commit %s)\n- command: `%s`\n\n" % (
        ", ".join(a.corpora), a.stampede, commit, " ".join(["python3", "bench/jmeter/script_coverage.py"] + sys.argv[1:])))
    n_ok = sum(e["loads"] for e in els)
    pct = lambda k, n: "%.1f%%" % (100.0 * k / n) if n else "n/a"
    w("Script elements that load: **%d / %d = %s** (in %d plans; %d plans with scripts or script functions)\n\n" % (
        n_ok, len(els), pct(n_ok, len(els)), len({r["plan"] for r in results if r["elements"]}), len(results)))
    # Script files the corpus does not hold (GUI fixtures naming `file`, `/tmp/4.txt`) and
    # fixtures that are not plans say nothing of the interpreter: the figure without them.
    missing = [e for e in els if "cannot be read" in e["why"] or "not a JMeter test plan" in e["why"]]
    rest = len(els) - len(missing)
    w("Without the %d elements whose script file the corpus does not hold or that are not in a test plan: **%d / %d = %s**\n\n" % (
        len(missing), n_ok, rest, pct(n_ok, rest)))
    f_ok = sum(f["loads"] for f in fns)
    w("Script functions that load: **%d / %d = %s**\n\n" % (f_ok, len(fns), pct(f_ok, len(fns))))
    for key, title in (("lang", "language"), ("place", "place"), ("class", "class")):
        w("| %s | elements | load | share |\n|---|---:|---:|---:|\n" % title)
        groups = collections.defaultdict(list)
        for e in els:
            groups[e[key]].append(e)
        for k, g in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            ok = sum(e["loads"] for e in g)
            w("| %s | %d | %d | %s |\n" % (k, len(g), ok, pct(ok, len(g))))
        w("\n")
    w("| function | calls | load |\n|---|---:|---:|\n")
    groups = collections.defaultdict(list)
    for f in fns:
        groups[f["function"]].append(f)
    for k, g in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        w("| __%s | %d | %d |\n" % (k, len(g), sum(f["loads"] for f in g)))
    w("\n## Why elements do not load (by frequency)\n\n")
    reasons = collections.Counter(generic(e["why"]) for e in els if not e["loads"])
    for r, n in reasons.most_common(40):
        w("- %d × %s\n" % (n, r.replace("\n", " ")))
    text = "".join(out)
    print(text)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(report_paths(text))
        with open(os.path.splitext(a.out)[0] + ".json", "w", encoding="utf-8") as f:
            f.write(report_paths(json.dumps(results, indent=1)))


if __name__ == "__main__":
    main()
