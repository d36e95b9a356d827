#!/usr/bin/env python3
"""The layout of the repository, checked (README, "Layout"; issue "One room per concern").

1. No include runs back up: each folder includes only from itself and the folders below it
   (support < semantics < interp < lower < bounds < schedule < oracle < candidates < report
   < fuzz < tools < playground); a candidate's folder includes no other candidate's, except the kernel
   harness that candidates emitting C run in.
2. The README's layout table lists every top-level folder, and nothing that is not one.
3. Every source file opens with a comment saying why it exists.
4. Every repository path a source comment, a doc or the README names exists (a moved file
   leaves no stale reference behind).

Usage: check_layout.py [REPO]; exit status 1 with one line per problem.
"""
import os
import re
import subprocess
import sys

LAYERS = ['support', 'semantics', 'interp', 'lower', 'bounds', 'schedule', 'oracle', 'candidates', 'report',
          'fuzz', 'tools', 'playground']
# What a candidate's folder may use of candidates/ beside itself.
CANDIDATE_SHARED = {'candidates/kernel'}

def tracked(repo):
    out = subprocess.check_output(['git', '-C', repo, 'ls-files'], text=True)
    return [f for f in out.split('\n') if f]

def candidate_folder(path):
    parts = path.split('/')
    return '/'.join(parts[:2]) if parts[0] == 'candidates' and len(parts) > 2 else None

def check_includes(repo, files, problems):
    rank = {d: i for i, d in enumerate(LAYERS)}
    for f in files:
        top = f.split('/')[0]
        if top not in rank or not f.endswith(('.cpp', '.hpp', '.h')):
            continue
        with open(os.path.join(repo, f), encoding='utf-8') as src:
            for n, line in enumerate(src, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                inc = m.group(1)
                itop = inc.split('/')[0]
                if itop in rank and rank[itop] > rank[top]:
                    problems.append(f'{f}:{n}: {top}/ is below {itop}/ but includes {inc}')
                mine, theirs = candidate_folder(f), candidate_folder(inc)
                if mine and theirs and mine != theirs and theirs not in CANDIDATE_SHARED:
                    problems.append(f'{f}:{n}: the candidate {mine}/ includes another candidate\'s {inc}')

def check_readme_table(repo, files, problems):
    with open(os.path.join(repo, 'README.md'), encoding='utf-8') as r:
        text = r.read()
    m = re.search(r'^## Layout\n(.*?)(?=^## )', text, re.S | re.M)
    if not m:
        problems.append('README.md: no "## Layout" section')
        return
    listed = set(re.findall(r'^\| `([^`/]+)/', m.group(1), re.M))
    folders = {f.split('/')[0] for f in files if '/' in f and not f.startswith('.')}
    for d in sorted(folders - listed):
        problems.append(f'README.md: the layout table does not list the folder {d}/')
    for d in sorted(listed - folders):
        problems.append(f'README.md: the layout table lists {d}/, which is not a folder of the repository')

def check_opening_comments(repo, files, problems):
    for f in files:
        if f.split('/')[0] not in LAYERS or not f.endswith(('.cpp', '.hpp')):
            continue
        with open(os.path.join(repo, f), encoding='utf-8') as src:
            first = src.readline()
        if not first.startswith('//'):
            problems.append(f'{f}:1: the file does not open with a comment saying why it exists')

PATH_RE = re.compile(r'(?<![\w./-])((?:' + '|'.join(LAYERS + ['tests', 'docs', 'examples', 'bench', 'scripts', 'cmake']) +
                     r')/[\w./-]*\w)')

def check_named_paths(repo, files, problems):
    existing = set(files)
    dirs = {os.path.dirname(f) for f in files}
    for d in list(dirs):
        while d:
            d = os.path.dirname(d)
            dirs.add(d)
    for f in files:
        top = f.split('/')[0]
        is_source = top in LAYERS and f.endswith(('.cpp', '.hpp'))
        if not (is_source or f.endswith('.md') or f == 'CMakeLists.txt'):
            continue
        with open(os.path.join(repo, f), encoding='utf-8') as src:
            for n, line in enumerate(src, 1):
                if is_source and '//' not in line:
                    continue
                text = line[line.index('//'):] if is_source else line
                for p in PATH_RE.findall(text):
                    p = p.rstrip('.')
                    if '*' in p or '<' in p or p in existing or p in dirs or p.rstrip('/') in dirs:
                        continue
                    # `bounds/beta0` for its .hpp and .cpp, `tests/invalid/validity_` for a family
                    if any(e.startswith(p) for e in existing):
                        continue
                    if re.search(r'(/(NAME|FILE|DIR|X|M|ID)\b|_NN_)', p):
                        continue  # a pattern, not a path
                    problems.append(f'{f}:{n}: names {p}, which does not exist')

def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..')
    files = tracked(repo)
    problems = []
    check_includes(repo, files, problems)
    check_readme_table(repo, files, problems)
    check_opening_comments(repo, files, problems)
    check_named_paths(repo, files, problems)
    for p in problems:
        print(p)
    print(f'layout: {len(problems)} problem(s) in {len(files)} files')
    return 1 if problems else 0

if __name__ == '__main__':
    sys.exit(main())
