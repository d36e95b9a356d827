// The playground page (docs/playground.md). Every pane is a `halo` command line run by the
// WebAssembly module in a worker (playground/web/worker.js), exactly as the executable runs
// it: the page shows the command beside its output, so a student can run the same in a
// shell. The pictures, the trace and the derivation are the sections `halo explain`
// renders (`--format sections`), shown with the explain page's own style and script.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const code = $('code'), gutter = $('gutter'), highlights = $('highlights');

  // The command's limits, so that a runaway program stops with halo's message (exit 3).
  const LIMITS = ['--timeout', '5', '--max-steps', '5000000'];
  const PANES = [
    { id: 'output', title: 'Output P(z)', what: "the big-step semantics (fig. 2.6): the output on R(z)",
      commands: (f) => [['halo', 'eval', f, ...LIMITS]] },
    { id: 'lowered', title: 'L(P)', what: 'the lowered program with holes (fig. 2.9)',
      commands: (f) => [['halo', 'lower', f]] },
    { id: 'schedule', title: 'Schedule', what: 'the program after each directive (fig. 2.11)',
      commands: (f) => [['halo', 'schedule', f, '--steps', '--timeout', '5']] },
    { id: 'bounds', title: 'Bounds', what: "the query B(T) and β0's answer per hole, simplified, the raw form a click away (figs. 2.10a, 2.10b); then β0's and β1's answers as halo bounds prints them",
      sections: ['bounds'],
      commands: (f) => [['halo', 'bounds', f, '--timeout', '5'], ['halo', 'bounds', f, '--engine', 'beta1', '--timeout', '5']] },
    { id: 'verdict', title: 'Verdict', what: "the oracle on halo's own pipeline (Theorems 2.1, 2.2)",
      commands: (f) => [['halo', 'oracle', f, ...LIMITS]] },
    { id: 'trace', title: 'Trace', what: 'the small-step trace of one store, with the values each step reads (fig. 2.8)',
      sections: ['trace'] },
    { id: 'pictures', title: 'Pictures', what: 'iteration spaces tile by tile, and the buffers',
      sections: ['pictures', 'buffers'] },
    { id: 'derivation', title: 'Derivation', what: 'the big-step derivation of one output point (fig. 2.6)',
      sections: ['derivation'] },
    { id: 'command', title: 'Command', what: 'any halo command line, on the program being edited', command: true },
  ];
  const EXPLAIN = (f) => ['halo', 'explain', f, '--format', 'sections', '--timeout', '10', '--max-steps', '5000000'];
  const WATCHDOG_MS = 60000;  // beyond the command's own --timeout: the worker is restarted

  const st = {
    file: 'program.halo', generation: 0, worker: null, ready: null, pending: new Map(), nextId: 1,
    active: 'output', explainInstalled: false, diagnostics: [],
  };

  // ------------------------------------------------------------------ the worker
  function startWorker() {
    const url = URL.createObjectURL(new Blob([window.HALO_WORKER_SOURCE], { type: 'text/javascript' }));
    const w = new Worker(url);
    st.worker = w;
    st.ready = new Promise((resolve, reject) => {
      w.onmessage = (ev) => {
        const d = ev.data;
        if ('ready' in d) {
          if (d.ready) resolve(); else reject(new Error(d.error));
          return;
        }
        const p = st.pending.get(d.id);
        if (!p) return;
        st.pending.delete(d.id);
        clearTimeout(p.timer);
        if (d.crashed) restartWorker();
        p.resolve(d);
      };
      w.onerror = (e) => reject(new Error(e.message || 'the worker failed to start'));
    });
  }

  function restartWorker(why) {
    st.worker.terminate();
    for (const [, p] of st.pending) {
      clearTimeout(p.timer);
      p.resolve({ status: 3, stdout: '', stderr: why || 'playground: halo was restarted\n' });
    }
    st.pending.clear();
    startWorker();
  }

  // One command line, as the executable takes it; files are written first (path → text).
  async function halo(args, files) {
    await st.ready;
    return new Promise((resolve) => {
      const id = st.nextId++;
      const timer = setTimeout(() => {
        st.pending.delete(id);
        resolve({ status: 3, stdout: '', stderr: `playground: stopped after ${WATCHDOG_MS / 1000} s\n` });
        restartWorker(`playground: stopped after ${WATCHDOG_MS / 1000} s\n`);
      }, WATCHDOG_MS);
      st.pending.set(id, { resolve, timer });
      st.worker.postMessage({ id, args, files: files || {} });
    });
  }

  // ------------------------------------------------------------------ command lines
  // Words as a shell splits them, with '…' quoting (the guide's commands use no other).
  function splitWords(s) {
    const out = [];
    let cur = '', quoted = false, any = false;
    for (const c of s) {
      if (c === "'") { quoted = !quoted; any = true; }
      else if (!quoted && (c === ' ' || c === '\t')) { if (any) out.push(cur); cur = ''; any = false; }
      else { cur += c; any = true; }
    }
    if (any) out.push(cur);
    return out;
  }
  function shellWord(w) { return /^[\w@%+=:,./-]+$/.test(w) ? w : "'" + w.replace(/'/g, "'\\''") + "'"; }
  function commandText(args) { return '$ ' + args.map(shellWord).join(' '); }

  // ------------------------------------------------------------------ the editor
  function escapeHtml(s) {
    return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }

  function paintEditor() {
    const lines = code.value.split('\n');
    const bad = new Map();
    for (const d of st.diagnostics) if (d.file === st.file && d.line) bad.set(d.line, d);
    gutter.innerHTML = lines.map((_, i) => bad.has(i + 1)
      ? `<span class="bad" title="${escapeHtml(bad.get(i + 1).message)}">${i + 1}</span>` : String(i + 1)).join('\n') + '\n';
    highlights.innerHTML = lines.map((l, i) => {
      const d = bad.get(i + 1);
      if (!d) return escapeHtml(l);
      const c = Math.max(0, Math.min(l.length, (d.col || 1) - 1));
      return `<mark class="line" data-line="${i + 1}">${escapeHtml(l.slice(0, c))}<mark class="col">${escapeHtml(l.slice(c, c + 1) || ' ')}</mark>${escapeHtml(l.slice(c + 1))}</mark>`;
    }).join('\n') + '\n';
    syncScroll();
  }
  function syncScroll() {
    highlights.scrollTop = code.scrollTop;
    highlights.scrollLeft = code.scrollLeft;
    gutter.scrollTop = code.scrollTop;
  }

  // FILE:LINE:COL: error: MESSAGE (LANGUAGE.md), from what a command printed.
  function parseDiagnostics(text) {
    const out = [];
    for (const line of text.split('\n')) {
      const m = /^(.+?):(\d+):(\d+): error: (.*)$/.exec(line);
      if (m) out.push({ file: m[1], line: +m[2], col: +m[3], message: m[4], text: line });
      else if (/^.+?: error: /.test(line)) out.push({ file: '', line: 0, col: 0, message: line, text: line });
    }
    return out;
  }

  function showDiagnostics(list) {
    st.diagnostics = list;
    const ul = $('diagnostics');
    ul.innerHTML = '';
    for (const d of list) {
      const li = document.createElement('li');
      li.textContent = d.text;
      li.dataset.line = d.line;
      li.dataset.col = d.col;
      if (d.file === st.file && d.line) li.addEventListener('click', () => moveCaret(d.line, d.col));
      ul.appendChild(li);
    }
    paintEditor();
  }

  function moveCaret(line, col) {
    const lines = code.value.split('\n');
    let pos = 0;
    for (let i = 0; i < line - 1 && i < lines.length; ++i) pos += lines[i].length + 1;
    pos += Math.max(0, col - 1);
    code.focus();
    code.setSelectionRange(pos, pos);
  }

  // ------------------------------------------------------------------ the panes
  function buildPanes() {
    const tabs = $('tabs'), panes = $('panes');
    for (const p of PANES) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = p.title;
      b.title = p.what;
      b.id = 'tab-' + p.id;
      b.setAttribute('role', 'tab');
      b.addEventListener('click', () => activate(p.id));
      tabs.appendChild(b);
      const div = document.createElement('div');
      div.className = 'pane';
      div.id = 'pane-' + p.id;
      div.dataset.pane = p.id;
      const what = document.createElement('p');
      what.className = 'what';
      what.textContent = p.what;
      div.appendChild(what);
      const body = document.createElement('div');
      body.className = 'pane-body';
      div.appendChild(body);
      panes.appendChild(div);
    }
    activate(st.active);
  }

  function activate(id) {
    st.active = id;
    for (const p of PANES) {
      $('tab-' + p.id).setAttribute('aria-selected', String(p.id === id));
      $('pane-' + p.id).classList.toggle('active', p.id === id);
    }
  }

  function paneBody(id) { return $('pane-' + id).querySelector('.pane-body'); }

  function outputBlock(args, answer) {
    const frag = document.createDocumentFragment();
    const cmd = document.createElement('div');
    cmd.className = 'cmdline';
    cmd.textContent = commandText(args);
    frag.appendChild(cmd);
    const pre = document.createElement('pre');
    pre.className = 'out' + (answer.status === 0 ? '' : ' failed');
    pre.textContent = (answer.stdout || '') + (answer.stderr || '');
    frag.appendChild(pre);
    const exit = document.createElement('div');
    exit.className = 'exit ' + (answer.status === 0 ? 'ok' : 'bad');
    exit.textContent = `exit ${answer.status}` + (answer.ms !== undefined ? ` · ${Math.round(answer.ms)} ms` : '');
    exit.dataset.status = answer.status;
    frag.appendChild(exit);
    return frag;
  }

  function setTabState(id, cls) {
    const b = $('tab-' + id);
    b.classList.remove('bad', 'stale');
    if (cls) b.classList.add(cls);
  }

  // keep: what the pane already shows stays above (a pane with sections and commands).
  async function fillCommandPane(id, args, gen, keep) {
    const body = paneBody(id);
    const answers = [];
    for (const a of args) {
      const answer = await halo(a, { [st.file]: code.value });
      if (gen !== st.generation) return null;
      answers.push([a, answer]);
    }
    if (!keep) body.innerHTML = '';
    for (const [a, answer] of answers) body.appendChild(outputBlock(a, answer));
    const failed = answers.some(([, x]) => x.status !== 0);
    if (failed || !keep) setTabState(id, failed ? 'bad' : '');  // kept: the sections set the tab
    $('pane-' + id).dataset.generation = gen;
    return answers;
  }

  // The explain sections, in a shadow root each, so that the explain page's style (made for
  // a page of its own) cannot reach the playground's layout.
  function fillSectionPane(p, explained, gen) {
    const body = paneBody(p.id);
    body.innerHTML = '';
    const [args, answer] = explained;
    if (answer.status !== 0 || !answer.sections) {
      body.appendChild(outputBlock(args, answer));
      setTabState(p.id, 'bad');
    } else {
      const host = document.createElement('div');
      host.className = 'explain-host';
      const shadow = host.attachShadow({ mode: 'open' });
      const style = document.createElement('style');
      // The page's custom properties are set on :root, which a shadow root's :host stands for.
      style.textContent = answer.style.replace(/:root\b/g, ':root, :host') +
        '\n:host { display: block; } .explain-root { max-width: none; }';
      shadow.appendChild(style);
      const root = document.createElement('div');
      root.className = 'explain-root';
      root.innerHTML = p.sections.map((id) => (answer.sections.find((s) => s.id === id) || { html: '' }).html).join('\n');
      shadow.appendChild(root);
      body.appendChild(host);
      const cmd = document.createElement('div');
      cmd.className = 'cmdline';
      cmd.textContent = commandText(args) + '   (the same sections: halo explain FILE -o page.html)';
      body.appendChild(cmd);
      if (typeof window.haloExplainInit === 'function') host.dataset.init = window.haloExplainInit(root);
      setTabState(p.id, '');
    }
    $('pane-' + p.id).dataset.generation = gen;
  }

  async function explainOnce(gen) {
    const args = EXPLAIN(st.file);
    const answer = await halo(args, { [st.file]: code.value });
    if (gen !== st.generation) return null;
    if (answer.status === 0 && !(answer.stdout || '').startsWith('{')) answer.status = 4;
    if (answer.status === 0) {
      const j = JSON.parse(answer.stdout);
      answer.sections = j.sections;
      answer.style = j.style;
      if (!st.explainInstalled) {  // defines window.haloExplainInit
        const s = document.createElement('script');
        s.textContent = j.script;
        document.body.appendChild(s);
        st.explainInstalled = true;
      }
    }
    return [args, answer];
  }

  // ------------------------------------------------------------------ recomputing
  function setState(state, text) {
    document.body.dataset.state = state;
    if (text !== undefined) $('status').textContent = text;
  }

  let debounce = null;
  function scheduleRecompute() {
    clearTimeout(debounce);
    ++st.generation;  // what is running now is stale
    for (const p of PANES) if (!p.command) setTabState(p.id, 'stale');
    setState('running', 'editing…');
    debounce = setTimeout(recompute, 300);
  }

  async function recompute() {
    const gen = ++st.generation;
    document.body.dataset.generation = gen;
    const started = performance.now();
    setState('running', 'checking the program…');
    const check = await halo(['halo', 'check', st.file], { [st.file]: code.value });
    if (gen !== st.generation) return;
    showDiagnostics(parseDiagnostics(check.stderr || ''));
    if (check.status !== 0) {
      for (const p of PANES) {
        if (p.command) continue;
        const body = paneBody(p.id);
        body.innerHTML = '';
        const div = document.createElement('p');
        div.className = 'blocked';
        div.textContent = 'The program has an error; the panes show its results again once it is fixed.';
        body.appendChild(div);
        body.appendChild(outputBlock(['halo', 'check', st.file], check));
        setTabState(p.id, 'bad');
        $('pane-' + p.id).dataset.generation = gen;
      }
      const first = st.diagnostics[0];
      await runPendingCommand();  // it may be the check itself (a guide's link to an invalid program)
      setState('idle', first && first.line ? `error at line ${first.line}, column ${first.col}` : 'the program has an error');
      return;
    }
    // The pane being looked at first, then the others in order.
    const order = PANES.filter((p) => !p.command).sort((a, b) => (b.id === st.active) - (a.id === st.active));
    let explained = null;
    for (let i = 0; i < order.length; ++i) {
      const p = order[i];
      setState('running', `computing ${p.title} (${i + 1} of ${order.length})…`);
      if (p.sections) {
        if (!explained) explained = await explainOnce(gen);
        if (gen !== st.generation || !explained) return;
        fillSectionPane(p, explained, gen);
      }
      if (p.commands && !(await fillCommandPane(p.id, p.commands(st.file), gen, Boolean(p.sections)))) return;
    }
    if (await runPendingCommand()) return;
    setState('idle', `up to date · ${Math.round(performance.now() - started)} ms`);
  }

  // A command from the address (#cmd=) runs once the panes are done; true when one ran.
  async function runPendingCommand() {
    if (!st.commandPending) return false;
    st.commandPending = false;
    await runCommandLine();
    return true;
  }

  async function runCommandLine() {
    const words = splitWords($('command').value.trim());
    if (words[0] !== 'halo') words.unshift('halo');
    activate('command');
    const gen = st.generation;
    setState('running', `running ${commandText(words)}…`);
    const answer = await halo(words, { [st.file]: code.value });
    const body = paneBody('command');
    body.innerHTML = '';
    body.appendChild(outputBlock(words, answer));
    setTabState('command', answer.status === 0 ? '' : 'bad');
    $('pane-command').dataset.generation = gen;
    setState('idle', `ran ${commandText(words)} · exit ${answer.status}`);
    return answer;
  }

  // ------------------------------------------------------------------ examples and the URL
  const EXAMPLES = window.HALO_EXAMPLES || [];
  function fillExamplePicker() {
    const sel = $('example');
    const groups = new Map();
    for (const e of EXAMPLES) {
      const dir = e.path.split('/').slice(0, -1).join('/');
      if (!groups.has(dir)) groups.set(dir, []);
      groups.get(dir).push(e);
    }
    for (const [dir, list] of groups) {
      const g = document.createElement('optgroup');
      g.label = dir + '/';
      for (const e of list) {
        const o = document.createElement('option');
        o.value = e.path;
        o.textContent = e.path.slice(dir.length + 1);
        g.appendChild(o);
      }
      sel.appendChild(g);
    }
    sel.addEventListener('change', () => { loadExample(sel.value); scheduleRecompute(); });
  }

  function loadExample(path) {
    const e = EXAMPLES.find((x) => x.path === path);
    if (!e) return false;
    st.file = e.path;
    code.value = e.text;
    $('file-name').textContent = e.path;
    $('example').value = e.path;
    $('command').value = 'halo eval ' + e.path;
    showDiagnostics([]);
    return true;
  }

  // #cmd=halo%20eval%20examples%2Fblur.halo (the guide's "try it" links) or #example=PATH;
  // true when it named a program to load.
  function fromUrl() {
    const h = new URLSearchParams(location.hash.slice(1));
    if (h.has('cmd')) {
      const text = h.get('cmd');
      const words = splitWords(text);
      const file = words.find((w) => EXAMPLES.some((e) => e.path === w));
      if (file) loadExample(file);
      $('command').value = text;
      st.commandPending = true;
      return Boolean(file);
    }
    return h.has('example') && loadExample(h.get('example'));
  }

  // ------------------------------------------------------------------ start
  function idle() {
    return new Promise((resolve) => {
      const poll = () => (document.body.dataset.state === 'idle' ? resolve() : setTimeout(poll, 50));
      poll();
    });
  }
  // For the browser test (tests/playground/) and for anyone scripting the page.
  window.haloPlayground = {
    run: (args, files) => halo(args, files),
    runCommandLine,
    load: (path) => { const ok = loadExample(path); scheduleRecompute(); return ok; },
    idle,
    splitWords,
  };

  async function start() {
    buildPanes();
    fillExamplePicker();
    if (!fromUrl()) loadExample(EXAMPLES.some((e) => e.path === 'examples/thesis_2_2.halo') ? 'examples/thesis_2_2.halo' : (EXAMPLES[0] || {}).path);
    paintEditor();
    code.addEventListener('input', () => { paintEditor(); scheduleRecompute(); });
    code.addEventListener('scroll', syncScroll);
    $('command-form').addEventListener('submit', (ev) => { ev.preventDefault(); runCommandLine(); });
    window.addEventListener('hashchange', () => { fromUrl(); recompute(); });
    if (!window.HALO_WORKER_SOURCE) {
      setState('failed', 'halo_worker.js is missing: build the playground with scripts/build-playground.sh');
      return;
    }
    setState('loading', 'loading halo…');
    startWorker();
    try {
      await st.ready;
    } catch (e) {
      setState('failed', 'halo did not load: ' + e.message);
      return;
    }
    await recompute();
  }

  start();
})();
