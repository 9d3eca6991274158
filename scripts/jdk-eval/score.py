#!/usr/bin/env python3
"""Score Uplift on an independent JDK-API evaluation set (see README.md beside this file).

usage: score.py <uplift binary> <out.tsv>     run Uplift on every case of ./cases
       score.py --self-test <out.tsv>         score each case's expected/ instead

Environment: JOBS (parallel cases, default 2), VERBOSE=1 (print every row),
ONLY=<substring of case ids>.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

JDK17 = "/usr/lib/jvm/java-17-openjdk-amd64/bin"
JDK25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin"
WARNING = re.compile(r"warning: \[(removal|deprecation)\]")


def run(cmd, cwd=None, env=None, timeout=300):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def sources(tree):
    out = []
    for root, _, files in os.walk(os.path.join(tree, "src")):
        out += [os.path.join(root, f) for f in files if f.endswith(".java")]
    return sorted(out)


def java_bytes(tree):
    return {os.path.relpath(f, tree): open(f, "rb").read() for f in sources(tree)}


def compile_tree(tree, jdk, release, out):
    """(compiled, removal/deprecation warnings) for the tree's sources at a release."""
    files = sources(tree)
    if not files:
        return False, 0
    os.makedirs(out, exist_ok=True)
    code, so, se = run([f"{jdk}/javac", "--release", str(release), "-Xlint:deprecation,removal",
                        "-Xmaxwarns", "10000", "-d", out] + files)
    return code == 0, len(WARNING.findall(so + se))


def output_of(classes, jdk, main):
    code, so, se = run([f"{jdk}/java", "-cp", classes, main], timeout=60)
    return f"exit {code}\n{so}"


def migrate(uplift, case, tree, work):
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tree, check=True)
    subprocess.run(["git", "-c", "user.name=eval", "-c", "user.email=eval@localhost", "commit",
                    "-qm", "before"], cwd=tree, check=True)
    cmd = [uplift, "migrate", ".", "--no-build", "--target-java", str(case["target"])]
    if case["kind"] == "idiom":
        cmd.append(f"--modernize={case['idiom']}")
    env = dict(os.environ, UPLIFT_DB=os.path.join(work, "uplift.db"))
    code, so, se = run(cmd, cwd=tree, env=env, timeout=600)
    if code == 124:
        return "uplift timed out"
    if code not in (0, 2, 3, 4):
        return f"uplift exit {code}: {(se or so).strip().splitlines()[-1:]}"
    return None


def score(case_dir, uplift):
    try:
        case = json.load(open(os.path.join(case_dir, "case.json")))
    except (OSError, ValueError) as e:
        return {"kind": "?", "target": 0}, "error", f"case.json: {e}"
    try:
        return score_case(case_dir, case, uplift)
    except Exception as e:  # one broken case must not end the whole run
        return case, "error", repr(e)


def score_case(case_dir, case, uplift):
    kind, target = case["kind"], case["target"]
    work = tempfile.mkdtemp(prefix="jdk-eval-")
    try:
        before = os.path.join(case_dir, "before")
        after = os.path.join(work, "after")
        if uplift is None:
            shutil.copytree(os.path.join(case_dir, "expected"), after)
        else:
            shutil.copytree(before, after)
            err = migrate(uplift, case, after, work)
            if err:
                return case, "error", err
        changed = java_bytes(before) != java_bytes(after)
        before_ok_target, _ = compile_tree(before, JDK25, target, os.path.join(work, "bt"))
        after_ok, warnings = compile_tree(after, JDK25, target, os.path.join(work, "at"))
        if kind == "guard":
            if not changed:
                return case, "kept", ""
            return case, ("broken" if before_ok_target and not after_ok else "touched"), ""
        if not after_ok:
            if before_ok_target:
                return case, "broken", "compiled before, not after"
            return case, "missed", "does not compile" + ("" if changed else " (untouched)")
        if kind == "api" and warnings:
            return case, "missed", f"{warnings} warnings" + ("" if changed else " (untouched)")
        if kind == "idiom":
            text = open(os.path.join(after, case["file"]), encoding="utf-8").read()
            if not re.search(case["expect"], text):
                return case, "missed", "idiom not found" + ("" if changed else " (untouched)")
        if case.get("main"):
            b8 = os.path.join(work, "b8")
            ok, _ = compile_tree(before, JDK17, 8, b8)
            if not ok:
                return case, "error", "before does not compile at release 8"
            if output_of(b8, JDK17, case["main"]) != output_of(os.path.join(work, "at"), JDK25,
                                                               case["main"]):
                return case, "behaviour-changed", "main prints otherwise"
        return case, ("fixed" if kind == "api" else "applied"), ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    args = sys.argv[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    uplift = None if args[0] == "--self-test" else os.path.abspath(args[0])
    only = os.environ.get("ONLY", "")
    ids = sorted(d for d in os.listdir("cases") if only in d)
    with ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as pool:
        rows = list(pool.map(lambda i: (i,) + score(os.path.join("cases", i), uplift), ids))
    totals = {}
    with open(args[1], "w") as out:
        for cid, case, verdict, detail in rows:
            out.write(f"{cid}\t{case['kind']}\t{case['target']}\t{case.get('idiom', '')}\t"
                      f"{verdict}\t{detail}\n")
            key = (case["kind"], case["target"])
            totals.setdefault(key, {}).setdefault(verdict, 0)
            totals[key][verdict] += 1
            if os.environ.get("VERBOSE"):
                print(f"{cid:40} {case['kind']:6} {case['target']} {verdict:18} {detail}")
    for kind in ("api", "guard", "idiom"):
        keys = [k for k in totals if k[0] == kind]
        every = {}
        for k in sorted(keys):
            for v, n in totals[k].items():
                every[v] = every.get(v, 0) + n
            print(f"{kind} {k[1]}: " + ", ".join(f"{v} {n}" for v, n in sorted(totals[k].items())))
        if keys:
            n = sum(every.values())
            good = every.get("fixed", 0) + every.get("kept", 0) + every.get("applied", 0)
            print(f"{kind} all: {good}/{n} ({100.0 * good / n:.1f}%) "
                  + ", ".join(f"{v} {c}" for v, c in sorted(every.items())))


if __name__ == "__main__":
    main()
