#!/usr/bin/env python3
"""Helpers for run.sh (the dev corpus), so the shell script stays a list of steps.

  counts.py surefire DIR        -> "run failed errors skipped" summed over DIR's Surefire XML reports
  counts.py junit5 DIR          -> "yes" or "no: <what is left>" (JUnit 3/4 imports in test sources,
                                   junit:junit or the vintage engine in a pom)
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
LEGACY_POM = re.compile(r'<artifactId>\s*(junit|junit-vintage-engine)\s*</artifactId>')


def legacy_files(root):
    """Test sources that still use JUnit 3/4, and poms that still ask for it."""
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
            elif f.endswith('.java') and '/src/test/' in '/' + rel:
                text = open(path, encoding='utf-8', errors='replace').read()
                if LEGACY_IMPORT.search(text) or LEGACY_FQN.search(text):
                    files.append(rel)
    return sorted(files), sorted(poms)


def junit5(root):
    files, poms = legacy_files(root)
    if not files and not poms:
        return 'yes'
    parts = []
    if files:
        parts.append(f'{len(files)} test files')
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


def main(argv):
    cmd = argv[1]
    if cmd == 'surefire':
        print(surefire(argv[2]))
    elif cmd == 'junit5':
        print(junit5(argv[2]))
    elif cmd == 'legacy':
        files, poms = legacy_files(argv[2])
        print('\n'.join(files + poms))
    else:
        sys.exit(f'unknown command {cmd}')


if __name__ == '__main__':
    main(sys.argv)
