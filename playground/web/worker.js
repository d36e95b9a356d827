// The playground's worker: halo's WebAssembly module (Emscripten's output is prepended to
// this file by playground/assemble.py) answers one command line per message, so that the
// page stays responsive while a command runs. A command that kills the module (a stack
// overflow, an abort) is answered with `crashed`, and the page starts a fresh worker.
/* global createHaloModule */
'use strict';

const modulePromise = createHaloModule({ print: () => {}, printErr: () => {} });

function call(m, request) {
  const text = JSON.stringify(request);
  const size = m.lengthBytesUTF8(text) + 1;
  const arg = m._malloc(size);
  m.stringToUTF8(text, arg, size);
  try {
    const result = m._halo_playground_call(arg);
    const answer = JSON.parse(m.UTF8ToString(result));
    m._free(result);
    return answer;
  } finally {
    m._free(arg);
  }
}

modulePromise.then(
  () => postMessage({ ready: true }),
  (e) => postMessage({ ready: false, error: String(e && e.message || e) }));

onmessage = async (event) => {
  const { id, args, files } = event.data;
  const m = await modulePromise;
  const started = performance.now();
  let answer;
  try {
    answer = call(m, { args, files: files || {} });
  } catch (e) {
    const what = String(e && e.message || e);
    // The browser's call stack is smaller than the executable's (1 GiB, support/big_stack.hpp):
    // a program nested too deeply for a page stops as at a resource limit (exit 3).
    answer = /call stack|memory access out of bounds/i.test(what)
      ? { status: 3, stdout: '', crashed: true,
          stderr: `halo: stopped: the browser's stack is exhausted (${what}); this program nests too deeply for ` +
                  'the playground: run it with the halo executable\n' }
      : { status: 4, stdout: '', crashed: true, stderr: 'playground: halo stopped inside the browser: ' + what + '\n' };
  }
  answer.ms = performance.now() - started;
  postMessage({ id, ...answer });
};
