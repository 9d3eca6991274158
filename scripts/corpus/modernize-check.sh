#!/usr/bin/env bash
# Idioms on real code: every corpus project's main sources, pinned, migrated with
# `--no-build --modernize` (every idiom) to Java 21, must compile with `javac --release 21`
# wherever the untouched sources did (javac of JDK 21+; no Maven, so only projects whose main
# code needs no library beyond a few of Debian's jars). Prints one row per project: whether
# its main sources compiled before and after, and how much of them the run changed.
#
#   scripts/corpus/modernize-check.sh [NAME...]
#
# Environment: CORPUS_MIRROR, CORPUS_WORK, UPLIFT_BIN as for run.sh;
#   JAVAC  a javac that knows --release 21 (default: JDK 25's, else javac on the PATH)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
MIRROR=${CORPUS_MIRROR:-/work/.mirror}
WORK=${CORPUS_WORK:-/var/tmp/uplift-corpus}/modernize
UPLIFT=${UPLIFT_BIN:-${CARGO_TARGET_DIR:-$root/target}/release/uplift}
JAVAC=${JAVAC:-$(ls /usr/lib/jvm/temurin-25-jdk-amd64/bin/javac 2>/dev/null || command -v javac)}
export UPLIFT_DB=$WORK/uplift.db
# Libraries some projects' main code compiles against, where Debian has them.
CP=$(ls /usr/share/java/{antlr3-runtime,servlet-api,slf4j-api,asm,asm-commons,asm-util,ant}.jar 2>/dev/null | paste -sd:)
only=" $* "

compiles() { # dir -> 0 when its main sources compile at release 21
  local files
  files=$(find "$1" -path '*/src/main/java/*.java' -not -path '*/target/*' | sort)
  [ -n "$files" ] || return 1
  rm -rf "$1.classes" && mkdir -p "$1.classes"
  # shellcheck disable=SC2086
  "$JAVAC" --release 21 -proc:none -nowarn -encoding UTF-8 -cp "$CP" -d "$1.classes" $files \
    > "$1.javac.log" 2>&1
}

mkdir -p "$WORK"
echo "| project | main sources compile before | after --modernize | main sources changed |"
echo "|---|---|---|---|"
while IFS=$'\t' read -r name repo commit _args _notes; do
  case "$name" in '' | '#'*) continue ;; esac
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || continue
  git_dir=$MIRROR/${repo/\//+}/repo
  dir=$WORK/$name
  rm -rf "$dir" "$dir.before" && mkdir -p "$dir"
  git --git-dir="$git_dir" archive "$commit" | tar -x -C "$dir" || { echo "| $name | no checkout | | |"; continue; }
  cp -r "$dir" "$dir.before"
  before=no
  compiles "$dir.before" && before=yes
  (cd "$dir" && git init -q && git add -A && git -c user.name=c -c user.email=c@c commit -qm pinned)
  (cd "$dir" && "$UPLIFT" migrate . --no-build --target-java 21 --modernize > "$dir.uplift.log" 2>&1)
  changes=$(cd "$dir" && git diff --numstat -- '*src/main/java/*.java' |
    awk '{f++; a+=$1; d+=$2} END {printf "%d files, +%d -%d lines", f, a, d}')
  after=no
  compiles "$dir" && after=yes
  verdict=$after
  [ "$before" = yes ] && [ "$after" = no ] && verdict="**no: broken** (see $dir.javac.log)"
  echo "| $name | $before | $verdict | $changes |"
done < "$here/projects.tsv"
