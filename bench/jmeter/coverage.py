#!/usr/bin/env python3
"""Coverage figures of a corpus of .jmx plans: how many load in stampede with nothing unsupported.

    python3 bench/jmeter/coverage.py CORPUS_DIR [--sets tests/corpus/sets.tsv] [--jobs 2]
        [--out FILE.md]

Definitions (each plan of CORPUS_DIR, recursively; duplicates by content hash are counted once):

- real plan: the file is well-formed XML with each element followed by at most one hashTree
  (JMeter refuses the others; with --jmeter-tsv, also not the plans corpus.py found JMeter cannot
  load or run, other than for a missing plugin class), has a TestPlan element and
  an enabled thread group (a class named *ThreadGroup, plugin ones included) holding, in its own
  hashTree, an enabled sampler (a class named *Sampler*, *SamplerProxy, or a plugin sampler)
  under enabled controllers only. Fixtures without a thread group or sampler (element snippets,
  templates of one element) are not real plans.
- plan with script elements: an enabled JSR223*, BeanShell* or BSF* element, or a
  `__groovy(`, `__BeanShell(` or `__javaScript(` function anywhere in the file.
- loads with nothing unsupported that changes traffic: `stampede check PLAN --skip-unsupported`
  exits 0 and lists no element as skipped or UNSUPPORTED (partial and ignored elements are
  accepted: partial runs with a named difference, ignored has no effect on what is sent).

`stampede check --format json` is used when the binary has it, else the text table is parsed.
Prints the figures, the unsupported classes by the number of plans they appear in, the load
errors by frequency, and a per-plan table (`--out FILE.md` writes it, and a .tsv beside it).
"""

import argparse
import collections
import concurrent.futures
import io
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import differential as D  # noqa: E402  (find_stampede)
from corpus import load_sets, git_commit, unique_plans, write_outputs  # noqa: E402

SCRIPT_CLASS = re.compile(r"JSR223|BeanShell|BSF")
SCRIPT_FUNC = re.compile(r"__(groovy|BeanShell|javaScript)\(")
SAMPLER_EXTRA = {"TestAction"}  # Flow Control Action is a sampler that sends nothing: not counted


def cls(el):
    return el.get("testclass") or el.tag


def is_thread_group(el):
    return cls(el).endswith("ThreadGroup") or cls(el).split(".")[-1].endswith("ThreadGroup")


def is_sampler(el):
    c = cls(el).split(".")[-1]
    return ("Sampler" in c or c.endswith("SamplerProxy")) and c not in SAMPLER_EXTRA


def children(tree):
    """(element, its hashTree or None) pairs of one hashTree."""
    kids = list(tree)
    out, i = [], 0
    while i < len(kids):
        el = kids[i]
        if el.tag == "hashTree":
            i += 1
            continue
        sub = kids[i + 1] if i + 1 < len(kids) and kids[i + 1].tag == "hashTree" else None
        out.append((el, sub))
        i += 2 if sub is not None else 1
    return out


def enabled(el):
    return el.get("enabled", "true") != "false"


def walk(tree, found):
    """Sets found['sampler'] / found['scripts'] for enabled elements under TREE."""
    for el, sub in children(tree):
        if not enabled(el):
            continue
        if is_sampler(el):
            found["sampler"] = True
        if SCRIPT_CLASS.search(cls(el)):
            found["scripts"].add(cls(el))
        if sub is not None:
            walk(sub, found)


def classify_plan(path):
    """(real?, why not, script classes/functions) of one file."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        # JMeter's streaming reader loads a plan that ends before `</jmeterTestPlan>` alone.
        try:
            root = ET.fromstring(data + b"</jmeterTestPlan>")
        except ET.ParseError:
            return False, "malformed XML (%s)" % e, []
    text = data.decode("utf-8", "replace")
    scripts = set("__%s" % m for m in SCRIPT_FUNC.findall(text))
    for tree in root.iter("hashTree"):
        kids = list(tree)
        for i, k in enumerate(kids):
            if k.tag == "hashTree" and (i == 0 or kids[i - 1].tag == "hashTree"):
                return False, "JMeter cannot load it (a <hashTree> not after an element)", sorted(scripts)
    top = root.find("hashTree")
    if top is None:
        return False, "no hashTree", sorted(scripts)
    plan = [(el, sub) for el, sub in children(top) if cls(el) == "TestPlan"]
    if not plan:
        return False, "no TestPlan", sorted(scripts)
    real = False
    found_all = {"sampler": False, "scripts": set()}
    for el, sub in plan:
        if sub is None:
            continue
        # Scripts anywhere enabled (plan level too), samplers only under a thread group.
        walk(sub, found_all)
        for tg, tsub in children(sub):
            if is_thread_group(tg) and enabled(tg) and tsub is not None:
                found = {"sampler": False, "scripts": set()}
                walk(tsub, found)
                real = real or found["sampler"]
    scripts |= found_all["scripts"]
    if not any(is_thread_group(tg) for _, sub in plan if sub is not None for tg, _ in children(sub)):
        return False, "no thread group", sorted(scripts)
    if not real:
        return False, "no enabled thread group with an enabled sampler", sorted(scripts)
    return True, "", sorted(scripts)


LINE = re.compile(r"^\s*(\d+)\s+(\S+)(?: \"(.*)\")?\s+\[(supported|partial|ignored|disabled|skipped|UNSUPPORTED)\]\s?(.*)$")


def check(binary, path, sets, json_format, skip=True):
    """(exit status, [(class, status, note)], first error line) of `stampede check PLAN`.

    With --skip-unsupported first; when that refuses the plan without listing its elements (every
    thread group skipped, say), again without it: check then lists every element, the
    unsupported ones as UNSUPPORTED."""
    cmd = [binary, "check", path] + (["--skip-unsupported"] if skip else [])
    for k, v in sets:
        cmd += ["--set", "%s=%s" % (k, v)]
    if json_format:
        cmd += ["--format", "json"]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60,
                           errors="replace", cwd=os.path.dirname(path))
    except subprocess.TimeoutExpired:
        return None, [], "check did not finish within 60 s"
    elements, json_err = [], ""
    if json_format:
        try:
            doc = json.loads(p.stdout)
            for e in doc.get("elements", []):
                elements.append((e.get("class", ""), str(e.get("status", "")).lower(), e.get("note", "")))
            problems = doc.get("problems") or []
            if problems:
                first = problems[0]
                json_err = "error: %s%s" % (first["element"] + ": " if first.get("element") else "", first["message"])
        except ValueError:
            pass
    else:
        for line in p.stdout.splitlines():
            m = LINE.match(line)
            if m:
                elements.append((m.group(2), m.group(4).lower(), m.group(5)))
    err = json_err or next((l for l in p.stderr.splitlines() if l.startswith("error")), "")
    if p.returncode != 0 and not err:
        err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    if skip and p.returncode != 0 and not elements:
        rc2, elements2, err2 = check(binary, path, sets, json_format, skip=False)
        if any(s in ("skipped", "unsupported") for _, s, _ in elements2):
            return p.returncode, elements2, err
    return p.returncode, elements, err


def has_json(binary):
    p = subprocess.run([binary, "check", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return "--format" in p.stdout


def generic_error(err, path):
    e = err.replace(path, "PLAN")
    e = re.sub(r"\S*\.jmx(:\d+)*|PLAN(:\d+)*", "PLAN", e)
    e = re.sub(r"line \d+", "line N", e)
    e = re.sub(r'"[^"]*"', '"…"', e)
    return e[:160]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("corpus")
    ap.add_argument("--sets")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("--jmeter-tsv", help="a corpus.py result .tsv: the plans JMeter could not load are not real")
    args = ap.parse_args()
    refused = {}
    if args.jmeter_tsv:
        with open(args.jmeter_tsv, encoding="utf-8") as f:
            for line in f:
                c = line.rstrip("\n").split("\t")
                if len(c) > 4 and c[3] == "skip" and c[4].startswith("JMeter cannot load/run the plan"):
                    refused[c[0]] = c[4]
    corpus = os.path.abspath(args.corpus)
    sets = load_sets(args.sets, corpus)
    binary = D.find_stampede()
    json_format = has_json(binary)

    plans, dupes = unique_plans(corpus)
    files = [p for p, _ in plans]

    def one(p):
        rel = os.path.relpath(p, corpus)
        real, why, scripts = classify_plan(p)
        if real and rel in refused:
            real, why = False, "JMeter refuses it (corpus.py run)"
        rc, elements, err = check(binary, p, sets.get(rel, []), json_format)
        unsupported = {c for c, s, _ in elements if s in ("skipped", "unsupported")}
        # A refused thread group is named only in the error (check lists no element then).
        m = re.search(r"<([\w.$]+)>[^<]*is not supported", err)
        if m:
            unsupported.add(m.group(1))
        unsupported = sorted(unsupported)
        ok = rc == 0 and not unsupported
        return {"plan": rel, "real": real, "why": why, "scripts": scripts, "rc": rc, "unsupported": unsupported,
                "partial": sorted({c for c, s, _ in elements if s == "partial"}), "error": err if rc else "",
                "ok": ok, "generic_error": generic_error(err, p) if rc and not unsupported else ""}

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        rows = list(ex.map(one, files))

    real = [r for r in rows if r["real"]]
    noscript = [r for r in real if not r["scripts"]]
    ok_ns = [r for r in noscript if r["ok"]]
    ok_real = [r for r in real if r["ok"]]
    version, commit = git_commit(binary)
    out = io.StringIO()
    w = out.write
    pct = lambda a, b: 100.0 * a / b if b else 0.0  # noqa: E731
    w("# stampede check coverage: %s\n\n- date: %s\n- stampede: %s (commit %s)\n- command: `%s`\n- check output: %s\n\n"
      % (os.path.basename(corpus), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), version, commit,
         " ".join(["python3", "bench/jmeter/coverage.py"] + sys.argv[1:]), "json" if json_format else "text table"))
    w("| figure | plans |\n|---|---:|\n")
    w("| .jmx files (after %d duplicates by content hash) | %d |\n" % (dupes, len(rows)))
    w("| real plans | %d |\n" % len(real))
    w("| real plans with script elements | %d |\n" % (len(real) - len(noscript)))
    w("| real plans without script elements | %d |\n" % len(noscript))
    w("| ... that load with nothing unsupported | %d (**%.1f%%**) |\n" % (len(ok_ns), pct(len(ok_ns), len(noscript))))
    w("| real plans (scripts or not) that load with nothing unsupported | %d (%.1f%%) |\n\n"
      % (len(ok_real), pct(len(ok_real), len(real))))
    notreal = collections.Counter(r["why"].split(" (")[0] for r in rows if not r["real"])
    if notreal:
        w("Not real: %s.\n\n" % ", ".join("%d %s" % (n, why) for why, n in notreal.most_common()))
    by_class = collections.Counter(c for r in noscript for c in r["unsupported"])
    by_class_all = collections.Counter(c for r in real for c in r["unsupported"])
    w("## Unsupported (skipped) classes, by the number of real plans they appear in\n\n"
      "| class | plans without scripts | all real plans |\n|---|---:|---:|\n")
    for c, n in sorted(by_class_all.items(), key=lambda x: (-by_class[x[0]], -x[1], x[0])):
        w("| %s | %d | %d |\n" % (c, by_class[c], n))
    errs = collections.Counter(r["generic_error"] for r in noscript if r["generic_error"])
    if errs:
        w("\n## Load errors of real plans without scripts (no unsupported element), by frequency\n\n")
        for e, n in errs.most_common():
            w("- %d × `%s`\n" % (n, e.replace("`", "'")))
    partial = collections.Counter(c for r in noscript for c in r["partial"])
    if partial:
        w("\n## Partial classes (run, with a named difference), real plans without scripts\n\n")
        w(", ".join("%s %d" % (c, n) for c, n in partial.most_common()) + "\n")
    w("\n## Per plan\n\n| plan | real | scripts | loads, nothing unsupported | unsupported / error |\n|---|---|---|---|---|\n")
    for r in rows:
        w("| %s | %s | %s | %s | %s |\n" % (
            r["plan"], "yes" if r["real"] else "no: " + r["why"][:60], " ".join(r["scripts"]) or "",
            "yes" if r["ok"] else "no", (" ".join(r["unsupported"]) or r["error"][:140]).replace("|", "\\|")))
    text = out.getvalue()
    print(text)
    write_outputs(args.out, text, ["plan", "real", "scripts", "rc", "ok", "unsupported", "error"],
                  [[r["plan"], r["real"], " ".join(r["scripts"]), r["rc"], r["ok"], " ".join(r["unsupported"]),
                    r["error"]] for r in rows])
    return 0


if __name__ == "__main__":
    sys.exit(main())
