#!/usr/bin/env bash
# The dev corpus: real open-source Java 8 / JUnit 3-4 Maven projects (projects.tsv), pinned,
# built offline against Debian's Maven repository through an m2alias overlay, then migrated
# by uplift to Java 17 + JUnit 5. Prints one Markdown table row per project.
#
#   scripts/corpus/run.sh [--baseline-only] [NAME...]
#
# Environment:
#   CORPUS_MIRROR  bare git mirrors, <owner>+<repo>/repo   (default /work/.mirror)
#   CORPUS_WORK    scratch dir: checkouts, overlays, logs    (default /var/tmp/uplift-corpus)
#   UPLIFT_BIN     the uplift binary (default $CARGO_TARGET_DIR or ./target, release build)
#   CORPUS_REUSE_BASELINE=1  keep a baseline recorded earlier for the same commit and args
#                  (e.g. by --baseline-only) instead of building it again
#
# Per project, in $CORPUS_WORK/<name>/:
#   m2/            overlay local repository (symlink farm of /usr/share/maven-repo + aliases)
#   aliases.txt    every alias/stub m2alias made (the baseline and the pre-alias pass)
#   baseline/      pinned checkout, built with `m2alias.py auto -- mvn ... clean test`
#   prealias/      a `--no-build` migration, only to alias what the migrated poms ask for
#                  (dependency:resolve and `test` with tests skipped so that
#                  stubbed plugins learn the goals they run; nothing of it is measured)
#   migrated/      fresh pinned checkout migrated by uplift (the measured run)
#   baseline.log, prealias.log, uplift.log, report.json
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
MIRROR=${CORPUS_MIRROR:-/work/.mirror}
WORK=${CORPUS_WORK:-/var/tmp/uplift-corpus}
UPLIFT=${UPLIFT_BIN:-${CARGO_TARGET_DIR:-$root/target}/release/uplift}
SETTINGS=$root/tests/support/maven-settings-offline.xml
CONFIG=$root/tests/support/offline.yml
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
export UPLIFT_DB=$WORK/uplift.db

baseline_only=0
if [ "${1:-}" = --baseline-only ]; then
  baseline_only=1
  shift
fi
only=" $* "

# Debian packages the corpus needs beyond scripts/setup-java-offline.sh.
need=()
for p in libmaven-bundle-plugin-java antlr3-maven-plugin libantlr3-runtime-java \
  libjsonpath-java libtemplating-maven-plugin-java; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "missing Debian packages (run scripts/setup-java-offline.sh, then apt-get install ${need[*]})" >&2
  exit 1
fi

mkdir -p "$WORK"
# The aliasing source: Debian's repository plus the parent POMs of parents.tsv (Debian has
# none of them), so m2alias can alias e.g. oss-parent 9 to the real oss-parent 7.
src=$WORK/maven-src
rm -rf "$src" && mkdir -p "$src" && cp -rs /usr/share/maven-repo/. "$src/"
while IFS=$'\t' read -r gav prepo pcommit ppath; do
  case "$gav" in '' | '#'*) continue ;; esac
  IFS=: read -r g a v <<<"$gav"
  d=$src/${g//.//}/$a/$v
  mkdir -p "$d"
  git --git-dir="$MIRROR/${prepo/\//+}/repo" show "$pcommit:$ppath" >"$d/$a-$v.pom" || exit 1
done <"$here/parents.tsv"
export M2ALIAS_SRC=$src
noop=$WORK/noop
if [ ! -f "$noop/m2alias/NoopMojo.class" ]; then
  javac --release 8 -cp "$(ls /usr/share/maven/lib/maven-plugin-api-*.jar | head -1)" \
    -d "$noop" "$here/NoopMojo.java" || exit 1
fi
export M2ALIAS_NOOP_CLASS=$noop/m2alias/NoopMojo.class
if [ "$baseline_only" = 0 ] && [ ! -x "$UPLIFT" ]; then
  echo "no uplift binary at $UPLIFT (cargo build --release, or set UPLIFT_BIN)" >&2
  exit 1
fi

# checkout NAME REPO COMMIT DEST: the pinned tree as a fresh one-commit git repository.
checkout() {
  local mirror=$MIRROR/${2/\//+}/repo
  rm -rf "$4" && mkdir -p "$4"
  git --git-dir="$mirror" archive "$3" | tar -x -C "$4" || return 1
  git -C "$4" init -q && git -C "$4" add -A &&
    git -C "$4" -c user.name=corpus -c user.email=corpus@localhost commit -qm "$1 @ $3"
}

if [ "$baseline_only" = 1 ]; then
  echo "| project | baseline: run / failed / errors / skipped | aliased versions, STUB plugins (baseline and pre-alias pass) |"
  echo "|---|---|---|"
else
  echo "| project | exit (outcome) | migrated build green | JUnit 5 complete | kept on JUnit 3/4: files (why) | baseline tests (our mvn) | tests run before → after (report) | first problem |"
  echo "|---|---|---|---|---|---|---|---|"
fi

while IFS=$'\t' read -r name repo commit args notes; do
  case "$name" in '' | '#'*) continue ;; esac
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || continue
  dir=$WORK/$name
  mkdir -p "$dir"
  # The args column: Maven arguments (-D...) and environment settings (NAME=value), given
  # alike to the baseline and to uplift (whose Maven runs inherit the environment).
  extra=() envs=()
  mapfile -t toks < <(python3 -c 'import shlex, sys; print("\n".join(shlex.split(sys.argv[1])))' "$args")
  for t in "${toks[@]}"; do
    case "$t" in -) ;; -*) extra+=("$t") ;; *=*) envs+=("$t") ;; esac
  done
  export M2ALIAS_REPO=$dir/m2
  mvn=(mvn -B -o -s "$SETTINGS" "-Dmaven.repo.local=$M2ALIAS_REPO" "${extra[@]}")

  # 1. Baseline: the pinned tree, aliasing whatever Debian lacks. With CORPUS_REUSE_BASELINE=1
  #    a baseline recorded for this very commit and args (baseline.txt) is kept, overlay and all.
  key="$commit $args"
  if [ "${CORPUS_REUSE_BASELINE:-0}" = 1 ] && [ -f "$dir/baseline.txt" ] && [ -d "$M2ALIAS_REPO" ] &&
    [ "$(head -1 "$dir/baseline.txt")" = "$key" ]; then
    read -r run failed errors skipped brc <<<"$(sed -n 2p "$dir/baseline.txt")"
  else
    rm -rf "$M2ALIAS_REPO" "$dir/aliases.txt" "$dir/baseline.txt"
    python3 "$here/m2alias.py" init >/dev/null
    checkout "$name" "$repo" "$commit" "$dir/baseline" || { echo "| $name | checkout failed |"; continue; }
    (cd "$dir/baseline" && env "${envs[@]}" python3 "$here/m2alias.py" auto --record "$dir/aliases.txt" -- \
      "${mvn[@]}" clean test) </dev/null >"$dir/baseline.log" 2>&1
    brc=$?
    read -r run failed errors skipped <<<"$(python3 "$here/counts.py" surefire "$dir/baseline")"
    printf '%s\n%s %s %s %s %s\n' "$key" "$run" "$failed" "$errors" "$skipped" "$brc" >"$dir/baseline.txt"
  fi
  if [ "$baseline_only" = 1 ]; then
    status=$([ "$brc" = 0 ] && echo green || echo "RED (mvn exit $brc)")
    echo "| $name | $status: $run / $failed / $errors / $skipped | $(python3 "$here/counts.py" aliases "$dir/aliases.txt") |"
    continue
  fi

  # 2. Pre-alias what the migrated poms ask for: a --no-build migration of a scratch copy,
  #    then resolve its dependencies and plugins (this run is never measured).
  checkout "$name" "$repo" "$commit" "$dir/prealias" >/dev/null
  {
    "$UPLIFT" migrate "$dir/prealias" --no-build --target-java 17 --config "$CONFIG"
    (cd "$dir/prealias" && python3 "$here/m2alias.py" auto --record "$dir/aliases.txt" -- \
      "${mvn[@]}" -fae dependency:resolve test -Dmaven.test.skip=true) </dev/null
  } </dev/null >"$dir/prealias.log" 2>&1

  # 3. The measured run: uplift on a fresh checkout, with the overlay the two passes prepared.
  checkout "$name" "$repo" "$commit" "$dir/migrated" >/dev/null
  # uplift builds in a sandbox that shows only /usr and the operator's repository: links
  # from the overlay to anywhere else (parent POMs in $WORK/maven-src, aliases) would
  # dangle there, so they become copies.
  find "$M2ALIAS_REPO" -type l ! -lname '/usr/*' -exec sh -c \
    'cp --remove-destination "$(readlink -f "$1")" "$1"' _ {} \;
  margs=(--maven-arg=-o --maven-arg=-s "--maven-arg=$SETTINGS" "--maven-arg=-Dmaven.repo.local=$M2ALIAS_REPO")
  for a in "${extra[@]}"; do margs+=("--maven-arg=$a"); done
  rm -f "$dir/report.json"
  env "${envs[@]}" "$UPLIFT" migrate "$dir/migrated" --target-java 17 --config "$CONFIG" "${margs[@]}" \
    --report-json "$dir/report.json" </dev/null >"$dir/uplift.log" 2>&1
  urc=$?
  echo "$urc" >"$dir/uplift.rc"
  python3 "$here/counts.py" row "$name" "$urc" "$dir/report.json" "$dir/migrated" \
    "$run $failed $errors $skipped $brc"
done <"$here/projects.tsv"
