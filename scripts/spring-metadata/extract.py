#!/usr/bin/env python3
"""Writes src/recipes/catalog/spring-boot-3-properties.yml from Spring Boot's own metadata.

Reads every module's
`src/main/resources/META-INF/additional-spring-configuration-metadata.json` (the file
`spring-boot-properties-migrator` learns deprecated keys from) at two tags of a
spring-boot git directory (bare is fine; nothing is checked out):

  * the Boot 3 tag the catalog targets (`spring_boot_3` in src/config.rs): every entry with
    a `deprecation` object;
  * the last 2.7 tag: entries deprecated there and absent from the Boot 3 tag (what 3.0
    dropped);

and the getters annotated `@DeprecatedConfigurationProperty` in the `*Properties.java` of
both tags (the other half of the generated metadata; the key is the class's
`@ConfigurationProperties` prefix, the nested classes' getter names and the getter's name,
kebab-cased). A 3.x getter deprecated without a replacement still works and is left out.
The getters of the Boot 3 tag also tell which keys still exist and the replacements' types.

Each deprecated key becomes
  * a rename (`from` -> `to`) when it names a replacement that takes the same value: no
    other deprecated key names the same replacement, and where the metadata gives both
    types they agree (a number becoming a Duration counts as the same, as it does for the
    properties migrator);
  * otherwise a removal (`key`, with the `replacement` to set by hand and the
    deprecation `reason` when there is one; `still_read` when a getter of the Boot 3 tag
    still binds the key).

Replacement chains (deprecated in 2.7 for a key deprecated again in 3.x) are followed to
their end. A key whose type is a Map or Properties ends in `.` (it renames or removes the
whole prefix, map keys included). Only facts are written: names, replacements, reasons.

Usage: extract.py GIT_DIR [--boot3-tag v3.3.5] [--boot2-tag v2.7.18] [--out FILE] [--check]
(GIT_DIR: e.g. a bare clone of https://github.com/spring-projects/spring-boot.)
Python 3 standard library only.
"""

import argparse
import json
import re
import subprocess
import sys

METADATA = "src/main/resources/META-INF/additional-spring-configuration-metadata.json"
# Keys whose replacement is written differently although the metadata gives no type for it.
NOT_SAME_VALUE = {
    "spring.couchbase.bootstrap-hosts",  # a host list becomes a connection string
}
NESTED = "(nested group)"
BOXED = {"boolean": "Boolean", "int": "Integer", "long": "Long", "double": "Double"}
# Types whose values are written as the same text a String property held.
TEXTUAL = {"URI", "URL", "Resource", "Charset", "Locale", "MimeType"}
SCALARS = {"Boolean", "Integer", "Long", "Double", "String", "Duration", "DataSize"}


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


GETTER = re.compile(r"^\s*public\s+([\w.<>,?\[\] ]+?)\s+(?:get|is)([A-Z]\w*)\(\)\s*\{")
CLASS = re.compile(r"\b(?:class|interface)\s+(\w+)")
PREFIX = re.compile(r'@ConfigurationProperties\(\s*(?:(?:prefix|value)\s*=\s*)?"([^"]+)"')
ARG = re.compile(r'(replacement|reason)\s*=\s*((?:"(?:[^"\\]|\\.)*"\s*\+?\s*)+)')


def kebab(name):
    return re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", name).lower()


def java_type(t):
    return " ".join(t.split())


def code_only(line, in_comment):
    """The line without comments and string literals; whether a block comment stays open."""
    out, i = [], 0
    while i < len(line):
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            in_comment, i = False, end + 2
        elif line.startswith("/*", i):
            in_comment, i = True, i + 2
        elif line.startswith("//", i):
            break
        elif line[i] in "\"'":
            q, i = line[i], i + 1
            while i < len(line) and line[i] != q:
                i += 2 if line[i] == "\\" else 1
            i += 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_comment


def java_properties(text):
    """(key, java type, deprecation or None) for each getter of a @ConfigurationProperties
    class and the classes nested in it. A nested class is named by its parent's getter
    that returns it."""
    m = PREFIX.search(text)
    if not m or "@ConfigurationProperties" not in text.split("class", 1)[0] + "class":
        return []
    classes = {}  # qualified name -> {"getters": [(name, type, dep)], "parent": q or None}
    stack = []  # (qualified name, depth its body opened at)
    depth, in_comment, pending, annotation = 0, False, None, None
    for raw in text.splitlines():
        code, in_comment = code_only(raw, in_comment)
        if annotation is not None:
            annotation += " " + raw.strip()
        elif "@DeprecatedConfigurationProperty" in code:
            annotation = raw.strip()
        c = CLASS.search(code)
        if c and pending is None:
            pending = c.group(1)
        g = GETTER.match(raw)
        if g and stack and depth == stack[-1][1]:
            dep = None
            if annotation is not None:
                dep = {"level": "warning"}
                for k, v in ARG.findall(annotation):
                    dep[k] = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', v))
            classes[stack[-1][0]]["getters"].append((kebab(g.group(2)), g.group(1), dep))
            annotation = None
        for ch in code:
            if ch == "{":
                depth += 1
                if pending is not None:
                    parent = stack[-1][0] if stack else None
                    q = f"{parent}.{pending}" if parent else pending
                    classes[q] = {"getters": [], "parent": parent, "name": pending}
                    stack.append((q, depth))
                    pending = None
            elif ch == "}":
                if stack and stack[-1][1] == depth:
                    stack.pop()
                depth -= 1
    paths = {}

    def path(q):
        if q in paths:
            return paths[q]
        info = classes[q]
        result = None
        if info["parent"] is None:
            result = m.group(1)
        else:
            for name, t, _ in classes[info["parent"]]["getters"]:
                if t.strip() == info["name"]:
                    above = path(info["parent"])
                    result = above and f"{above}.{name}"
                    break
        paths[q] = result
        return result

    out = []
    for q, info in classes.items():
        base = path(q)
        if base:
            nested = {c["name"] for c in classes.values()}
            out.extend(
                (f"{base}.{n}", NESTED if t.strip() in nested else java_type(t), d)
                for n, t, d in info["getters"]
            )
    return out


def java_entries(git_dir, tag):
    """name -> (entry, module) for every getter of the tag's `*Properties.java` (main
    sources), shaped like metadata entries."""
    names = git(git_dir, "ls-tree", "-r", "--name-only", tag).decode().splitlines()
    out = {}
    for path in names:
        if not path.endswith("Properties.java") or "/src/main/java/" not in path:
            continue
        if "spring-boot-docs" in path or "/spring-boot-tests/" in path:
            continue
        text = git(git_dir, "show", f"{tag}:{path}").decode("utf-8", "replace")
        if "@ConfigurationProperties" not in text:
            continue
        module = path.split("/src/main/")[0].rsplit("/", 1)[-1]
        for key, type_name, dep in java_properties(text):
            entry = {"name": key, "type": type_name}
            if dep is not None:
                entry["deprecation"] = dep
            out.setdefault(key, (entry, module))
    return out


def deprecation(prop):
    dep = prop.get("deprecation")
    if dep is None and prop.get("deprecated"):
        dep = {}
    return dep


def simple(type_name):
    """A type as both sources can compare it: no packages, no outer classes, no
    primitives (`java.util.Map<java.lang.String,java.lang.String>` -> `Map<String,String>`)."""
    if not type_name or type_name == NESTED:
        return type_name
    t = re.sub(r"[\w$]+(?:[.$][\w$]+)*", lambda m: re.split(r"[.$]", m.group(0))[-1], type_name)
    t = t.replace(" ", "")
    return BOXED.get(t, t)


def is_map(type_name):
    """Keys below this one belong to it (a map, or a nested group of properties)."""
    t = simple(type_name)
    return bool(t) and (t.startswith("Map<") or t in ("Map", "Properties", NESTED))


def same_value(old_type, new_type):
    old, new = simple(old_type), simple(new_type)
    if not old or not new or old == new:
        return True
    if NESTED in (old, new):
        return not ({old, new} & SCALARS)
    if new in ("Duration", "DataSize") and old in ("Integer", "Long"):
        return True  # a bare number keeps its default unit
    if old == "String" and new in TEXTUAL:
        return True
    # One value for a list of them, or the list written either way.
    return old in ("String", "List<String>", "String[]") and new in ("List<String>", "String[]")


def carries_value(name, old_type, target, types, group):
    """Does the replacement take the old key's value as it is?"""
    if name in NOT_SAME_VALUE:
        return False
    target_type = types.get(target)
    if not same_value(old_type, target_type):
        return False
    if len(group) > 1:
        # Several old keys for one new: only when each held a value the new one takes.
        if target_type is None or not all(
            types.get(g) and same_value(types.get(g), target_type) for g in group
        ):
            return False
    if simple(old_type) == "Boolean" and target_type is None:
        # A switch only stays a switch under a name that says so.
        last = name.rsplit(".", 1)[-1]
        return "enable" in target or target.rsplit(".", 1)[-1] == last
    return True


def collect(git_dir, boot3_tag, boot2_tag):
    boot3 = entries(git_dir, boot3_tag)
    boot2 = entries(git_dir, boot2_tag)
    java3 = java_entries(git_dir, boot3_tag)
    java2 = java_entries(git_dir, boot2_tag)
    live3 = set(boot3) | set(java3)
    deprecated = {}  # name -> (prop, tag, module)
    for name, (prop, module) in boot3.items():
        if deprecation(prop) is not None:
            deprecated[name] = (prop, boot3_tag, module)
    for name, (prop, module) in java3.items():
        # Deprecated in 3.x and still read: renamed when there is a replacement, else kept.
        dep = deprecation(prop)
        if dep is not None and dep.get("replacement") and name not in deprecated:
            deprecated[name] = (prop, boot3_tag, module)
    for source in (boot2, java2):
        for name, (prop, module) in source.items():
            if deprecation(prop) is not None and name not in live3 and name not in deprecated:
                deprecated[name] = (prop, boot2_tag, module)
    types = {}
    for source in (java2, boot2, java3, boot3):
        types.update({n: p.get("type") for n, (p, _) in source.items() if p.get("type")})

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
        if name in java3:
            # Deprecated, yet a getter of the Boot 3 tag still binds it.
            item["still_read"] = True
        reason = dep.get("reason")
        if repl and not end and not reason:
            # The replacement was removed in turn: its reason is this key's.
            last = repl
            while deprecation(deprecated[last][0]).get("replacement"):
                last = deprecation(deprecated[last][0])["replacement"]
            reason = deprecation(deprecated[last][0]).get("reason")
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
        "# and the @DeprecatedConfigurationProperty getters of each *Properties.java",
        "# in https://github.com/spring-projects/spring-boot at",
        f"#   {boot3_tag} ({commits[0]}): every entry with a `deprecation`,",
        f"#   {boot2_tag} ({commits[1]}): deprecated entries absent from {boot3_tag}.",
        "# A key is renamed when its replacement takes the same value; otherwise it is listed",
        "# under removals (the replacement, when there is one, is set by hand). A key ending",
        "# in `.` is a map or a group of nested properties: the rename or removal covers",
        "# every key below it.",
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
        for f in ("replacement", "reason", "still_read", "source"):
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
    ap.add_argument(
        "--check", action="store_true", help="exit 1 when --out differs from what would be written"
    )
    args = ap.parse_args(argv)
    renames, removals = collect(args.git_dir, args.boot3_tag, args.boot2_tag)
    commits = [
        git(args.git_dir, "rev-parse", f"{t}^{{commit}}").decode().strip()
        for t in (args.boot3_tag, args.boot2_tag)
    ]
    text = render(renames, removals, args.boot3_tag, args.boot2_tag, commits)
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current != text:
            print(f"{args.out} is out of date; run {sys.argv[0]} again", file=sys.stderr)
            sys.exit(1)
        print(f"{args.out}: up to date", file=sys.stderr)
        return
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{args.out}: {len(renames)} renames, {len(removals)} removals", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
