#!/usr/bin/env python3
"""Helpers for run.sh (the dev corpus), so the shell script stays a list of steps.

  counts.py surefire DIR        -> "run failed errors skipped" summed over DIR's Surefire XML reports
  counts.py junit5 DIR          -> "yes" or "no: <what is left>" (JUnit 3/4 imports in any Java file,
                                   junit:junit or the vintage engine in a pom)
  counts.py aliases FILE        -> what m2alias substituted (aliased versions, stub plugins)
  counts.py row NAME RC REPORT DIR BASELINE
                                -> one Markdown table row from uplift's report JSON
"""
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET


def surefire(root):
    run = failed = errors = skipped = 0
    for path in glob.glob(os.path.join(root, '**', 'surefire-reports', 'TEST-*.xml'), recursive=True):
        try:
            suite = ET.parse(path).getroot()
        except ET.ParseError:
            continue
        run += int(suite.get('tests', 0))
        failed += int(suite.get('failures', 0))
        errors += int(suite.get('errors', 0))
        skipped += int(suite.get('skipped', 0))
    return f'{run} {failed} {errors} {skipped}'


LEGACY_IMPORT = re.compile(r'^\s*import\s+(static\s+)?(junit\.|org\.junit\.(?!jupiter\.|platform\.))', re.M)
LEGACY_FQN = re.compile(r'@org\.junit\.(Test|Before|After|BeforeClass|AfterClass|Ignore|Rule|ClassRule)\b'
                        r'|\bjunit\.framework\.')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
LEGACY_POM = re.compile(r'<artifactId>\s*(junit|junit-vintage-engine)\s*</artifactId>')


def legacy_files(root):
    """Java files that still use JUnit 3/4 (any directory: projects configure their test
    source directory freely), and poms that still ask for it."""
    files, poms = [], []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ('.git', 'target')]
        for f in filenames:
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            if f == 'pom.xml':
                text = open(path, encoding='utf-8', errors='replace').read()
                text = re.sub(r'<!--.*?-->', '', text, flags=re.S)
                if LEGACY_POM.search(text):
                    poms.append(rel)
            elif f.endswith('.java'):  # any source set: test dirs are often configured elsewhere
                text = open(path, encoding='utf-8', errors='replace').read()
                text = COMMENT.sub('', text)  # `@see junit.framework.TestCase` is not a use
                if LEGACY_IMPORT.search(text) or LEGACY_FQN.search(text):
                    files.append(rel)
    return sorted(files), sorted(poms)


def junit5(root):
    files, poms = legacy_files(root)
    if not files and not poms:
        return 'yes'
    parts = []
    if files:
        parts.append(f'{len(files)} Java files')
    if poms:
        parts.append('pom: ' + ','.join(poms))
    return 'no: ' + '; '.join(parts)


def find(obj, *keys, default=None):
    """First value under any of `keys`, searched depth-first (the report schema may nest)."""
    if isinstance(obj, dict):
        for k in keys:
            if k in obj:
                return obj[k]
        for v in obj.values():
            r = find(v, *keys, default=None)
            if r is not None:
                return r
    elif isinstance(obj, list):
        for v in obj:
            r = find(v, *keys, default=None)
            if r is not None:
                return r
    return default


OUTCOMES = {'0': 'SUCCESS', '1': 'uplift error', '2': 'PARTIAL_SUCCESS', '3': 'FAILURE', '4': 'INCOMPLETE'}


def results(report, kind):
    return [e['result'] for e in report.get('entries', []) if e.get('result', {}).get('kind') == kind]


def kept_reasons(report, files):
    """Why each file still on JUnit 3/4 stayed there: the task or rollback entry that names it."""
    why = {}
    for e in report.get('entries', []):
        r = e.get('result', {})
        kind = r.get('kind', '')
        if kind == 'task' and r.get('status') in ('left_for_next_tier', 'failed'):
            reason = (r.get('reason') or r.get('task_id') or '?').splitlines()[0]
            for f in r.get('files', []):
                why.setdefault(f, reason)
        elif kind == 'rolled_back':
            for f in r.get('files', []):
                why[f['path']] = f"rolled back: {f['reason'].splitlines()[0]}"
    out = {}
    for f in files:
        match = next((v for k, v in why.items() if f.endswith(k) or k.endswith(f)), 'no task names it: outside the Maven reactor')
        out.setdefault(match, []).append(os.path.basename(f))
    return out


def row(name, rc, report_path, tree, baseline):
    b_run, b_failed, b_errors, b_skipped, b_rc = baseline.split()
    outcome = OUTCOMES.get(rc, 'exit ' + rc)
    if not os.path.exists(report_path):
        print(f'| {name} | {rc} ({outcome}, no report) | - | {junit5(tree)} | - | {b_run} | - | see uplift.log |')
        return
    report = json.load(open(report_path))
    outcome = report.get('outcome') or outcome
    validated = results(report, 'validated')
    build = validated[-1]['build'] if validated else None
    run = (build or {}).get('run') or {}
    tests = report.get('tests') or {}
    compiled = bool(build) and run.get('exit_code') == 0 and not run.get('timed_out')
    failing_after = (tests.get('executed_after') or 0) - (tests.get('green_after') or 0)
    if (report.get('rolled_back') or {}).get('restored_all'):
        green = 'restored (tree unchanged)'
    elif not compiled:
        green = 'no'
    elif failing_after == 0:
        green = 'yes'
    elif not tests.get('newly_failing'):
        green = f'as baseline ({failing_after} failing before and after)'
    else:
        green = f'no ({failing_after} failing)'
    files, poms = legacy_files(tree)
    kept = kept_reasons(report, files)
    kept_txt = '; '.join(f"{len(v)} ({k[:160]})" for k, v in sorted(kept.items(), key=lambda kv: -len(kv[1])))
    if poms:
        kept_txt = (kept_txt + '; ' if kept_txt else '') + 'pom keeps ' + ','.join(poms)
    problem = ''
    if build and run.get('exit_code') not in (0, None):
        errs = [l for l in run.get('errors', []) if '.java' in l] or run.get('errors', [])
        problem = 'build red: ' + (errs[0] if errs else 'exit %s' % run.get('exit_code'))
    elif tests.get('newly_failing'):
        problem = f"{len(tests['newly_failing'])} newly failing, e.g. {tests['newly_failing'][0]}"
    elif tests.get('lost_from_source'):
        problem = f"{len(tests['lost_from_source'])} lost, e.g. {tests['lost_from_source'][0]}"
    elif not build:
        skipped = results(report, 'build_skipped')
        problem = 'not validated' + (': ' + skipped[0].get('reason', '') if skipped else '')
    problem = problem.replace('|', '/').replace(tree + '/', '').replace('[ERROR] ', '')
    problem = re.sub(r'\s+', ' ', problem)[:200]
    before = f"{tests.get('executed_before', '-')} ({tests.get('green_before', '-')} green)"
    after = f"{tests.get('executed_after', '-')} ({tests.get('green_after', '-')} green)"
    print(f"| {name} | {rc} ({outcome}) | {green} | {junit5(tree)} | "
          f"{kept_txt or '-'} | {b_run} | {before} → {after} | {problem or '-'} |")


def aliases(path):
    """The substitutions m2alias recorded, short: `artifact requested-version` or `STUB plugin`."""
    out = set()
    for line in open(path) if os.path.exists(path) else []:
        line = line.strip()
        if not line or line.endswith(':metadata') or line == 'org.codehaus.plexus:plexus-utils:jar:1.1':
            continue  # version metadata, and the plexus-utils Maven itself injects into old plugins
        parts = line.split(':')
        if ':stub=' in line:
            out.add('STUB ' + parts[1])
        elif line.startswith('dummy='):
            out.add('EMPTY ' + parts[1])
        else:
            out.add(f'{parts[1]} {parts[-1]}')
    return ', '.join(sorted(out, key=lambda x: (x.startswith('STUB'), x))) or '-'


def main(argv):
    cmd = argv[1]
    if cmd == 'surefire':
        print(surefire(argv[2]))
    elif cmd == 'junit5':
        print(junit5(argv[2]))
    elif cmd == 'aliases':
        print(aliases(argv[2]))
    elif cmd == 'row':
        row(*argv[2:7])
    elif cmd == 'legacy':
        files, poms = legacy_files(argv[2])
        print('\n'.join(files + poms))
    else:
        sys.exit(f'unknown command {cmd}')


if __name__ == '__main__':
    main(sys.argv)
