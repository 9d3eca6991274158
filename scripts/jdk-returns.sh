#!/usr/bin/env bash
# Regenerates src/recipes/jdk_returns.tsv: what the JDK's public methods return, for the
# return types the recipe catalog's `types:` name, read by reflection from the JDK 17 the
# migrations target (scripts/jdk-returns/JdkReturns.java), and src/recipes/jdk_types.tsv: the
# public top-level types of each exported package, for names a wildcard import or java.lang
# brings in, and src/recipes/jdk_final_types.tsv: those of them that are final classes. Run it after adding a type to a rule so a call's result of that type is typed too.
set -euo pipefail
cd "$(dirname "$0")/.."
java="${JAVA17_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}/bin/java"
wanted="$(mktemp)"
trap 'rm -f "$wanted"' EXIT
python3 - "$wanted" <<'PY'
import glob, sys, yaml
types = set()
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "types" and isinstance(v, dict):
                for t in v.values():
                    types.update(x for x in (t if isinstance(t, list) else [t]) if isinstance(x, str))
            else:
                walk(v)
    elif isinstance(o, list):
        for x in o:
            walk(x)
for f in glob.glob("src/recipes/catalog/**/*.yml", recursive=True):
    walk(yaml.safe_load(open(f)))
# String results are everywhere (toString, getName ...) and typed by hand where a rule needs them.
wanted = sorted(t for t in types if t.startswith(("java.", "javax.")) and t != "java.lang.String")
open(sys.argv[1], "w").write("\n".join(wanted) + "\n")
PY
# getClass() is typed by the code itself (Object.getClass is final).
"$java" scripts/jdk-returns/JdkReturns.java "$wanted" src/recipes/jdk_types.tsv src/recipes/jdk_final_types.tsv | grep -v $'\tgetClass\t' > src/recipes/jdk_returns.tsv
wc -l src/recipes/jdk_returns.tsv src/recipes/jdk_types.tsv src/recipes/jdk_final_types.tsv
