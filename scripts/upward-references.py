#!/usr/bin/env python3
"""Counts, per Java package, the references that point up: from a class to one that depends on it.

    scripts/upward-references.py [--list] [SOURCE_ROOT ...]

A reference A -> B is any use of B's name in A's code (comments and string literals left out):
an import, a qualified name, or B's simple name where A and B share a package (which needs no
import). Nested classes count as their top-level class's.

Up: the classes are put in an order, bottom first, in which as few references as possible point
from a class to one above it; those few are the references that point up. Each of them goes from
a class to one that depends on it again (directly or through others: they are on a loop), and
removing them would leave the classes layered. A layered package has none; a loop of two classes
that refer to each other has one. The order is found per loop of classes (strongly connected
component) by the greedy ordering of Eades, Lin and Smyth, then improved by moving one class at a
time to its best place until no move helps: the count is an upper bound of the least possible,
and the same for the same sources.

Default source roots: every module's src/main/java. Prints one line per package (references in
all, references that point up) and, with --list, each upward reference.
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def strip_comments_and_strings(s):
    """The source with comments, text blocks, string and character literals blanked."""
    out = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if s.startswith("//", i):
            j = s.find("\n", i)
            i = n if j < 0 else j
        elif s.startswith("/*", i):
            j = s.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif s.startswith('"""', i):
            j = s.find('"""', i + 3)
            i = n if j < 0 else j + 3
            out.append('""')
        elif c in "\"'":
            i += 1
            while i < n and s[i] != c:
                i += 2 if s[i] == "\\" else 1
            i += 1
            out.append(c + c)
        else:
            out.append(c)
            i += 1
    return "".join(out)


PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
IMPORT = re.compile(r"^\s*import\s+(static\s+)?([\w.]+)(\.\*)?\s*;", re.M)
WORD = re.compile(r"\b[A-Z]\w*\b")
QUALIFIED = re.compile(r"\b((?:[a-z]\w*\.)+)([A-Z]\w*)")


def read_classes(roots):
    """{(package, class): code} for every top-level class (one per file) under the roots."""
    classes = {}
    for root in roots:
        for d, _, files in os.walk(root):
            for f in sorted(files):
                if f.endswith(".java") and f != "package-info.java":
                    with open(os.path.join(d, f), encoding="utf-8") as fh:
                        code = strip_comments_and_strings(fh.read())
                    m = PACKAGE.search(code)
                    pkg = m.group(1) if m else ""
                    classes[(pkg, f[:-5])] = code
    return classes


def references(classes):
    """{class: set of classes it refers to}, among the classes read."""
    by_pkg = defaultdict(set)
    for pkg, name in classes:
        by_pkg[pkg].add(name)
    refs = {}
    for (pkg, name), code in classes.items():
        out = set()
        for m in IMPORT.finditer(code):
            parts = m.group(2).split(".")
            # the first capitalised part is the top-level class (the rest: nested or static members)
            for k, p in enumerate(parts):
                if p[:1].isupper():
                    target = (".".join(parts[:k]), p)
                    if target in classes:
                        out.add(target)
                    break
        body = IMPORT.sub("", PACKAGE.sub("", code))
        for m in QUALIFIED.finditer(body):
            target = (m.group(1)[:-1], m.group(2))
            if target in classes:
                out.add(target)
        for w in set(WORD.findall(body)):
            if w in by_pkg[pkg]:
                out.add((pkg, w))
        out.discard((pkg, name))
        refs[(pkg, name)] = out
    return refs


def loops(refs):
    """The strongly connected components (Tarjan's algorithm, iterative), as {class: component id}."""
    index, low, on_stack, comp = {}, {}, set(), {}
    stack, counter = [], [0]
    for start in refs:
        if start in index:
            continue
        work = [(start, iter(sorted(refs[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(refs[w]))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = v
                    if w == v:
                        break
    return comp


def order_loop(nodes, refs):
    """An order of one loop's classes (bottom first) with few references pointing up."""
    nodes = sorted(nodes)
    inside = set(nodes)
    out = {v: sorted(w for w in refs[v] if w in inside) for v in nodes}
    inn = {v: sorted(u for u in nodes if v in out[u]) for v in nodes}
    # Eades, Lin and Smyth: sinks to the bottom, sources to the top, else the class that is
    # used by the most and uses the fewest goes down first.
    left = set(nodes)
    bottom, top = [], []
    def degree(v, edges):
        return sum(1 for w in edges[v] if w in left)
    while left:
        changed = True
        while changed:
            changed = False
            for v in sorted(left):
                if degree(v, out) == 0:       # uses nothing left: bottom
                    bottom.append(v); left.discard(v); changed = True
            for v in sorted(left):
                if degree(v, inn) == 0:       # used by nothing left: top
                    top.append(v); left.discard(v); changed = True
        if left:
            v = max(sorted(left), key=lambda x: degree(x, inn) - degree(x, out))
            bottom.append(v)
            left.discard(v)
    order = bottom + list(reversed(top))
    def ups(o):
        pos = {v: i for i, v in enumerate(o)}
        return sum(1 for v in o for w in out[v] if pos[w] > pos[v])
    best = ups(order)
    improved = True
    while improved:
        improved = False
        for v in nodes:
            rest = [x for x in order if x != v]
            for i in range(len(rest) + 1):
                cand = rest[:i] + [v] + rest[i:]
                n = ups(cand)
                if n < best:
                    best, order, improved = n, cand, True
    return order


def main(argv):
    listing = "--list" in argv
    roots = [a for a in argv if not a.startswith("--")]
    if not roots:
        roots = sorted(os.path.join(ROOT, m, "src", "main", "java") for m in os.listdir(ROOT)
                       if os.path.isdir(os.path.join(ROOT, m, "src", "main", "java")))
    classes = read_classes(roots)
    refs = references(classes)
    comp = loops(refs)
    members = defaultdict(list)
    for c, k in comp.items():
        members[k].append(c)
    position = {}
    for k, nodes in members.items():
        if len(nodes) > 1:
            for i, v in enumerate(order_loop(nodes, refs)):
                position[v] = i
    total, up = defaultdict(int), defaultdict(list)
    for a, targets in refs.items():
        for b in targets:
            total[a[0]] += 1
            if comp[a] == comp[b] and position[b] > position[a]:
                up[a[0]].append((a, b))
    print("%-40s %10s %8s" % ("package", "references", "up"))
    for pkg in sorted(total):
        print("%-40s %10d %8d" % (pkg, total[pkg], len(up[pkg])))
    if listing:
        for pkg in sorted(up):
            for a, b in sorted(up[pkg]):
                print("%s: %s -> %s  (a loop of %d classes)" % (pkg, a[1], b[1], len(members[comp[a]])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
