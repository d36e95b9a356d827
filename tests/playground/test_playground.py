#!/usr/bin/env python3
"""The playground in a real browser (docs/playground.md): headless Chromium, driven by
Selenium through Debian's chromedriver, opens the page built by scripts/build-playground.sh
from disk and checks, against the halo executable run on the same files:

1. every pane of the default example prints what the command it names prints;
2. every ```halo-run example of docs/guide/ gives the command line's output and exit
   status (the examples whose --engine is another program cannot run in a browser: the
   playground must say so, and they are counted);
3. an edit typed into the editor recomputes the panes, and the output is the executable's
   on the edited file;
4. an error typed into the editor is shown at its line and column, with the message
   `halo check` prints;
5. a runaway program stops with the command's limit message (exit 3), and a dependency
   chain deeper than the browser's stack stops as at a limit, after which the page works on;
6. the same page served over HTTP from its folder works as from disk;
7. a fresh load of `#example=PATH` opens that example.

Without a built page, Selenium or chromedriver the test says what is missing and is
skipped (exit 77), except where HALO_REQUIRE_BROWSER is set (CI sets it): then it fails.
`--screenshot PNG` also saves a picture of the page (docs/playground.png).
"""
import argparse
import functools
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
import threading
import time
from pathlib import Path

SKIP = 77
LIMITS = ['--timeout', '5', '--max-steps', '5000000']


def skip_or_fail(why):
    if os.environ.get('HALO_REQUIRE_BROWSER'):
        print(f'FAIL: {why} (HALO_REQUIRE_BROWSER is set)')
        sys.exit(1)
    print(f'SKIPPED: {why}')
    sys.exit(SKIP)


def split_words(s):
    out, cur, quoted, anything = [], '', False, False
    for c in s:
        if c == "'":
            quoted, anything = not quoted, True
        elif not quoted and c in ' \t':
            if anything:
                out.append(cur)
            cur, anything = '', False
        else:
            cur, anything = cur + c, True
    if anything:
        out.append(cur)
    return out


def guide_examples(repo):
    """(page, line, args) of every ```halo-run block, as tests/test_docs.cpp reads them."""
    found = []
    for page in sorted((repo / 'docs' / 'guide').glob('*.md')):
        lines = page.read_text(encoding='utf-8').split('\n')
        for i, line in enumerate(lines):
            if line.rstrip().startswith('```halo-run') and i + 1 < len(lines):
                cmd = lines[i + 1].rstrip()
                assert cmd.startswith('$ halo '), f'{page}:{i + 2}: a halo-run block starts with "$ halo "'
                found.append((page.relative_to(repo), i + 1, split_words(cmd[2:])))
    return found


def starts_program(args):
    """Does the command run an external bounds engine, which a page cannot start?"""
    return '--engine' in args and args[args.index('--engine') + 1] not in ('beta0', 'beta1', 'beta0-literal')


def try_it_links(repo):
    """(page, line, args, fragment) of every "try it" link into the playground (docs/guide/)."""
    found = []
    for page in sorted((repo / 'docs' / 'guide').glob('*.md')):
        for i, line in enumerate(page.read_text(encoding='utf-8').split('\n')):
            m = re.search(r'\[try it\]\([^)#]*playground/index\.html#(cmd=[^)]*)\)', line)
            if m:
                cmd = urllib.parse.unquote(m.group(1)[len('cmd='):])
                found.append((page.relative_to(repo), i + 1, split_words(cmd), m.group(1)))
    return found


class Failures:
    def __init__(self):
        self.items = []

    def check(self, ok, what):
        if not ok:
            self.items.append(what)
            print('  FAIL:', what.split('\n')[0])
        return ok


def native(halo, args, cwd):
    p = subprocess.run([halo] + args[1:], cwd=cwd, capture_output=True, text=True, timeout=300)
    return {'status': p.returncode, 'stdout': p.stdout, 'stderr': p.stderr}


def wait_idle(driver, timeout=120):
    end = time.time() + timeout
    while time.time() < end:
        state = driver.execute_script('return document.body.dataset.state')
        if state in ('idle', 'failed'):
            return state
        time.sleep(0.1)
    return driver.execute_script('return document.body.dataset.state')


def run_in_page(driver, args, files=None):
    return driver.execute_async_script(
        'const done = arguments[arguments.length - 1];'
        'window.haloPlayground.run(arguments[0], arguments[1]).then(done, (e) => done({status: -1, stderr: String(e)}));',
        args, files or {})


def pane_outputs(driver, pane):
    return driver.execute_script(
        'return Array.from(document.querySelectorAll("#pane-" + arguments[0] + " .pane-body > pre.out"))'
        '.map((p) => p.textContent);', pane)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--page', required=True)
    ap.add_argument('--halo', required=True)
    ap.add_argument('--repo', required=True)
    ap.add_argument('--screenshot')
    a = ap.parse_args()
    repo, page, halo = Path(a.repo).resolve(), Path(a.page).resolve(), str(Path(a.halo).resolve())

    if not page.exists():
        skip_or_fail(f'{page} is not built (scripts/build-playground.sh; it needs Debian\'s emscripten)')
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
    except ImportError:
        skip_or_fail('Selenium is not installed in .venv (scripts/setup.sh installs it)')
    driver_path = '/usr/bin/chromedriver'
    if not os.path.exists(driver_path):
        skip_or_fail('chromedriver is not installed (apt-get install chromium-driver, as scripts/setup.sh does)')

    profile = tempfile.mkdtemp(prefix='halo_playground_')
    opts = webdriver.ChromeOptions()
    for flag in ('--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--window-size=1400,900',
                 f'--user-data-dir={profile}'):
        opts.add_argument(flag)
    if os.path.exists('/usr/bin/chromium'):
        opts.binary_location = '/usr/bin/chromium'
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    driver.set_script_timeout(300)
    fails = Failures()
    try:
        t0 = time.time()
        driver.get(page.as_uri())
        state = wait_idle(driver, 180)
        status = driver.find_element(By.ID, 'status').text
        if not fails.check(state == 'idle', f'the page did not load: state {state}, status "{status}"'):
            raise SystemExit
        print(f'loaded and computed every pane in {time.time() - t0:.1f} s: {status}')

        # 1. The panes of the default example against the executable.
        program = driver.execute_script('return document.getElementById("file-name").textContent')
        fails.check(program == 'examples/thesis_2_2.halo', f'the default example is {program}')
        panes = {
            'output': [['halo', 'eval', program] + LIMITS],
            'lowered': [['halo', 'lower', program]],
            'schedule': [['halo', 'schedule', program, '--steps', '--timeout', '5']],
            'bounds': [['halo', 'bounds', program, '--timeout', '5'],
                       ['halo', 'bounds', program, '--engine', 'beta1', '--timeout', '5']],
            'verdict': [['halo', 'oracle', program] + LIMITS],
        }
        for pane, commands in panes.items():
            shown = pane_outputs(driver, pane)
            fails.check(len(shown) == len(commands), f'pane {pane} shows {len(shown)} outputs, not {len(commands)}')
            for args, text in zip(commands, shown):
                n = native(halo, args, repo)
                fails.check(text == n['stdout'] + n['stderr'],
                            f'pane {pane}: {" ".join(args)}\n--- page ---\n{text}\n--- halo ---\n{n["stdout"]}{n["stderr"]}')
        simplified = driver.execute_script(
            'const h = document.querySelector("#pane-bounds .explain-host");'
            'return h ? h.shadowRoot.querySelectorAll(".simplified").length : -1;')
        fails.check(simplified > 0, f'the bounds pane shows {simplified} simplified hole expressions')
        reads = driver.execute_script(
            'const h = document.querySelector("#pane-trace .explain-host");'
            'return h ? Array.from(h.shadowRoot.querySelectorAll("table.trace td")).map((td) => td.textContent) : [];')
        fails.check(any(t.startswith('g[') and ' = ' in t for t in reads),
                    'the trace pane shows no value read from g (the reads column)')
        trace_rows = driver.execute_script(
            'const h = document.querySelector("#pane-trace .explain-host");'
            'return h ? h.shadowRoot.querySelectorAll("table.trace tr").length : -1;')
        fails.check(trace_rows > 3, f'the trace pane shows {trace_rows} rows')
        pictures = driver.execute_script(
            'const h = document.querySelector("#pane-pictures .explain-host");'
            'return h ? h.shadowRoot.querySelectorAll("svg").length : -1;')
        fails.check(pictures >= 2, f'the pictures pane shows {pictures} pictures')
        init = driver.execute_script(
            'return Array.from(document.querySelectorAll(".explain-host")).map((h) => h.dataset.init || "none");')
        fails.check(all(x == 'ok' for x in init), f'the explain script in the panes said {init}')

        # 2. Every example of the guide, as the command line runs it.
        examples = guide_examples(repo)
        same = needs_process = 0
        for md, line, args in examples:
            got = run_in_page(driver, args)
            want = native(halo, args, repo)
            if starts_program(args):
                needs_process += 1
                fails.check('cannot start' in got['stderr'] and got['status'] != 0,
                            f'{md}:{line}: {" ".join(args)}: an external engine must be refused with a reason, '
                            f'got {got["status"]}: {got["stderr"][:300]}')
                continue
            ok = fails.check(got['status'] == want['status'] and got['stdout'] == want['stdout'] and
                             got['stderr'] == want['stderr'],
                             f'{md}:{line}: {" ".join(args)}\n--- page (exit {got["status"]}) ---\n{got["stdout"]}'
                             f'{got["stderr"]}\n--- halo (exit {want["status"]}) ---\n{want["stdout"]}{want["stderr"]}')
            same += ok
        print(f'guide: {same} of {len(examples)} examples print what the command line prints; {needs_process} start '
              f'another program (an external bounds engine) and are refused with the reason')
        fails.check(same + needs_process == len(examples) and len(examples) >= 30, 'not every guide example ran alike')

        # 2b. Every "try it" link of the guide: the page at that address loads the program the
        # command names and shows the command's output in the Command pane.
        links = try_it_links(repo)
        linked = 0
        last = None
        for md, line, args, fragment in links:
            if fragment != last:  # the same address again fires no hashchange: its result is shown
                driver.execute_script('document.body.dataset.state = "navigating"')
                driver.get(page.as_uri() + '#' + fragment)
                last = fragment
            wait_idle(driver)
            shown = pane_outputs(driver, 'command')
            loaded = driver.execute_script('return document.getElementById("file-name").textContent')
            want = native(halo, args, repo)
            if starts_program(args):
                fails.check(len(shown) == 1 and 'cannot start' in shown[0], f'{md}:{line}: the link shows {shown}')
                continue
            files = [w for w in args if w.endswith(('.halo', '.tgt'))]
            ok = fails.check(shown == [want['stdout'] + want['stderr']] and (not files or loaded == files[0]),
                             f'{md}:{line}: the try-it link loads {loaded} and shows\n{shown}\n--- halo ---\n'
                             f'{want["stdout"]}{want["stderr"]}')
            linked += ok
        print(f'try-it links: {linked} of {len(links)} load the program and show what the command line prints')
        fails.check(len(links) == len(examples), f'{len(links)} try-it links for {len(examples)} guide examples')

        # 3. An edit typed into the editor (of the default example, loaded again).
        driver.execute_script('document.body.dataset.state = "navigating"')
        driver.get(page.as_uri() + '#example=' + program)
        wait_idle(driver)
        code = driver.find_element(By.ID, 'code')
        code.click()
        code.send_keys(Keys.CONTROL, 'a')
        code.send_keys(Keys.DELETE)
        edited = ('pipeline f() {\n  fun g(x) = { x * x * x }\n  fun f(x) = { g[x] - g[x + 1] }\n}\n\n'
                  'realize () over (-3, 7)\n')
        code.send_keys(edited)
        wait_idle(driver)
        typed = driver.execute_script('return document.getElementById("code").value')
        fails.check(typed == edited, f'the editor holds {typed!r}')
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / 'examples').mkdir()
            (Path(tmp) / program).write_text(edited)
            want = native(halo, ['halo', 'eval', program] + LIMITS, tmp)
            shown = pane_outputs(driver, 'output')
            fails.check(shown == [want['stdout'] + want['stderr']],
                        f'after the edit the output pane shows {shown}, the executable prints {want}')
            print('edit: the output pane shows the edited program\'s output:', want['stdout'].strip().replace('\n', ' | '))

            # 4. An error at line 3, column 16.
            code.send_keys(Keys.CONTROL, Keys.HOME)
            code.send_keys(Keys.DOWN, Keys.DOWN, Keys.HOME)
            for _ in range(15):
                code.send_keys(Keys.RIGHT)
            code.send_keys('$')
            wait_idle(driver)
            broken = driver.execute_script('return document.getElementById("code").value')
            (Path(tmp) / program).write_text(broken)
            want = native(halo, ['halo', 'check', program], tmp)
            m = re.search(r'^(\S+):(\d+):(\d+): error: (.*)$', want['stderr'], re.M)
            fails.check(m is not None and m.group(2) == '3', f'halo check on the broken program: {want}')
            items = driver.execute_script(
                'return Array.from(document.querySelectorAll("#diagnostics li")).map((li) => '
                '[li.textContent, li.dataset.line, li.dataset.col]);')
            marked = driver.execute_script(
                'return Array.from(document.querySelectorAll("#gutter .bad")).map((s) => s.textContent);')
            mark_line = driver.execute_script(
                'const m = document.querySelector("#highlights mark.line"); return m ? m.dataset.line : null;')
            status = driver.find_element(By.ID, 'status').text
            if m:
                fails.check(items and items[0][0] == m.group(0), f'the error list shows {items}, halo check prints {m.group(0)}')
                fails.check(items and items[0][1:] == [m.group(2), m.group(3)], f'the error is placed at {items}')
                fails.check(marked == [m.group(2)] and mark_line == m.group(2),
                            f'the gutter marks lines {marked}, the highlight line {mark_line}; the error is on {m.group(2)}')
                fails.check(f'line {m.group(2)}, column {m.group(3)}' in status, f'the status line says "{status}"')
                print(f'error: shown at line {m.group(2)}, column {m.group(3)}: {m.group(4)}')

        # 5. A runaway program stops at the command's limits.
        got = run_in_page(driver, ['halo', 'eval', 'examples/blur.halo', '--window', '0,1000', '--window', '0,1000',
                                   '--max-steps', '200000'])
        fails.check(got['status'] == 3 and '--max-steps' in got['stderr'], f'a runaway program: {got}')
        print('runaway: exit', got['status'], got['stderr'].strip().split('\n')[0])
        # A dependency chain deeper than a browser's call stack: stopped as at a limit, and the
        # page goes on working (its worker is restarted).
        n = 3000
        chain = '\n'.join([f'pipeline f{n - 1}() {{', '  fun f0(x) = { x }'] +
                          [f'  fun f{i}(x) = {{ f{i - 1}[x] + 1 }}' for i in range(1, n)] +
                          ['}', '', 'realize () over (0, 2)', ''])
        for cmd in ('eval', 'oracle'):
            got = run_in_page(driver, ['halo', cmd, 'chain.halo'], {'chain.halo': chain})
            fails.check(got['status'] == 3 and 'halo: stopped' in got['stderr'],
                        f'a chain of {n} funcs under {cmd}: {got}')
            print(f'deep chain ({n} funcs), {cmd}: exit', got['status'], got['stderr'].strip().split('\n')[0][:150])
        got = run_in_page(driver, ['halo', 'eval', 'examples/thesis_2_2.halo'])
        fails.check(got['status'] == 0, f'after the deep chain the page no longer runs halo: {got}')
        # 6. The same page served by a web server from its folder.
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(page.parent))
        handler.log_message = lambda *args: None
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            driver.get(f'http://127.0.0.1:{server.server_address[1]}/{page.name}')
            state = wait_idle(driver, 180)
            want = native(halo, ['halo', 'eval', 'examples/thesis_2_2.halo'] + LIMITS, repo)
            shown = pane_outputs(driver, 'output')
            fails.check(state == 'idle' and shown == [want['stdout'] + want['stderr']],
                        f'served over HTTP: state {state}, output pane {shown}')
            print('served over http: state', state)
        finally:
            server.shutdown()

        # 7. A fresh load of an address naming an example opens that example.
        driver.get('about:blank')
        driver.get(page.as_uri() + '#example=examples/thesis_2_2_tile3.halo')
        wait_idle(driver, 180)
        loaded = driver.execute_script('return document.getElementById("file-name").textContent')
        fails.check(loaded == 'examples/thesis_2_2_tile3.halo', f'#example= on a fresh load opened {loaded}')
        if a.screenshot:  # the tiled schedule, whose pictures show one tile per iteration
            driver.find_element(By.ID, 'tab-pictures').click()
            time.sleep(0.5)
            driver.save_screenshot(a.screenshot)
    finally:
        driver.quit()
    if fails.items:
        print(f'{len(fails.items)} failures:')
        for f in fails.items:
            print('---', f)
        return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
