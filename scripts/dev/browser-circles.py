#!/usr/bin/env python3
"""Import circles among the files of daemon/src/browser (issue 34): each file -> the browser files it
names through crate::browser::... or super::... paths; prints every strongly connected set of more
than one file. Usage: scripts/dev/browser-circles.py [path to daemon/src/browser]"""
import os, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'daemon', 'src', 'browser')
files = {}
for dp, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(dp, f); rel = os.path.relpath(p, root)[:-3]
            files[rel] = open(p).read()
mods = set(files)
def resolve(cur, path):
    parts = path.split('::')
    if parts[0] == 'super':
        base = os.path.dirname(cur) if not cur.endswith('/mod') else os.path.dirname(os.path.dirname(cur))
        parts = ([base] if base else []) + parts[1:]
        cand = '/'.join(p for p in parts if p)
    else:
        cand = '/'.join(parts)
    segs = cand.split('/')
    for n in range(len(segs), 0, -1):
        c = '/'.join(segs[:n])
        if c in mods and c != cur: return c
        if c + '/mod' in mods and c + '/mod' != cur: return c + '/mod'
    return None
edges = {m: set() for m in mods}
for m, src in files.items():
    src = re.sub(r'//.*', '', src)
    for path in re.findall(r'crate::browser::((?:[a-z_]+::)*[a-z_]+)', src):
        t = resolve(m, path)
        if t: edges[m].add(t)
    for path in re.findall(r'\bsuper::((?:[a-z_]+::)*[a-z_]+)', src):
        t = resolve(m, 'super::' + path)
        if t: edges[m].add(t)
# Tarjan
idx = {}; low = {}; st = []; on = set(); out = []; i = [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = i[0]; i[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: out.append(sorted(comp))
for v in mods:
    if v not in idx: sc(v)
for c in out: print(len(c), c)
print('circles:', len(out))
