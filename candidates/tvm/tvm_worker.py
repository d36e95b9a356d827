"""The long-lived worker through which halo runs test cases on Apache TVM.

    PYTHONPATH=<one TVM version's --target directory> python3 tvm_worker.py

Why a worker: `import tvm` costs 0.5-1.5 s, while scheduling, compiling and running one
small test case costs a few tens of milliseconds. So TVM is imported once, here, and every
case runs in a child forked from this warm process. Why a child per case: TVM inserts no
bounds checks, so a wrong schedule can corrupt the heap or crash (an integer division by
zero is a SIGFPE); a child that ends with its case means that no crash, hang, leaked
thread or heap corruption ever outlives the case that caused it, and the next case starts
from the same clean image. This process itself never compiles or runs TVM code: forking
after LLVM has been initialised or TVM's thread pool started is unsafe, so only the
children do either (here: imports, one TVMScript parse to warm the parser, which only
builds IR, and pure Python; the process stays single-threaded).

The protocol is support/worker_process.hpp's: requests come on fd 0 as a little-endian
header struct.pack('<QQd', payload_length, max_memory_bytes, timeout_seconds) and a UTF-8
JSON payload; each request is answered on fd 3 by one line of JSON and the terminator
"\nHALO_WORKER_DONE\n" (a payload of length 0 asks "are you ready?" and is answered by the
terminator alone); EOF on fd 0 ends the worker. Whatever the child prints goes to fd 2,
which halo keeps per request.

The payload: {"script": Python source that defines `mod` (an IRModule whose "main" is the
unscheduled prim_func) and `schedule(sch)`; "args": [{"name", "dtype", "shape", "values"}]
in the order of main's buffer parameters, "values" the flat C-order contents of an input
or null for an output; "memcheck"; "guard_bytes"; "print_scheduled"}. Values travel as
JSON integers: floats as their IEEE bit patterns, bools as 0/1. The report: {"outcome":
pass, schedule_error, compile_error, run_error, crash, timeout, out_of_memory or
bad_request (the request is wrong: halo's bug, not TVM's); "phase" reached (empty for a
pass); "message"; "signal" (crash; 0 when the child exited without a report);
"tvm_version"; "outputs" (pass, from the first run); "guard", "input_changed",
"sentinel_dependent" (the memory check, below; "outputs2", the second run's values of the
sentinel-dependent outputs; "guard_total" when more than 20 guard entries were found);
"seconds" (per phase, and "total" from the fork to the end); "scheduled" (if asked)}.
The time limit runs from the fork: the payload's "timeout" if it has one, else the header's;
halo's own wait for the report (the header's) has a margin over it, or it would kill the
whole worker before the worker reports the timeout.

The child tells this process how far it got by writing "PHASE <name>" lines on a private
pipe before each phase, so a crash or a hang is reported with the phase it happened in
(a crash while compiling is TVM's bug in the compiler, one while running is in the code it
generated). The time limit is the child's, measured from the fork: on expiry its whole
process group is killed and the worker serves the next request. The memory limit is the
child's RLIMIT_AS, set to its size at the fork plus the request's allowance (plus the
stacks of TVM's thread pool, see thread_allowance).

The memory check ("memcheck": true). Every buffer passed to the compiled function lives
in the middle of a larger numpy allocation, with a guard zone on each side filled with a
sentinel byte; output buffers are filled with the sentinel too (an output point the code
never writes then shows up as a wrong value). TVM gets a zero-copy DLPack view of the
middle, aligned to 64 bytes: the generated code assumes that alignment without checking
it (aligned vector loads and stores; a view misaligned by 4 bytes segfaults), and
tvm.runtime.from_dlpack refuses anything less. The function runs twice, from fresh
buffers with two different sentinels: a guard byte changed in either run is an
out-of-bounds write next to a buffer; an input that changed is a write to an input; an
output that differs between the two runs read something that depended on the sentinel,
i.e. an out-of-bounds read (or an unwritten point) reached the output. Limits: only the
buffers passed as arguments are guarded - TVM's own allocations (intermediate buffers,
caches, workspaces, the stack) are not; an out-of-bounds write that jumps past the guard
zone lands wherever it lands (maybe a crash, maybe nothing seen); an out-of-bounds read
is seen only when what it read reaches an output (a read whose value is discarded, or
only decides a condition both ways alike, is invisible); and nondeterminism of the
generated code (a race in a parallel loop) also shows as a sentinel dependence.
"""

import os

# numpy's OpenBLAS would start a thread pool at import; the worker forks, and a fork is
# only clean when this process has a single thread. Nothing here uses BLAS.
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import ctypes
import faulthandler
import gc
import inspect
import json
import linecache
import math
import resource
import select
import signal
import struct
import sys
import time
import traceback
import types

import numpy as np
import tvm
import tvm.s_tir
import tvm.s_tir.schedule  # noqa: F401 - its ScheduleError is what a refused schedule raises
from tvm.script import ir as _I  # noqa: F401 - imported once here, not in every child
from tvm.script import tirx as _T  # noqa: F401

try:
    import tvm_ffi
except ImportError:  # only the fallback of _from_dlpack needs it
    tvm_ffi = None

HEADER = struct.Struct("<QQd")
DONE = b"\nHALO_WORKER_DONE\n"
REQUEST_FD, REPORT_FD = 0, 3
SENTINELS = (0xA5, 0x5A)
ALIGN = 64  # what the generated code assumes of every buffer (see above)
MAX_GUARD_ENTRIES = 20
MAX_MESSAGE = 4000
OUTPUT_TAIL = 16384  # of the child's output, kept to recognise an out-of-memory abort

# dtype -> (numpy dtype, the unsigned integer dtype its values travel as in JSON)
DTYPES = {
    "bool": (np.bool_, np.uint8),
    "int8": (np.int8, np.int8),
    "int16": (np.int16, np.int16),
    "int32": (np.int32, np.int32),
    "int64": (np.int64, np.int64),
    "uint8": (np.uint8, np.uint8),
    "uint16": (np.uint16, np.uint16),
    "uint32": (np.uint32, np.uint32),
    "uint64": (np.uint64, np.uint64),
    "float16": (np.float16, np.uint16),
    "float32": (np.float32, np.uint32),
    "float64": (np.float64, np.uint64),
}

try:
    _libc = ctypes.CDLL(None, use_errno=True)
except OSError:
    _libc = None
PR_SET_PDEATHSIG = 1
M_ARENA_MAX = -8


class BadRequest(Exception):
    """The request itself is wrong (a bug of halo's translation, not of TVM)."""


# ---------------------------------------------------------------- pipes


def read_exact(fd, n):
    """n bytes from fd, or None at EOF before them."""
    chunks, left = [], n
    while left > 0:
        try:
            b = os.read(fd, min(left, 1 << 20))
        except InterruptedError:
            continue
        if not b:
            return None
        chunks.append(b)
        left -= len(b)
    return b"".join(chunks)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            k = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[k:]


# ---------------------------------------------------------------- values


def _shape(arg):
    shape = arg.get("shape")
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        raise BadRequest(f"argument {arg.get('name')!r}: bad shape {shape!r}")
    return tuple(shape)


def _dtypes(arg):
    name = arg.get("dtype")
    if name not in DTYPES:
        raise BadRequest(f"argument {arg.get('name')!r}: unsupported dtype {name!r}")
    return DTYPES[name]


def decode_values(arg):
    """The input's values as a numpy array of its dtype and shape."""
    dtype, wire = _dtypes(arg)
    shape = _shape(arg)
    values = arg["values"]
    count = math.prod(shape)
    if not isinstance(values, list) or len(values) != count:
        raise BadRequest(f"argument {arg['name']!r}: expected {count} values")
    if not all(type(v) is int or type(v) is bool for v in values):
        raise BadRequest(f"argument {arg['name']!r}: values must be integers (floats as bit patterns)")
    try:
        flat = np.array(values, dtype=wire) if count else np.zeros(0, dtype=wire)
    except OverflowError as e:
        raise BadRequest(f"argument {arg['name']!r}: a value is out of range of {arg['dtype']}: {e}") from None
    if dtype is np.bool_ and count and flat.max() > 1:
        raise BadRequest(f"argument {arg['name']!r}: a bool value is neither 0 nor 1")
    return flat.view(dtype).reshape(shape)


def encode_values(array, arg):
    # tolist() of an unsigned array gives exact Python ints, also above 2^63
    return np.ascontiguousarray(array).reshape(-1).view(_dtypes(arg)[1]).tolist()


# ---------------------------------------------------------------- guarded buffers


def _from_dlpack(view):
    # tvm.runtime.from_dlpack insists on 64-byte alignment and contiguity, which is what
    # the generated code assumes; the plain tvm_ffi call is the same with those checks.
    if hasattr(tvm.runtime, "from_dlpack"):
        return tvm.runtime.from_dlpack(view)
    return tvm_ffi.from_dlpack(view, require_alignment=ALIGN, require_contiguous=True)


class Guarded:
    """One argument in the middle of a sentinel-filled allocation."""

    def __init__(self, arg, guard, sentinel, input_values):
        dtype, _ = _dtypes(arg)
        self.name = arg["name"]
        self.shape = _shape(arg)
        self.itemsize = np.dtype(dtype).itemsize
        self.nbytes = math.prod(self.shape) * self.itemsize
        self.guard, self.sentinel = guard, sentinel
        self.base = np.empty(guard + self.nbytes + guard + ALIGN, dtype=np.uint8)
        self.base.fill(sentinel)
        addr = self.base.ctypes.data
        self.start = guard + (-(addr + guard)) % ALIGN
        # np.ndarray(buffer=, offset=) rather than slicing: numpy moves the data pointer of
        # an empty slice to the start of its base, and a 0-extent buffer must sit between
        # its guards like any other.
        self.view = np.ndarray(self.shape, dtype=dtype, buffer=self.base, offset=self.start)
        self.input_bytes = None
        if input_values is not None:
            self.view[...] = input_values
            self.input_bytes = self.middle().copy()
        self.tensor = _from_dlpack(self.view)
        if self.tensor.data_ptr() != self.view.ctypes.data:
            raise RuntimeError(f"from_dlpack copied {self.name!r} instead of viewing it")

    def middle(self):
        return self.base[self.start : self.start + self.nbytes]

    def guard_entries(self, run):
        """One entry per element (of this buffer's type) of a guard zone that changed."""
        entries = []
        before = self.base[self.start - self.guard : self.start]
        after = self.base[self.start + self.nbytes : self.start + self.nbytes + self.guard]
        for side, zone, first in (("before", before, -self.guard), ("after", after, self.nbytes)):
            changed = np.flatnonzero(zone != self.sentinel)
            if changed.size == 0:
                continue
            elements, counts = np.unique((changed + first) // self.itemsize, return_counts=True)
            order = range(len(elements) - 1, -1, -1) if side == "before" else range(len(elements))
            for i in order:  # nearest the buffer first: those survive the cap
                entries.append(
                    {"buffer": self.name, "side": side, "offset": int(elements[i]), "run": run, "bytes": int(counts[i])}
                )
        return entries


# ---------------------------------------------------------------- the child


class Child:
    """Runs one case; every line it writes to `fd` is for the worker."""

    def __init__(self, fd):
        self.fd = fd
        self.seconds = {}
        self.current = ""

    def send(self, line):
        write_all(self.fd, (line + "\n").encode())

    def phase(self, name):
        self.current = name
        self.send("PHASE " + name)

    def run(self, payload):
        report = {"outcome": "pass", "phase": "", "message": ""}
        try:
            report.update(self.case(payload))
        except CaseEnd as e:
            report.update(e.report)
        report["seconds"] = self.seconds
        self.send("REPORT " + json.dumps(report))

    def fail(self, outcome, e, extra=None):
        text = str(e)
        name = type(e).__name__
        if not text.startswith(name):
            text = f"{name}: {text}"
        if _is_out_of_memory(e):
            outcome = "out_of_memory"
        traceback.print_exc()  # to fd 2, which halo keeps with the case
        raise CaseEnd({"outcome": outcome, "phase": self.current, "message": text[:MAX_MESSAGE], **(extra or {})})

    def timed(self, name, fn):
        t = time.perf_counter()
        try:
            return fn()
        finally:
            self.seconds[name] = time.perf_counter() - t

    def case(self, payload):
        self.phase("script")
        try:
            request = json.loads(payload)
            args = request["args"]
            if not isinstance(args, list) or not all(isinstance(a, dict) and "name" in a for a in args):
                raise BadRequest("args must be a list of objects with a name")
            for a in args:
                _dtypes(a), _shape(a)
            if len({a["name"] for a in args}) != len(args):
                raise BadRequest("two arguments have the same name")
            inputs = {a["name"]: decode_values(a) for a in args if a.get("values") is not None}
            guard = request.get("guard_bytes", 4096)
            if type(guard) is not int or guard < 0:
                raise BadRequest(f"bad guard_bytes {guard!r}")
            guard = -(-guard // ALIGN) * ALIGN  # a multiple of 64 keeps every buffer aligned
            namespace = self.timed("script", lambda: exec_script(request["script"]))
            mod, schedule = namespace.get("mod"), namespace.get("schedule")
            if isinstance(mod, tvm.tirx.PrimFunc):
                mod = tvm.IRModule({"main": mod})
            if not isinstance(mod, tvm.IRModule) or not callable(schedule):
                raise BadRequest("the script must define an IRModule `mod` and a function `schedule(sch)`")
            sch = tvm.s_tir.Schedule(mod)
        except BaseException as e:  # noqa: BLE001 - SystemExit too: a script must not end the child
            self.fail("bad_request", e)

        self.phase("schedule")
        try:
            self.timed("schedule", lambda: schedule(sch))
            scheduled = sch.mod
        except Exception as e:  # noqa: BLE001 - ScheduleError, or refused in another way (the type says which)
            # what was scheduled before the refused primitive (each primitive is all or nothing)
            self.fail("schedule_error", e, {"scheduled": _script_of(sch)} if request.get("print_scheduled") else None)
        extra = {}
        if request.get("print_scheduled"):
            extra["scheduled"] = scheduled.script()

        self.phase("compile")
        try:
            # tvm.compile stops at LLVM IR; the machine code is made when the function is
            # first looked up, so that is part of compiling too.
            function = self.timed("compile", lambda: tvm.compile(scheduled, target="llvm")["main"])
        except Exception as e:  # noqa: BLE001
            self.fail("compile_error", e)

        self.phase("run")
        try:
            if request.get("memcheck", True):
                extra.update(self.timed("run", lambda: self.memcheck_runs(function, args, inputs, guard)))
            else:
                extra.update(self.timed("run", lambda: self.plain_run(function, args, inputs)))
        except CaseEnd:
            raise
        except Exception as e:  # noqa: BLE001
            self.fail("run_error", e)
        return extra

    def plain_run(self, function, args, inputs):
        tensors = []
        for a in args:
            if a["name"] in inputs:
                tensors.append(tvm.runtime.tensor(np.ascontiguousarray(inputs[a["name"]])))
            else:  # the first sentinel, as with the memory check: unwritten points alike
                dtype, _ = _dtypes(a)
                filled = np.full(math.prod(_shape(a)) * np.dtype(dtype).itemsize, SENTINELS[0], dtype=np.uint8)
                tensors.append(tvm.runtime.tensor(filled.view(dtype).reshape(_shape(a))))
        function(*tensors)
        outputs = {a["name"]: encode_values(t.numpy(), a) for a, t in zip(args, tensors) if a["name"] not in inputs}
        return {"outputs": outputs, "guard": [], "input_changed": [], "sentinel_dependent": []}

    def memcheck_runs(self, function, args, inputs, guard):
        entries, seen, input_changed, first_outputs, dependent, second = [], set(), [], {}, [], {}
        for run, sentinel in enumerate(SENTINELS, 1):
            buffers = [Guarded(a, guard, sentinel, inputs.get(a["name"])) for a in args]
            function(*[b.tensor for b in buffers])
            for b in buffers:
                for e in b.guard_entries(run):
                    key = (e["buffer"], e["side"], e["offset"])
                    if key not in seen:  # the second run adds only what the first missed
                        seen.add(key)
                        entries.append(e)
                if b.input_bytes is not None:
                    if not np.array_equal(b.middle(), b.input_bytes) and b.name not in input_changed:
                        input_changed.append(b.name)
                elif run == 1:
                    first_outputs[b.name] = (b.middle().copy(), b.view.copy())
                elif not np.array_equal(b.middle(), first_outputs[b.name][0]):
                    dependent.append(b.name)
                    second[b.name] = encode_values(b.view, next(a for a in args if a["name"] == b.name))
            if run == 1:
                # Should the second run crash, the worker still reports what the first saw.
                self.send("PARTIAL " + json.dumps({"guard": entries[:MAX_GUARD_ENTRIES], "input_changed": input_changed}))
            del buffers
        result = {
            "outputs": {a["name"]: encode_values(first_outputs[a["name"]][1], a) for a in args if a["name"] in first_outputs},
            "guard": entries[:MAX_GUARD_ENTRIES],
            "input_changed": input_changed,
            "sentinel_dependent": dependent,
        }
        if second:  # which points depended on the sentinel: those that differ from "outputs"
            result["outputs2"] = second
        if len(entries) > MAX_GUARD_ENTRIES:
            result["guard_total"] = len(entries)
        return result


def _script_of(sch):
    try:
        return sch.mod.script()
    except Exception as e:  # noqa: BLE001 - the report matters more than its extra
        return f"(cannot print the module: {type(e).__name__}: {e})"


class CaseEnd(Exception):
    def __init__(self, report):
        super().__init__(report.get("message", ""))
        self.report = report


def _is_out_of_memory(e):
    if isinstance(e, MemoryError):
        return True
    text = str(e)
    return "std::bad_alloc" in text or "Cannot allocate memory" in text or "out of memory" in text.lower()


SCRIPT_FILE = "<halo case>"


def exec_script(source):
    """Runs the request's script as the module `halo_case`. TVMScript's parser reads the
    source of the functions it decorates (inspect.getsource), so the source is registered
    with linecache under the module's file name: exec of a bare string would fail with
    "could not get source code"."""
    filename = SCRIPT_FILE
    module = types.ModuleType("halo_case")
    module.__file__ = filename
    sys.modules["halo_case"] = module
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), module.__dict__)
    return module.__dict__


def thread_allowance():
    """Address space for the threads of TVM's pool, on top of the request's allowance.
    RLIMIT_AS counts reservations, not use: each thread would reserve a stack (8 MiB) and a
    malloc arena (64 MiB), so a parallel loop on a many-core machine failed to start its
    threads under a modest limit and TVM ended in std::terminate - a crash that is not
    TVM's. With one arena for all threads (a parallel loop barely mallocs) only the stacks
    remain, and they are allowed for here."""
    if _libc is not None:
        _libc.mallopt(M_ARENA_MAX, 1)  # this process has not made a second arena yet
    threads = os.cpu_count() or 1
    for var in ("TVM_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(var, "")
        if value.isdigit():
            threads = max(threads, int(value))
    stack, _ = resource.getrlimit(resource.RLIMIT_STACK)
    if stack == resource.RLIM_INFINITY or stack <= 0:
        stack = 8 << 20
    return threads * (stack + (64 << 10))  # and a guard page or so each


def vm_size_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def child_main(payload, max_memory, report_w, output_w, worker_pid):
    """In the forked child: never returns."""
    status = 0
    try:
        os.setpgid(0, 0)  # its own group: a timeout kills it and whatever it started
        if _libc is not None:
            _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # and it dies with the worker
        if os.getppid() != worker_pid:
            os._exit(1)
        # The crash signals end the child as the signal (the worker reports which):
        # tvm_ffi installs a SIGSEGV handler that prints a backtrace and Python may have
        # faulthandler; neither may turn a crash into something else.
        if faulthandler.is_enabled():
            faulthandler.disable()
        for s in (signal.SIGSEGV, signal.SIGFPE, signal.SIGBUS, signal.SIGABRT, signal.SIGILL):
            signal.signal(s, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if max_memory > 0:
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            want = vm_size_bytes() + max_memory + thread_allowance()
            if hard != resource.RLIM_INFINITY:
                want = min(want, hard)
            resource.setrlimit(resource.RLIMIT_AS, (want, hard))
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(output_w, 1)
        os.dup2(output_w, 2)
        os.close(output_w)
        try:
            os.close(REPORT_FD)  # only the worker answers halo; nothing left behind holds the pipe
        except OSError:
            pass
        Child(report_w).run(payload)
    except BaseException:  # noqa: BLE001 - the worker reports an exit without a report
        try:
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    os._exit(status)  # no interpreter teardown: TVM's destructors and threads stay out of it


# ---------------------------------------------------------------- the worker


def handle(payload, max_memory, timeout):
    """Runs one case in a child and returns its report (a dict)."""
    report_r, report_w = os.pipe()
    output_r, output_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()  # or the child would print the worker's pending output again
    gc.freeze()  # what this request added, too (see warm_up)
    worker_pid = os.getpid()
    # The request's own "timeout", when given, is the case's limit: halo waits for the
    # report a margin longer (the header's), so a hang is reported, not a dead worker.
    try:
        asked = json.loads(payload).get("timeout")
        if isinstance(asked, (int, float)) and 0 < asked < (timeout or float("inf")):
            timeout = float(asked)
    except (ValueError, AttributeError):
        pass
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(report_r)
        os.close(output_r)
        child_main(payload, max_memory, report_w, output_w, worker_pid)
    os.close(report_w)
    os.close(output_w)
    try:
        os.setpgid(pid, pid)  # also here, so the group exists before any kill
    except OSError:
        pass
    try:
        return supervise(pid, start, report_r, output_r, max_memory, timeout)
    except BaseException:
        # The worker's own failure: the child must not outlive the request either way.
        _kill_group(pid)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        raise
    finally:
        os.close(report_r)
        os.close(output_r)


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)  # a reaped child's id stays unused while its group lives
    except OSError:
        pass


def supervise(pid, start, report_r, output_r, max_memory, timeout):
    """Follows the child's phases until it reports, dies or runs out of time."""
    deadline = start + timeout if timeout > 0 else None
    phase, phase_times, lines, partial, report = "", {}, b"", None, None
    output_tail, timed_out = b"", False
    open_fds = [report_r, output_r]
    while report_r in open_fds and report is None:
        wait = None if deadline is None else deadline - time.monotonic()
        if wait is not None and wait <= 0:
            timed_out = True
            break
        try:
            ready, _, _ = select.select(open_fds, [], [], wait)
        except InterruptedError:
            continue
        for fd in ready:
            data = os.read(fd, 1 << 16)
            if not data:
                open_fds.remove(fd)
                continue
            if fd == output_r:  # passed on, and the tail kept to explain an abort
                write_all(2, data)
                output_tail = (output_tail + data)[-OUTPUT_TAIL:]
                continue
            lines += data
            *complete, lines = lines.split(b"\n")
            for line in complete:
                kind, _, rest = line.decode("utf-8", "replace").partition(" ")
                if kind == "PHASE":
                    phase = rest
                    phase_times[rest] = time.monotonic()
                elif kind == "PARTIAL":
                    partial = json.loads(rest)
                elif kind == "REPORT":
                    report = json.loads(rest)
                    if not isinstance(report, dict):
                        raise ValueError("the child's report is not an object")
    # The report is in, or the pipe closed: the child is exiting or gone. Whatever it left
    # behind goes with its group (nothing may keep the pipes open or compile on).
    while not timed_out:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if deadline is not None and time.monotonic() >= deadline:
            timed_out = True
        else:
            time.sleep(0.0005)
    _kill_group(pid)
    if timed_out:
        _, status = os.waitpid(pid, 0)
    output_tail = (output_tail + _drain(output_r))[-OUTPUT_TAIL:]
    total = time.monotonic() - start

    if report is not None and not timed_out:
        report.setdefault("seconds", {})["total"] = total
        return report
    seconds = _phase_seconds(phase_times, start)
    seconds["total"] = total
    report = {"phase": phase, "seconds": seconds}
    if partial is not None:
        report.update(partial)
    if timed_out:
        report.update(outcome="timeout", message=f"timed out after {timeout:g} s in phase {phase or 'start'}")
    elif os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.strsignal(sig) or f"signal {sig}"
        tail = output_tail.decode("utf-8", "replace")
        oom_words = ("out of memory", "std::bad_alloc", "Cannot allocate memory", "MemoryError")
        if max_memory > 0 and sig == signal.SIGABRT and any(w in tail for w in oom_words):
            report.update(outcome="out_of_memory", message=f"aborted for lack of memory in phase {phase}")
        else:
            report.update(outcome="crash", signal=sig, message=f"killed by signal {sig} ({name}) in phase {phase or 'start'}")
    else:
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
        last = [l for l in output_tail.decode("utf-8", "replace").splitlines() if l.strip()][-1:]
        report.update(
            outcome="crash",
            signal=0,
            message=f"the child exited with status {code} without a report in phase {phase or 'start'}"
            + (f"; it last printed: {last[0][:1000]}" if last else ""),
        )
    return report


def _phase_seconds(phase_times, start):
    """Each phase's time, from when the child announced it to when it announced the next."""
    seconds = {}
    order = sorted(phase_times.items(), key=lambda kv: kv[1])
    for i, (name, t) in enumerate(order):
        end = order[i + 1][1] if i + 1 < len(order) else time.monotonic()
        seconds[name] = end - t
    return seconds


def _drain(fd):
    """What is left in the child's output, passed on; returns its tail."""
    os.set_blocking(fd, False)
    tail = b""
    while True:
        try:
            data = os.read(fd, 1 << 16)
        except (BlockingIOError, InterruptedError):
            return tail
        if not data:
            return tail
        write_all(2, data)
        tail = (tail + data)[-OUTPUT_TAIL:]


WARM_UP = """
from tvm.script import ir as I, tirx as T
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
        for i in range(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi] + 1
"""


def warm_up():
    """Does once here what every child would otherwise pay for on its first TVMScript
    parse, about 40 ms: the parser's lazy imports and inspect's table of every loaded
    module's file (the parser looks up its caller's source). Parsing only builds IR: no
    LLVM, no thread pool, nothing that makes a fork unsafe."""
    # The parser calls inspect.stack() over and over, and inspect maps each frame's file to
    # its module through a cache; a file it cannot find there (the case's, and "<ast>", the
    # name under which the parser evaluates expressions) makes it walk all 1100 loaded
    # modules, each time (~2 ms, and copy-on-write faults in a child). Entered here, they
    # resolve at once, to what the walk would find: the case's module, and none.
    inspect.modulesbyfile.setdefault(SCRIPT_FILE, "halo_case")
    inspect.modulesbyfile.setdefault("<ast>", "<no module>")
    try:
        exec_script(WARM_UP)
    except Exception:  # noqa: BLE001 - only slower children
        traceback.print_exc()
    sys.modules.pop("halo_case", None)
    # Python's objects are shared with the children copy-on-write; a collection in a
    # child would walk (and so copy) all of them, some 40 ms. Frozen, it walks only its own.
    gc.collect()
    gc.freeze()


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    warm_up()
    while True:
        header = read_exact(REQUEST_FD, HEADER.size)
        if header is None:
            return 0
        length, max_memory, timeout = HEADER.unpack(header)
        payload = read_exact(REQUEST_FD, length) if length else b""
        if payload is None:
            return 0
        reply = b""
        if length:
            try:
                report = handle(payload, max_memory, timeout)
            except Exception as e:  # noqa: BLE001 - the worker's own failure: say so, keep serving
                traceback.print_exc()
                report = {"outcome": "crash", "phase": "", "signal": 0, "message": f"worker: {type(e).__name__}: {e}"[:MAX_MESSAGE]}
            report["tvm_version"] = tvm.__version__
            for key in ("guard", "input_changed", "sentinel_dependent"):
                report.setdefault(key, [])
            reply = json.dumps(report, separators=(",", ":")).encode()
        try:
            write_all(REPORT_FD, reply + DONE)
        except BrokenPipeError:
            return 0


if __name__ == "__main__":
    sys.exit(main())
