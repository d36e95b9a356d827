"""End-to-end check of tvm_worker.py through its real protocol.

    PYTHONPATH=<one TVM version's --target directory> python3 tvm_worker_selftest.py

Starts the worker as halo does (requests on its stdin, reports on its fd 3, its stdout and
stderr on a third pipe), sends it cases and checks the reports: one line per check, exit
status 0 when all pass. Also prints the warm worker's time per case.
"""

import json
import os
import struct
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "tvm_worker.py")
DONE = b"\nHALO_WORKER_DONE\n"


class Worker:
    def __init__(self):
        def high(fd):  # out of the way of 0-3 before the dup2s below
            new = __import__("fcntl").fcntl(fd, __import__("fcntl").F_DUPFD_CLOEXEC, 10)
            os.close(fd)
            return new

        req_r, self.req_w = map(high, os.pipe())
        self.rep_r, rep_w = map(high, os.pipe())
        self.out_r, out_w = map(high, os.pipe())
        actions = [
            (os.POSIX_SPAWN_DUP2, req_r, 0),
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_DUP2, out_w, 2),
            (os.POSIX_SPAWN_DUP2, rep_w, 3),
        ]
        self.pid = os.posix_spawn(sys.executable, [sys.executable, WORKER], dict(os.environ), file_actions=actions)
        for fd in (req_r, rep_w, out_w):
            os.close(fd)
        self.output = bytearray()
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

    def _drain(self):  # the worker must never block on its output
        while True:
            data = os.read(self.out_r, 1 << 16)
            if not data:
                return
            self.output += data

    def call(self, request, timeout=30.0, max_memory=0, wait=120.0):
        payload = json.dumps(request).encode() if request is not None else b""
        os.write(self.req_w, struct.pack("<QQd", len(payload), max_memory, timeout) + payload)
        got = b""
        deadline = time.monotonic() + wait
        import select

        while not got.endswith(DONE):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.rep_r], [], [], left)[0]:
                raise RuntimeError("no report from the worker")
            data = os.read(self.rep_r, 1 << 20)
            if not data:
                raise RuntimeError("the worker died: " + self.output[-2000:].decode("utf-8", "replace"))
            got += data
        got = got[: -len(DONE)]
        return json.loads(got) if got else None

    def close(self):
        os.close(self.req_w)
        _, status = os.waitpid(self.pid, 0)
        return status


# ---------------------------------------------------------------- the cases

HEADER = "import tvm\nfrom tvm.script import ir as I, tirx as T\n"

ELEMENTWISE_INT = HEADER + '''
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] * 2 + 1
mod = Module

def schedule(sch):
    (i,) = sch.get_loops(sch.get_sblock("B"))
    sch.split(i, factors=[None, 4])
'''

ELEMENTWISE_FLOAT = HEADER + '''
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] * T.float32(2) + T.float32(1)
                C[vi] = A[vi]
mod = Module

def schedule(sch):
    (i,) = sch.get_loops(sch.get_sblock("B"))
    _, inner = sch.split(i, factors=[None, 8])
    sch.vectorize(inner)
'''

# The loop runs to 17 over a 16-element output: no T.where keeps the last point out.
WRITE_PAST_END = HEADER + '''
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(17):
            with T.sblock("B"):
                vi = T.axis.spatial(17, i)
                B[vi] = A[vi % 16] * 2 + 1
mod = Module

def schedule(sch):
    pass
'''

READ_BEFORE_START = HEADER + '''
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi - 1]
mod = Module

def schedule(sch):
    pass
'''

REFUSED = ELEMENTWISE_INT.replace(
    '    sch.split(i, factors=[None, 4])\n', '    sch.compute_inline(sch.get_sblock("B"))\n'
)

DIVIDE = HEADER + '''
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4,), "int32"), D: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
        for i in range(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = T.truncdiv(A[vi], D[vi])
mod = Module

def schedule(sch):
    pass
'''

# 2^60 steps of a recurrence LLVM cannot put in closed form.
ENDLESS = HEADER + '''
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(B: T.Buffer((1,), "int32")):
        for i, j, k in T.grid(1048576, 1048576, 1048576):
            with T.sblock("B"):
                vi, vj, vk = T.axis.remap("RRR", [i, j, k])
                with T.init():
                    B[0] = 1
                B[0] = B[0] * 1664525 + 1013904223
mod = Module

def schedule(sch):
    pass
'''

TYPES = HEADER + '''
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4,), "uint64"), E: T.Buffer((0, 3), "int32"), C: T.Buffer((4,), "uint64"),
             B: T.Buffer((4,), "bool"), Z: T.Buffer((0,), "float32"), S: T.Buffer((), "float16")):
        for i in range(4):
            with T.sblock("C"):
                vi = T.axis.spatial(4, i)
                C[vi] = A[vi] + T.uint64(1)
                B[vi] = (A[vi] >> T.uint64(63)) == T.uint64(1)
        for i in range(0):
            with T.sblock("Z"):
                vi = T.axis.spatial(0, i)
                Z[vi] = T.float32(1)
        with T.sblock("S"):
            S[()] = T.float16(1.5)
mod = Module

def schedule(sch):
    (i,) = sch.get_loops(sch.get_sblock("C"))
    sch.split(i, factors=[2, 2])
'''


# Run 1 writes one past the end of B; run 2 divides by zero, because what it reads before
# A is the second sentinel (0x5A5A5A5A).
SECOND_RUN_CRASHES = HEADER + '''
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(17):
            with T.sblock("B"):
                vi = T.axis.spatial(17, i)
                B[vi] = T.truncdiv(A[vi % 16] + 1000000, A[T.max(vi, 1) - 2] - 1515870810)
mod = Module

def schedule(sch):
    pass
'''

# A crash staged in one phase, to check that the report names it.
CRASH_IN_SCHEDULE = ELEMENTWISE_INT.replace("    sch.split(", "    import os, signal; os.kill(os.getpid(), signal.SIGSEGV)\n    sch.split(")
CRASH_IN_COMPILE = ELEMENTWISE_INT + '''
import os, signal
tvm.compile = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGBUS)
'''


def request(script, args, memcheck=True, **more):
    return {"script": script, "args": args, "memcheck": memcheck, "guard_bytes": 4096, "print_scheduled": False, **more}


def arg(name, dtype, shape, values=None):
    return {"name": name, "dtype": dtype, "shape": shape, "values": values}


INT_A = list(range(-8, 8))
INT_EXPECTED = [a * 2 + 1 for a in INT_A]
CASE1 = request(ELEMENTWISE_INT, [arg("A", "int32", [16], INT_A), arg("B", "int32", [16])])

failures = 0


def check(name, ok, report=None):
    global failures
    print(("ok    " if ok else "FAIL  ") + name)
    if not ok:
        failures += 1
        if report is not None:
            text = json.dumps(report)
            print("      report: " + (text if len(text) < 3000 else text[:3000] + "..."))


def main():
    worker = Worker()
    t = time.monotonic()
    check("ready: an empty request is answered with the terminator alone", worker.call(None) is None)
    print(f"      worker ready after {time.monotonic() - t:.2f} s")

    r = worker.call(CASE1)
    check(
        "1 int32 elementwise with a split: pass, right outputs, clean memory check",
        r["outcome"] == "pass"
        and r["outputs"] == {"B": INT_EXPECTED}
        and r["guard"] == []
        and r["input_changed"] == []
        and r["sentinel_dependent"] == []
        and "outputs2" not in r,
        r,
    )
    check("1 the report names the TVM version", r.get("tvm_version") == __import__("tvm").__version__, r)
    r = worker.call({**CASE1, "print_scheduled": True})
    check("1 print_scheduled gives the scheduled TVMScript", "T.grid(4, 4)" in r.get("scheduled", ""), r)

    a = np.array(
        [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, 1e-45, -1e-40, 3.4e38, 1e-7, 123456.789, -7.0, 0.1, 2.0, 8.0, 0.0],
        dtype=np.float32,
    )
    a_bits = a.view(np.uint32).copy()
    a_bits[15] = 0x7FC12345  # a quiet NaN with a payload
    a_bits[14] = 0x7F812345  # a signalling NaN: copied through C untouched
    a = a_bits.view(np.float32)
    with np.errstate(all="ignore"):
        b = a * np.float32(2) + np.float32(1)
    r = worker.call(
        request(
            ELEMENTWISE_FLOAT,
            [arg("A", "float32", [16], a_bits.tolist()), arg("B", "float32", [16]), arg("C", "float32", [16])],
        )
    )
    check(
        "2 float32 outputs come back as bit patterns, exactly",
        r["outcome"] == "pass"
        and r["outputs"].get("C") == a_bits.tolist()
        and np.array_equal(np.array(r["outputs"]["B"], dtype=np.uint32)[:14], b.view(np.uint32)[:14])
        and np.isnan(np.array(r["outputs"]["B"], dtype=np.uint32).view(np.float32)[14:]).all(),
        r,
    )

    r = worker.call(request(WRITE_PAST_END, [arg("A", "int32", [16], INT_A), arg("B", "int32", [16])]))
    check(
        "3 a write one past the end: pass, guard reports B after offset 16",
        r["outcome"] == "pass"
        and {"buffer": "B", "side": "after", "offset": 16, "run": 1, "bytes": 4} in r["guard"]
        and all(g["buffer"] == "B" and g["offset"] == 16 for g in r["guard"]),
        r,
    )

    r = worker.call(request(READ_BEFORE_START, [arg("A", "int32", [16], INT_A), arg("B", "int32", [16])]))
    check(
        "4 a read before the start: B is sentinel-dependent, only in its first point (the sentinel's value)",
        r["outcome"] == "pass"
        and r["sentinel_dependent"] == ["B"]
        and r["outputs"]["B"][1:] == INT_A[:15]
        and r["outputs2"]["B"][1:] == INT_A[:15]
        and r["outputs"]["B"][0] == 0xA5A5A5A5 - 2**32
        and r["outputs2"]["B"][0] == 0x5A5A5A5A,
        r,
    )

    r = worker.call(request(REFUSED, [arg("A", "int32", [16], INT_A), arg("B", "int32", [16])]))
    check(
        "5 compute_inline of the output block: schedule_error",
        r["outcome"] == "schedule_error" and r["phase"] == "schedule" and "ScheduleError" in r["message"],
        r,
    )

    r = worker.call(
        request(
            DIVIDE,
            [arg("A", "int32", [4], [10, 20, 30, 40]), arg("D", "int32", [4], [1, 2, 0, 4]), arg("B", "int32", [4])],
        )
    )
    check("6 integer division by zero: crash, SIGFPE, in phase run", r["outcome"] == "crash" and r.get("signal") == 8 and r["phase"] == "run", r)
    r = worker.call(CASE1)
    check("6 ... and the worker serves the next case", r["outcome"] == "pass" and r["outputs"] == {"B": INT_EXPECTED}, r)

    AB = [arg("A", "int32", [16], INT_A), arg("B", "int32", [16])]
    r = worker.call(request(CRASH_IN_SCHEDULE, AB))
    check("a crash while scheduling: crash, SIGSEGV, in phase schedule", r["outcome"] == "crash" and r.get("signal") == 11 and r["phase"] == "schedule", r)
    r = worker.call(request(CRASH_IN_COMPILE, AB))
    check("a crash while compiling: crash, SIGBUS, in phase compile", r["outcome"] == "crash" and r.get("signal") == 7 and r["phase"] == "compile", r)
    r = worker.call(request(SECOND_RUN_CRASHES, AB))
    check(
        "a crash in the second run keeps the first run's guard findings",
        r["outcome"] == "crash" and r.get("signal") == 8 and r["phase"] == "run"
        and r["guard"] == [{"buffer": "B", "side": "after", "offset": 16, "run": 1, "bytes": 4}],
        r,
    )

    t = time.monotonic()
    r = worker.call(request(ENDLESS, [arg("B", "int32", [1])]), timeout=2.0)
    took = time.monotonic() - t
    check(f"7 an endless loop with a 2 s limit: timeout in phase run ({took:.2f} s)", r["outcome"] == "timeout" and r["phase"] == "run" and took < 4, r)
    r = worker.call(CASE1)
    check("7 ... and the worker serves the next case", r["outcome"] == "pass" and r["outputs"] == {"B": INT_EXPECTED}, r)

    big = [1, 2**63, 2**64 - 1, 2**63 + 5]
    r = worker.call(
        request(
            TYPES,
            [
                arg("A", "uint64", [4], big),
                arg("E", "int32", [0, 3], []),
                arg("C", "uint64", [4]),
                arg("B", "bool", [4]),
                arg("Z", "float32", [0]),
                arg("S", "float16", []),
            ],
        )
    )
    check(
        "8 uint64 above 2^63, a bool output, 0-extent and 0-dimensional buffers",
        r["outcome"] == "pass"
        and r["outputs"] == {"C": [2, 2**63 + 1, 0, 2**63 + 6], "B": [0, 1, 1, 1], "Z": [], "S": [int(np.float16(1.5).view(np.uint16))]}
        and r["guard"] == []
        and r["sentinel_dependent"] == []
        and r["input_changed"] == [],
        r,
    )

    r = worker.call({**CASE1, "memcheck": False})
    check("9 memcheck false: the same outputs as case 1", r["outcome"] == "pass" and r["outputs"] == {"B": INT_EXPECTED}, r)

    # What else the protocol promises.
    r = worker.call(request("raise ValueError('translation bug')", []))
    check("bad script: bad_request in phase script", r["outcome"] == "bad_request" and r["phase"] == "script" and "translation bug" in r["message"], r)
    r = worker.call(request(ELEMENTWISE_INT, [arg("A", "int32", [16], INT_A[:3]), arg("B", "int32", [16])]))
    check("wrong number of values: bad_request", r["outcome"] == "bad_request", r)
    r = worker.call(request(ELEMENTWISE_INT, [arg("A", "int32", [16], INT_A), arg("B", "int32", [15])]))
    check("a buffer of the wrong shape: run_error", r["outcome"] == "run_error" and r["phase"] == "run", r)
    r = worker.call(request(ELEMENTWISE_INT, [arg("A", "int32", [16], INT_A), arg("B", "int32", [1 << 30])]), max_memory=256 << 20)
    check("a 4 GiB buffer under a 256 MiB limit: out_of_memory", r["outcome"] == "out_of_memory" and r["phase"] == "run", r)
    r = worker.call(request(WRITE_PAST_END.replace("range(17)", "range(40)").replace("spatial(17", "spatial(40"),
                            [arg("A", "int32", [16], INT_A), arg("B", "int8", [16])]))
    check("a wrong dtype is refused when called: run_error", r["outcome"] == "run_error", r)

    # The warm worker's speed: fork, script, schedule, compile, two guarded runs, per case.
    totals, parts = [], {"schedule": 0.0, "compile": 0.0, "run": 0.0}
    for _ in range(20):
        t = time.monotonic()
        r = worker.call(CASE1)
        totals.append(time.monotonic() - t)
        assert r["outcome"] == "pass", r
        for k in parts:
            parts[k] += r["seconds"][k] / 20
    check("20 warm cases all pass", True)
    print(
        f"      per case, round trip mean {1000 * sum(totals) / len(totals):.1f} ms"
        f" (min {1000 * min(totals):.1f}, max {1000 * max(totals):.1f});"
        f" schedule {1000 * parts['schedule']:.1f} ms, compile {1000 * parts['compile']:.1f} ms,"
        f" run (both guarded runs) {1000 * parts['run']:.1f} ms"
    )

    status = worker.close()
    check("EOF on stdin: the worker exits with status 0", os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
    print(f"{'all checks passed' if failures == 0 else f'{failures} checks FAILED'} (TVM {__import__('tvm').__version__})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
