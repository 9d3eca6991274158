#!/usr/bin/env python3
"""Writes src/recipes/catalog/spring-boot-3-properties.yml from Spring Boot's own metadata.

Reads every module's
`src/main/resources/META-INF/additional-spring-configuration-metadata.json` (the file
`spring-boot-properties-migrator` learns deprecated keys from) at two tags of a
spring-boot git directory (bare is fine; nothing is checked out):

  * the Boot 3 tag the catalog targets (`spring_boot_3` in src/config.rs): every entry with
    a `deprecation` object;
  * the last 2.7 tag: entries deprecated there and absent from the Boot 3 tag's metadata
    (what 3.0 dropped).

Each deprecated key becomes
  * a rename (`from` -> `to`) when it names a replacement that takes the same value: no
    other deprecated key names the same replacement, and where the metadata gives both
    types they agree (a number becoming a Duration counts as the same, as it does for the
    properties migrator);
  * otherwise a removal (`key`, with the `replacement` to set by hand and the
    deprecation `reason` when there is one).

Replacement chains (deprecated in 2.7 for a key deprecated again in 3.x) are followed to
their end. A key whose type is a Map or Properties ends in `.` (it renames or removes the
whole prefix, map keys included). Only facts are written: names, replacements, reasons.

Usage: extract.py GIT_DIR [--boot3-tag v3.3.5] [--boot2-tag v2.7.18] [--out FILE]
Python 3 standard library only.
"""

import argparse
import json
import subprocess
import sys

METADATA = "src/main/resources/META-INF/additional-spring-configuration-metadata.json"
# Keys whose replacement is written differently although the metadata gives no type for it.
NOT_SAME_VALUE = {
    "spring.couchbase.bootstrap-hosts",  # a host list becomes a connection string
}
NUMBERS = {"java.lang.Integer", "java.lang.Long", "int", "long"}


def git(git_dir, *args):
    return subprocess.run(
        ["git", "--git-dir", git_dir, *args], check=True, capture_output=True
    ).stdout


def metadata_files(git_dir, tag):
    names = git(git_dir, "ls-tree", "-r", "--name-only", tag).decode().splitlines()
    return sorted(n for n in names if n.endswith(METADATA))


def entries(git_dir, tag):
    """name -> (entry, module) for every property in the tag's additional metadata."""
    out = {}
    for path in metadata_files(git_dir, tag):
        module = path.split("/src/main/")[0].rsplit("/", 1)[-1]
        data = json.loads(git(git_dir, "show", f"{tag}:{path}"))
        for prop in data.get("properties", []):
            out[prop["name"]] = (prop, module)
    return out


def deprecation(prop):
    dep = prop.get("deprecation")
    if dep is None and prop.get("deprecated"):
        dep = {}
    return dep


def is_map(type_name):
    return bool(type_name) and (
        type_name.startswith("java.util.Map") or type_name == "java.util.Properties"
    )


def same_value(old_type, new_type):
    if not old_type or not new_type or old_type == new_type:
        return True
    if new_type == "java.time.Duration" and old_type in NUMBERS:
        return True
    return {old_type, new_type} == {"java.util.List<java.lang.String>", "java.lang.String[]"}


def carries_value(name, old_type, target, types, group):
    """Does the replacement take the old key's value as it is?"""
    if name in NOT_SAME_VALUE:
        return False
    target_type = types.get(target)
    if not same_value(old_type, target_type):
        return False
    if len(group) > 1:
        # Several old keys for one new: only when they all held the same kind of value.
        group_types = {types.get(g) for g in group}
        if None in group_types or len(group_types) > 1:
            return False
    if old_type == "java.lang.Boolean" and target_type is None:
        # A switch only stays a switch under a name that says so.
        last = name.rsplit(".", 1)[-1]
        return "enable" in target or target.rsplit(".", 1)[-1] == last
    return True


def collect(git_dir, boot3_tag, boot2_tag):
    boot3 = entries(git_dir, boot3_tag)
    boot2 = entries(git_dir, boot2_tag)
    deprecated = {}  # name -> (prop, tag, module)
    for name, (prop, module) in boot3.items():
        if deprecation(prop) is not None:
            deprecated[name] = (prop, boot3_tag, module)
    for name, (prop, module) in boot2.items():
        if deprecation(prop) is not None and name not in boot3:
            deprecated[name] = (prop, boot2_tag, module)
    types = {n: p.get("type") for n, (p, _) in boot2.items()}
    types.update({n: p.get("type") for n, (p, _) in boot3.items()})

    def final(name, seen=()):
        """The end of a replacement chain (None when it ends in a removal)."""
        if name not in deprecated or name in seen:
            return name
        nxt = deprecation(deprecated[name][0]).get("replacement")
        return final(nxt, (*seen, name)) if nxt else None

    targets = {}
    for name, (prop, _, _) in deprecated.items():
        repl = deprecation(prop).get("replacement")
        if repl:
            targets.setdefault(final(repl) or repl, []).append(name)

    renames, removals = [], []
    for name in sorted(deprecated):
        prop, tag, module = deprecated[name]
        dep = deprecation(prop)
        repl = dep.get("replacement")
        end = final(repl) if repl else None
        old_type = prop.get("type")
        suffix = "." if is_map(old_type) else ""
        origin = f"{tag} {module}"
        if end and carries_value(name, old_type, end, types, targets[end]):
            renames.append(
                {"from": name + suffix, "to": end + suffix, "source": origin}
            )
            continue
        item = {"key": name + suffix, "source": origin}
        if end:
            item["replacement"] = end
        reason = dep.get("reason")
        if not reason and end and len(targets[end]) > 1 and name not in NOT_SAME_VALUE:
            reason = "Replaced by one property for several old ones: " + ", ".join(
                sorted(targets[end])
            )
        elif not reason and end:
            reason = "The replacement takes a different value"
            if old_type and types.get(end):
                reason += f" ({old_type} -> {types.get(end)})"
        if reason:
            item["reason"] = " ".join(reason.split())
        removals.append(item)
    return renames, removals


def q(s):
    return json.dumps(s)


def render(renames, removals, boot3_tag, boot2_tag, commits):
    lines = [
        "# GENERATED by scripts/spring-metadata/extract.py; do not edit by hand (hand-written",
        "# renames live in spring-boot-3.yml). Source: the deprecated entries of each module's",
        f"# {METADATA}",
        "# in https://github.com/spring-projects/spring-boot at",
        f"#   {boot3_tag} ({commits[0]}): every entry with a `deprecation`,",
        f"#   {boot2_tag} ({commits[1]}): deprecated entries absent from {boot3_tag}.",
        "# A key is renamed when its replacement takes the same value; otherwise it is listed",
        "# under removals (the replacement, when there is one, is set by hand). A key ending",
        "# in `.` is a map: the rename or removal covers every key below it.",
        f"boot3_tag: {boot3_tag}",
        f"boot2_tag: {boot2_tag}",
        "renames:",
    ]
    for r in renames:
        lines.append(
            f"  - {{ from: {q(r['from'])}, to: {q(r['to'])}, source: {q(r['source'])} }}"
        )
    lines.append("removals:")
    for r in removals:
        fields = [f"key: {q(r['key'])}"]
        for f in ("replacement", "reason", "source"):
            if f in r:
                fields.append(f"{f}: {q(r[f])}")
        lines.append("  - { " + ", ".join(fields) + " }")
    return "\n".join(lines) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("git_dir")
    ap.add_argument("--boot3-tag", default="v3.3.5")
    ap.add_argument("--boot2-tag", default="v2.7.18")
    ap.add_argument("--out", default="src/recipes/catalog/spring-boot-3-properties.yml")
    args = ap.parse_args(argv)
    renames, removals = collect(args.git_dir, args.boot3_tag, args.boot2_tag)
    commits = [
        git(args.git_dir, "rev-parse", f"{t}^{{commit}}").decode().strip()
        for t in (args.boot3_tag, args.boot2_tag)
    ]
    text = render(renames, removals, args.boot3_tag, args.boot2_tag, commits)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{args.out}: {len(renames)} renames, {len(removals)} removals", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
