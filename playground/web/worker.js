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
    answer = { status: 4, stdout: '', crashed: true,
               stderr: 'playground: halo stopped inside the browser: ' + String(e && e.message || e) + '\n' };
  }
  answer.ms = performance.now() - started;
  postMessage({ id, ...answer });
};
