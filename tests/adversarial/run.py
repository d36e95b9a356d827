#!/usr/bin/env python3
"""Every adversarial input of issue 20, run against the real halo binary as a user runs it.

Each row is one input that once crashed, hung or misreported halo. The row holds when halo
ends with one of the documented statuses (2: bad input, 3: a resource limit, 1: a finding of
a candidate, 0: a verdict), within the limit that applies plus one second (of halo's CPU
time where halo computes throughout: run_row), and leaves no
process of a candidate running and no temporary folder behind. The script prints the table
(docs/testing.md, "Adversarial inputs") and exits 1 if any row fails.

    tests/adversarial/run.py build/halo [--only NAME] [--markdown]

The rows are end-to-end on purpose: a signal, a pipe that never drains or a child that leaves
its process group only show in a separate process. The in-process versions of most rows,
with finer assertions, are in tests/test_reliability.cpp.
"""
import argparse
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THESIS = os.path.join(SRC, "examples", "thesis_2_2.halo")


def write(d, name, text, mode="w"):
    path = os.path.join(d, name)
    with open(path, mode) as f:
        f.write(text)
    return path


def program(body, realize="realize () over (0, 2)"):
    return "pipeline f() {\n  fun f(x) = {\n    " + body + "\n  }\n}\n\n" + realize + "\n"


def candidate_processes(halo_pid):
    """Processes a candidate of halo process halo_pid started (support/child_processes.hpp)."""
    marker = ("HALO_CANDIDATE=%d-" % halo_pid).encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
            if stat[stat.rfind(b")") + 2:][:1] == b"Z":
                continue
            with open("/proc/%s/environ" % name, "rb") as f:
                if marker in f.read():
                    found.append(int(name))
        except OSError:
            pass
    return found


def kernel_dirs(tmp):
    try:
        return {n for n in os.listdir(tmp) if n.startswith("halo-kernel")}
    except OSError:
        return set()


class Row:
    def __init__(self, name, issue_text, argv, statuses, limit, stdin=None, signal_after=None, expect=None, env=None,
                 cpu_bound=False, max_output=None, needs_halide=False):
        self.name, self.issue_text, self.argv = name, issue_text, argv
        self.statuses, self.limit, self.stdin = statuses, limit, stdin
        self.signal_after, self.expect = signal_after, expect
        self.env = env  # variables to set (None: unset) for this row only
        # halo computes until its limit (no candidate it waits for): the second of grace
        # after the limit is a second of halo's CPU, stretched by the share of the CPU the
        # machine's load left it (see run_row).
        self.cpu_bound = cpu_bound
        self.max_output = max_output  # bytes of stdout and stderr together, at most
        self.needs_halide = needs_halide  # skipped when halo was built without a Halide worker


def halide_worker(halo):
    """A Halide worker next to halo, or None when halo was built without Halide."""
    d = os.path.dirname(halo)
    for name in sorted(os.listdir(d)):
        if name.startswith("halo_halide_worker_") and os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    return None


def slow_halide_program(d):
    """A pipeline that halo checks in a second and Halide compiles for a minute and more.

    200 funcs, each reading its producer at three points (compute_root by default): halo's
    reference takes under a second, Halide 21's JIT compile with the traced memcheck run
    about 70 s on a 2-core machine for 150 funcs (measured), longer for 200."""
    n = 200
    return write(d, "slow_halide.halo", "pipeline f%d() {\n  fun f0(x, y) = { x + y }\n" % n + "".join(
        "  fun f%d(x, y) = { (f%d[x, y] + f%d[x + 1, y] + f%d[x, y + 1]) %% 1000 }\n" % (i, i - 1, i - 1, i - 1)
        for i in range(1, n + 1)) + "}\n\nrealize () over (0, 8), (0, 8)\n")


def rows(halo, d):
    """The issue's inputs, in the issue's order."""
    r = []
    thesis_fill = os.path.join(SRC, "examples", "thesis_2_2.fill.json")
    # Crashes.
    deep_answer = "python3 -c \"print('{\\\"fail\\\": ' + '[' * 200000 + ']' * 200000 + '}')\""
    r.append(Row("engine-deep-answer", "an engine's answer nested 200,000 deep",
                 [halo, "run", THESIS, "--engine", deep_answer, "--engine-timeout", "5"], {1}, 5, expect="not JSON"))
    r.append(Row("comply-deep-answer", "the same engine under halo comply",
                 [halo, "comply", "--engine", deep_answer, "--cases", "2", "--seed", "1", "--engine-timeout", "5"],
                 {1}, 10))
    updates = write(d, "updates.halo", program("x" + "".join(";\n    (x) <- f[x] + 1" for _ in range(20000))))
    chain_src = "pipeline f19999() {\n  fun f0(x) = { x }\n" + "".join(
        "  fun f%d(x) = { f%d[x] }\n" % (i, i - 1) for i in range(1, 20000)) + "}\n\nrealize () over (0, 2)\n"
    chain = write(d, "chain.halo", chain_src)
    for cmd in ("run", "bounds", "oracle", "explain"):
        for name, path in (("updates", updates), ("chain", chain)):
            extra = ["-o", os.path.join(d, "page.html")] if cmd == "explain" else []
            r.append(Row("%s-20000-%s" % (cmd, name), "20,000 %s: halo %s" % (
                "update stages" if name == "updates" else "chained funcs", cmd),
                [halo, cmd, path, "--timeout", "5"] + extra, {0, 3}, 5, cpu_bound=True))
    r.append(Row("replay-20000-updates", "20,000 update stages: halo fuzz --replay",
                 [halo, "fuzz", "--target", "self", "--replay", updates, "--case-timeout", "1"], {0, 1, 3}, 10,
                 cpu_bound=True))
    # Hangs and limits.
    # A chain of 200 funcs reading x and x + 1: its query document is about 790 KB, far more
    # than a pipe holds, so halo's write would block on an engine that never reads.
    wide = write(d, "wide.halo", "pipeline f199() {\n  fun f0(x) = { x }\n" + "".join(
        "  fun f%d(x) = { f%d[x] + f%d[x + 1] }\n" % (i, i - 1, i - 1) for i in range(1, 200)) +
        "}\n\nrealize () over (0, 2)\n")
    r.append(Row("engine-never-reads", "an engine that never reads its 790 KB query",
                 [halo, "run", wide, "--engine", "exec sleep 60", "--engine-timeout", "2"], {1}, 2 + 1,
                 expect="no answer within"))
    r.append(Row("engine-lingers", "an engine that answers, closes stdout and keeps running",
                 [halo, "run", THESIS, "--engine", "echo '{\"fail\": \"x\"}'; exec >&-; sleep 60",
                  "--engine-timeout", "2"], {1}, 2))
    r.append(Row("engine-background-child", "an engine that answers while a background child holds stdout",
                 [halo, "run", THESIS, "--engine", "sleep 60 & echo '{\"fail\": \"in the background\"}'",
                  "--engine-timeout", "5"], {1}, 5, expect="the engine gave up (in the background)"))
    r.append(Row("explain-int64-window", "explain on the window (9223372036854775806, 2)",
                 [halo, "explain", THESIS, "--window", "9223372036854775806,2", "-o", os.path.join(d, "w.html"),
                  "--timeout", "10"], {0, 1, 3}, 10))
    dup = write(d, "dup.halo", "pipeline g() {\n  fun g(x, b, b, y) = { x + y }\n}\nschedule {\n"
                "  tile(g, x, y, xo, yo, xi, yi, 8, 4);\n}\nrealize () over (0, 2), (0, 2), (0, 2), (0, 2)\n")
    r.append(Row("tile-duplicate-loop", "(found by libFuzzer) tile over a func declaring a variable twice, --timeout 5",
                 [halo, "check", dup, "--timeout", "5"], {2}, 5))
    squares = write(d, "squares.halo", program("2" + "".join(";\n    (x) <- f[x] * f[x]" for _ in range(64)),
                                                "realize () over (0, 1)"))
    r.append(Row("bigint-64-squarings", "64 squarings of 2 under --timeout 10",
                 [halo, "eval", squares, "--timeout", "10"], {3}, 10, cpu_bound=True))
    mult = write(d, "mult.halo", program("x + 1" + "".join(";\n    (x) <- f[x] * 1000000007" for _ in range(3000)),
                                         "realize () over (0, 20000)"))
    r.append(Row("bigint-memory", "3000 updates multiplying 20,000 points by 1000000007, --max-memory 16",
                 [halo, "eval", mult, "--max-memory", "16", "--timeout", "60"], {3}, 60, cpu_bound=True))
    grow = write(d, "grow.halo", program("x + 1" + "".join(";\n    (x) <- f[x] + f[x] * 3" for _ in range(100000)),
                                         "realize () over (0, 2)"))
    r.append(Row("bigint-100000-updates", "100,000 updates of a growing integer under --timeout 10",
                 [halo, "eval", grow, "--timeout", "10"], {3}, 10, cpu_bound=True))
    rvars = ", ".join("r%d = (0, 2)" % i for i in range(200))
    rdom = write(d, "rdom200.halo", program("x;\n    rdom(" + rvars + ") in (x) <- f[x] + 1"))
    r.append(Row("default-limits-200-rvars", "200 reduction variables under the default limits",
                 [halo, "eval", rdom], {3}, 60, cpu_bound=True))
    for what, argv in (("program", [halo, "check", "/dev/zero"]),
                       ("fill", [halo, "run", THESIS, "--fill", "/dev/zero"]),
                       ("manifest", [halo, "kernel", "/dev/zero"]),
                       ("fuzzer-input", [halo, "fuzz", "--target", "self", "--fuzzer-input", "/dev/zero"]),
                       ("engine-query", [halo, "beta0-engine", "/dev/zero"])):
        r.append(Row("dev-zero-" + what, "/dev/zero as the %s" % what, argv, {2}, 1, expect="not a regular file"))
    # halo kernel with a compiler that never ends.
    spec = write(d, "spec.halo", "pipeline out() {\n  fun out(i) = { i }\n}\nrealize () over (0, 4)\n")
    write(d, "devzero.c", '#include "/dev/zero"\n')
    devzero = write(d, "devzero.json", '{"platform": "c", "sources": ["devzero.c"], "function": "k", '
                    '"spec": "spec.halo", "args": [{"kind": "output", "type": "int32_t", "shape": [4], "func": "out"}]}')
    r.append(Row("kernel-include-dev-zero", "a kernel that #includes /dev/zero (the C compiler's memory)",
                 [halo, "kernel", devzero], {2}, 60, expect="the kernel does not compile"))
    # Detection.
    write(d, "iw.c", "#include <stdint.h>\nvoid k(const int32_t* x, int32_t* out) {\n"
          "  for (int i = 0; i < 4; ++i) out[i] = x[i];\n  ((int32_t*)x)[2] = 0;\n}\n")
    write(d, "iw.halo", "pipeline out() {\n  fun x(i) = { i * 3 }\n  fun out(i) = { x[i] }\n}\nrealize () over (0, 4)\n")
    iw = write(d, "iw.json", '{"platform": "c", "sources": ["iw.c"], "function": "k", "spec": "iw.halo", "args": ['
               '{"kind": "input", "type": "int32_t", "shape": [4], "func": "x"},'
               '{"kind": "output", "type": "int32_t", "shape": [4], "func": "out"}]}')
    r.append(Row("kernel-writes-input", "a kernel that writes into an input buffer",
                 [halo, "kernel", iw], {1}, 60, expect="input x"))
    big = write(d, "big.json", '{"comment": [' + ",\n".join(str(i) for i in range(40000)) + '], "platform": 7}')
    r.append(Row("manifest-300kb", "a 300 KB kernel manifest (its location scan)",
                 [halo, "kernel", big], {2}, 1))
    long_path = write(d, "long.json", '{"platform": "c", "sources": ["k.c"], "function": "k", "spec": "' +
                      "g" * 5000 + '", "args": []}')
    r.append(Row("manifest-long-path", "(found by libFuzzer) a kernel manifest naming a 5000-character spec path",
                 [halo, "kernel", long_path], {2}, 1, expect="no such file"))
    os.makedirs(os.path.join(d, "adir"), exist_ok=True)
    for cmd in ("check", "bounds", "run"):
        r.append(Row("directory-" + cmd, "a directory as FILE of halo " + cmd,
                     [halo, cmd, os.path.join(d, "adir")], {2}, 1, expect="is a directory"))
    # Wrong exit status.
    fill = write(d, "fill1e400.json", '{"?mem<g, x>.min": 1e400}')
    r.append(Row("fill-1e400", "1e400 in a fill", [halo, "run", THESIS, "--fill", fill], {2}, 1))
    m400 = write(d, "m1e400.json", '{"platform": "c", "sources": ["iw.c"], "function": "k", "spec": "iw.halo", '
                 '"args": [{"kind": "scalar", "type": "int32_t", "value": 1e400}]}')
    r.append(Row("manifest-1e400", "1e400 in a kernel manifest", [halo, "kernel", m400], {2}, 1))
    r.append(Row("answer-1e400", "1e400 in an engine's answer",
                 [halo, "run", THESIS, "--engine", "echo '{\"holes\": {\"?mem<g, x>.min\": 1e400}}'"], {1}, 5))
    q400 = write(d, "q1e400.json", '{"holes": [], "x": 1e400}')
    r.append(Row("beta0-engine-1e400", "1e400 in beta0-engine's input", [halo, "beta0-engine", q400], {2}, 1))
    r.append(Row("answer-invalid-utf8", "invalid UTF-8 from an engine into --json",
                 [halo, "oracle", THESIS, "--engine", "printf '{\"fail\": \"\\377\\376\"}'", "--json"], {0, 1}, 5))
    r.append(Row("fuzzer-input-directory", "a directory as --fuzzer-input",
                 [halo, "fuzz", "--target", "self", "--fuzzer-input", os.path.join(d, "adir")], {2}, 1,
                 expect="is a directory"))
    # Candidates that outlive halo.
    r.append(Row("engine-setsid-child", "an engine whose child calls setsid()",
                 [halo, "run", THESIS, "--engine", "setsid sleep 60 & echo '{\"fail\": \"escaped\"}'"], {1}, 5))
    write(d, "fork.c", "#include <stdint.h>\n#include <unistd.h>\nvoid k(int32_t* out) {\n"
          "  if (fork() == 0) { setsid(); sleep(60); _exit(0); }\n  for (int i = 0; i < 4; ++i) out[i] = i;\n}\n")
    fork = write(d, "fork.json", '{"platform": "c", "sources": ["fork.c"], "function": "k", "spec": "spec.halo", '
                 '"args": [{"kind": "output", "type": "int32_t", "shape": [4], "func": "out"}]}')
    r.append(Row("kernel-setsid-child", "a kernel whose child calls setsid()", [halo, "kernel", fork], {0, 1}, 60))
    r.append(Row("sigterm-engine", "SIGTERM to halo while its engine runs",
                 [halo, "run", THESIS, "--engine", "setsid sleep 60 & sleep 60", "--engine-timeout", "60"],
                 {-signal.SIGTERM}, 3, signal_after=(1.0, signal.SIGTERM)))
    write(d, "slow.c", "#include <stdint.h>\n#include <unistd.h>\nvoid k(int32_t* out) {\n"
          "  if (fork() == 0) { setsid(); sleep(60); _exit(0); }\n  sleep(60);\n}\n")
    slow = write(d, "slow.json", '{"platform": "c", "sources": ["slow.c"], "function": "k", "spec": "spec.halo", '
                 '"args": [{"kind": "output", "type": "int32_t", "shape": [4], "func": "out"}]}')
    r.append(Row("sigint-kernel", "SIGINT to halo while its kernel runs (and its temporary folder)",
                 [halo, "kernel", slow], {-signal.SIGINT}, 12, signal_after=(8.0, signal.SIGINT)))
    # The Halide worker is a candidate like the others (its own group, the marker, a PID
    # namespace): no signal, not even SIGKILL, leaves it compiling; --timeout bounds it.
    slow_halide = slow_halide_program(d)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL):
        name = signal.Signals(sig).name
        r.append(Row("%s-halide" % name.lower(), "%s to halo while Halide compiles (--halide-timeout 0)" % name,
                     [halo, "oracle", slow_halide, "--target", "halide", "--halide-timeout", "0", "--timeout", "600"],
                     {-sig}, 1, signal_after=(2.0, sig), needs_halide=True))
    r.append(Row("timeout-3-halide", "--timeout 3 while Halide compiles for a minute",
                 [halo, "oracle", slow_halide, "--target", "halide", "--timeout", "3"], {3}, 3,
                 expect="raise it with --timeout", needs_halide=True))
    r.append(Row("engine-stderr-flood", "an engine printing on standard error without end (yes >&2)",
                 [halo, "run", THESIS, "--engine", "yes >&2", "--engine-timeout", "5"], {1, 3}, 5,
                 expect="more of the engine's standard error left out", max_output=256 * 1024))
    # halo must read its own output.
    tgt = os.path.join(d, "rdom200.tgt")
    r.append(Row("own-tgt-200-rvars", "halo check on halo's .tgt of a 200-variable rdom",
                 ["sh", "-c", '"$0" schedule "$1" > "$2" && "$0" check "$2"', halo, rdom, tgt], {0}, 10))
    r.append(Row("own-query-200-rvars", "beta0-engine on halo's own query of a 200-variable rdom",
                 [halo, "run", rdom, "--engine", halo + " beta0-engine", "--max-steps", "1000"], {0, 3}, 60,
                 expect="!the bounds engine failed"))
    # Flags.
    for flags in (["fuzz", "--target", "self", "--shard", "5/18446744073709551615", "--time", "nan"],
                  ["eval", THESIS, "--max-memory", "17592186044416"], ["eval", THESIS, "--timeout", "nan"],
                  ["fuzz", "--target", "self", "--time", "nan"], ["fuzz", "--target", "self", "--seed", "-1"]):
        r.append(Row("flag" + "".join(f for f in flags[1:] if f.startswith("--")).replace("--", "-"),
                     "halo " + " ".join(flags).replace(SRC + "/", ""), [halo] + flags, {2}, 1))
    r.append(Row("flag-shard-wrap", "--shard 5/18446744073709551615 runs one case",
                 [halo, "fuzz", "--target", "self", "--shard", "5/18446744073709551615", "--json"], {0}, 10,
                 expect='"cases":1,'))
    # Campaigns (issue 31): resume, shared output folders, a full disk, Exo's flags.
    camp = os.path.join(d, "campaign")
    r.append(Row("resume-keeps-recorded-cases", "--resume of a 30-case campaign killed after case 11: the rest of "
                 "its 30 cases, not the default 1000",
                 # one process (--jobs 1): its record has the one next case the row edits
                 ["sh", "-c", '"$0" fuzz --target self --cases 30 --seed 9 --jobs 1 --out "$1" --json >/dev/null && '
                  'p=$(ls "$1"/.halo-campaign-*.progress) && sed -i \'s/"next_case":30/"next_case":12/; '
                  's/"finished":true/"finished":false/\' "$p" && exec "$0" fuzz --resume "$1" --json',
                  halo, camp], {0}, 30, expect='"cases":18,'))
    two = os.path.join(d, "two-campaigns")
    r.append(Row("resume-two-campaigns", "--resume of a folder two seeds share, without --seed",
                 ["sh", "-c", '"$0" fuzz --target self --cases 3 --seed 1 --out "$1" >/dev/null; '
                  '"$0" fuzz --target self --cases 3 --seed 2 --out "$1" >/dev/null; exec "$0" fuzz --resume "$1"',
                  halo, two], {2}, 30, expect="2 campaigns recorded here"))
    r.append(Row("resume-contradicting-flag", "--resume with --cases 3000 where the record says 3",
                 [halo, "fuzz", "--resume", two, "--seed", "1", "--cases", "3000"], {2}, 1,
                 expect="--cases 3000 contradicts"))
    full = os.path.join(d, "full")
    r.append(Row("campaign-disk-full", "halo comply writing findings to a full disk (a 1 KiB file-size limit)",
                 ["sh", "-c", "trap '' XFSZ; ulimit -f 2; exec \"$0\" comply --engine \"HALO=$0 $1\" --cases 20 "
                  "--seed 3 --shrink-tries 5 --out \"$2\"",
                  halo, os.path.join(SRC, "examples", "engines", "give_up.sh"), full], {2}, 60,
                 expect="could not be written"))
    r.append(Row("exo-resume-missing", "halo fuzz --target exo --resume of a folder that does not exist",
                 [halo, "fuzz", "--target", "exo", "--resume", os.path.join(d, "nothing")], {2}, 1,
                 expect="no campaign to resume"))
    # The manifest contract.
    write(d, "copy.c", "#include <stdint.h>\n#include <stdbool.h>\nvoid k(int32_t* out, bool b) {\n"
          "  for (int i = 0; i < 4; ++i) out[i] = out[i] + (b ? 0 : 1);\n}\n")
    write(d, "copy.halo", "pipeline out() {\n  fun x(i) = { i * 3 }\n  fun out(i) = { x[i] }\n}\n"
          "realize () over (0, 4)\n")
    init_func = write(d, "init_func.json", '{"platform": "c", "sources": ["copy.c"], "function": "k", '
                      '"spec": "copy.halo", "args": [{"kind": "inout", "type": "int32_t", "shape": [4], '
                      '"func": "out", "init_func": "x"}, {"kind": "scalar", "type": "bool", "value": 1}]}')
    r.append(Row("manifest-init-func-bool-1", "a manifest with init_func and a bool given as 1",
                 [halo, "kernel", init_func], {0}, 60))
    # Limits (issue 31).
    line = write(d, "line100k.halo", "pipeline f99999() { fun f0(x) = { x } " + " ".join(
        "fun f%d(x) = { f%d[x] }" % (i, i - 1) for i in range(1, 100000)) + " }\nrealize () over (0, 2)\n")
    r.append(Row("check-100000-funcs-one-line", "halo check on 100,000 funcs on one line (a lookup by name)",
                 [halo, "check", line, "--timeout", "10"], {0}, 10, cpu_bound=True))
    cube = write(d, "cube8.halo", "pipeline f7() {\n  fun f0(x, y, z) = { x + y * 2 + z * 3 }\n" + "".join(
        "  fun f%d(x, y, z) = { f%d[x, y, z] + %d }\n" % (i, i - 1, i) for i in range(1, 8)) +
        "}\n\nrealize () over (0, 48), (0, 32), (0, 70)\n")
    r.append(Row("explain-8-funcs-48x32x70", "halo explain on 8 funcs over a 48×32×70 window (the page's size)",
                 [halo, "explain", cube, "-o", os.path.join(d, "cube.html"), "--timeout", "20"], {0, 3}, 20,
                 cpu_bound=True))
    blur = os.path.join(SRC, "examples", "blur.halo")
    r.append(Row("derivation-blur-w300", "halo eval --derivation 1,1 of the blur with w=300 under --timeout 10",
                 [halo, "eval", blur, "--param", "w=300", "--derivation", "1,1", "--timeout", "10"], {3}, 10,
                 cpu_bound=True))
    r.append(Row("derivation-blur-w300-memory", "the same derivation under --max-memory 256 (no --timeout)",
                 [halo, "eval", blur, "--param", "w=300", "--derivation", "1,1", "--max-memory", "256",
                  "--timeout", "0"], {3}, 60, expect="memory limit reached", cpu_bound=True))
    r.append(Row("explain-blur-w200000-memory", "halo explain of the blur with w=200000 under --max-memory 256",
                 [halo, "explain", blur, "--param", "w=200000", "--max-memory", "256", "--timeout", "0"], {0, 3}, 60,
                 expect="memory limit reached", cpu_bound=True))
    r.append(Row("oracle-blur-w200000", "halo oracle on the blur with w=200000 under --timeout 20",
                 [halo, "oracle", blur, "--param", "w=200000", "--timeout", "20"], {3}, 20, cpu_bound=True))
    # The kernel's environment (issue 31): TMPDIR, $CC, a slow compile, Exo scripts that fail.
    write(d, "ident.c", "#include <stdint.h>\nvoid k(int32_t* out) {\n  for (int i = 0; i < 4; ++i) out[i] = i;\n}\n")
    ident = write(d, "ident.json", '{"platform": "c", "sources": ["ident.c"], "function": "k", "spec": "spec.halo", '
                  '"args": [{"kind": "output", "type": "int32_t", "shape": [4], "func": "out"}]}')
    os.makedirs(os.path.join(d, "readonly"), exist_ok=True)
    os.chmod(os.path.join(d, "readonly"), 0o555)
    # root writes into a 0555 folder; sysfs refuses it even to root.
    readonly = "/sys" if os.geteuid() == 0 else os.path.join(d, "readonly")
    for what, tmpdir in (("missing", os.path.join(d, "no-such-folder")), ("file", devzero),
                         ("readonly", readonly)):
        r.append(Row("kernel-tmpdir-" + what, "halo kernel with TMPDIR %s" % {
            "missing": "missing", "file": "a file", "readonly": "not writable"}[what],
            [halo, "kernel", ident], {2}, 5, env={"TMPDIR": tmpdir},
            expect="cannot create a temporary folder in TMPDIR=" + tmpdir))
    for cc in ["cc -O0", "  cc  "] + (["ccache cc"] if shutil.which("ccache") else []):
        r.append(Row("kernel-cc-" + "-".join(cc.split()), "halo kernel with CC='%s'" % cc,
                     [halo, "kernel", ident], {0}, 60, env={"CC": cc}))
    r.append(Row("kernel-cc-missing", "halo kernel with CC naming no program", [halo, "kernel", ident], {2}, 5,
                 env={"CC": "halo-no-such-cc -O1"}, expect="no C compiler: CC='halo-no-such-cc -O1'"))
    r.append(Row("kernel-no-cc-on-path", "halo kernel without CC and without cc on PATH", [halo, "kernel", ident],
                 {2}, 5, env={"CC": None, "PATH": os.path.join(d, "adir")}, expect="no C compiler: cc is not on PATH"))
    r.append(Row("kernel-cc-broken", "halo kernel with a CC that compiles nothing", [halo, "kernel", ident], {2}, 60,
                 env={"CC": "cc -Wl,--halo-no-such-option"}, expect="the C compiler does not work"))
    # Each include level doubles the preprocessor's work: level 18 took 5 s of CPU (gcc 12),
    # so 26 takes about 20 minutes, in a few KiB of memory.
    write(d, "slowcc.c", "#include <stdint.h>\n#if __INCLUDE_LEVEL__ < 26\n#include __FILE__\n#include __FILE__\n"
          "#endif\n#if __INCLUDE_LEVEL__ == 0\nvoid k(int32_t* out) {\n  for (int i = 0; i < 4; ++i) out[i] = i;\n}\n"
          "#endif\n")
    slowcc = write(d, "slowcc.json", '{"platform": "c", "sources": ["slowcc.c"], "function": "k", "spec": "spec.halo", '
                   '"args": [{"kind": "output", "type": "int32_t", "shape": [4], "func": "out"}]}')
    r.append(Row("kernel-slow-compile", "a kernel whose compile takes 20 minutes, --timeout 5",
                 [halo, "kernel", slowcc, "--timeout", "5"], {3}, 5, expect="raise it with --timeout"))
    # Exo's Python replaced by a shell script (as $HALO_EXO_PYTHON): PYTHON HELPER SCRIPT PROC OUTDIR.
    user_py = write(d, "user.py", "# a user's Exo script\n")
    for name, body, statuses, limit, extra, expect in (
            ("malformed-signature", "echo '{\"function\": 7' > \"$4/signature.json\"", {2}, 10, [],
             "no usable signature"),
            ("exit-3", "echo 'the script gave up'; exit 3", {2}, 10, [], "ended with status 3"),
            ("signal", "kill -SEGV $$", {2}, 10, [], "killed by SIGSEGV"),
            ("hang", "exec sleep 60", {3}, 3, ["--exo-timeout", "3"], "raise it with --exo-timeout")):
        fake = write(d, "fake-python-" + name, "#!/bin/sh\n" + body + "\n")
        os.chmod(fake, 0o755)
        r.append(Row("exo-script-" + name, "an Exo script: %s" % name.replace("-", " "),
                     [halo, "exo", user_py, "p", "--spec", spec] + extra, statuses, limit,
                     env={"HALO_EXO_PYTHON": fake}, expect=expect))
    # Output (issue 31): standard output that cannot be written fails the run (exit 2, the
    # system's reason), a full disk or a file-size limit leaves no partial output file, and
    # a FIFO as an input is refused at once instead of blocking in open().
    for name, argv in (("eval-json", ["eval", THESIS, "--json"]), ("lower", ["lower", THESIS]),
                       ("oracle", ["oracle", THESIS]), ("explain", ["explain", THESIS]),
                       ("fuzz", ["fuzz", "--target", "self", "--cases", "2", "--seed", "1", "--json"]),
                       ("help", ["--help"])):
        r.append(Row("stdout-full-" + name, "halo %s > /dev/full" % " ".join(argv).replace(SRC + "/", ""),
                     ["sh", "-c", '"$@" > /dev/full', "sh", halo] + argv, {2}, 10,
                     expect="cannot write standard output: No space left on device"))
    for name, argv in (("eval", ["eval", THESIS]), ("bounds", ["bounds", THESIS]),
                       ("schedule", ["schedule", THESIS])):
        r.append(Row("stdout-closed-" + name, "halo %s with standard output closed" % name,
                     ["sh", "-c", '"$@" >&-', "sh", halo] + argv, {2}, 10,
                     expect="cannot write standard output: Bad file descriptor"))
    bad = write(d, "bad.halo", "pipeline f() {\n  fun f(x) = { y }\n}\n")
    r.append(Row("stdout-closed-check", "halo check (silent when valid) with standard output closed",
                 ["sh", "-c", '"$0" check "$1" >&-', halo, THESIS], {0}, 10))
    r.append(Row("stdio-closed-check-bad", "halo check of a bad program with stdout and stderr closed",
                 ["sh", "-c", '"$0" check "$1" >&- 2>&-', halo, bad], {2}, 10))
    # The output files: a file-size limit of 512 bytes (dash's ulimit -f counts 512-byte
    # blocks) stops the write; the shell exits 9 if anything was left in the empty folder.
    for name, argv in (("explain", ["explain", THESIS, "-o"]), ("npy", ["eval", THESIS, "--window", "0,1000", "--npy"])):
        outdir = os.path.join(d, "fsize-" + name)
        os.makedirs(outdir, exist_ok=True)
        r.append(Row("file-size-limit-" + name, "halo %s FILE under ulimit -f 1: no partial file" % " ".join(
            argv).replace(SRC + "/", ""),
            ["sh", "-c", 'ulimit -f 1; dir="$1"; shift; "$@" "$dir/out"; s=$?; [ -z "$(ls -A "$dir")" ] || exit 9; '
             'exit $s', "sh", outdir, halo] + argv, {2}, 10, expect="cannot write the file: File too large"))
    r.append(Row("explain-o-dev-full", "halo explain -o /dev/full",
                 [halo, "explain", THESIS, "-o", "/dev/full"], {2}, 10,
                 expect="cannot write the file: No space left on device"))
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    for what, argv in (("program", [halo, "check", fifo]),
                       ("fill", [halo, "run", THESIS, "--fill", fifo]),
                       ("manifest", [halo, "kernel", fifo]),
                       ("fuzzer-input", [halo, "fuzz", "--target", "self", "--fuzzer-input", fifo]),
                       ("engine-query", [halo, "beta0-engine", fifo])):
        r.append(Row("fifo-" + what, "a FIFO nobody writes as the %s" % what, argv + ["--timeout", "5"]
                     if what in ("program", "fill") else argv, {2}, 1, expect="not a regular file"))
    # Folders that cannot be made: under a regular file, under /proc.
    for name, out_dir in (("under-file", os.path.join(THESIS, "out")), ("under-proc", "/proc/halo-out")):
        r.append(Row("replay-shrink-out-" + name, "halo fuzz --replay --shrink --out DIR, DIR %s" % name.replace(
            "-", " "), [halo, "fuzz", "--target", "self", "--replay", THESIS, "--shrink", "--out", out_dir], {2}, 10,
            expect="halo: error: cannot create " + out_dir))
    # Common options and usage errors (LANGUAGE.md: --param and --window for every command).
    for cmd in ("lower", "schedule", "bounds"):
        r.append(Row("window-" + cmd, "halo %s --window 0,5 (a common option)" % cmd,
                     [halo, cmd, THESIS, "--window", "0,5"], {0}, 10, expect="(0, 5)"))
    r.append(Row("usage-error-format", "an unknown flag: halo eval FILE --no-such-flag",
                 [halo, "eval", THESIS, "--no-such-flag"], {2}, 1, expect="halo: error: "))
    return r


def run_row(row):
    # Each row gets a temporary folder of its own (unless it sets TMPDIR itself): what a row
    # leaves there is its own, whatever other tests running beside it make in /tmp.
    row_tmp = tempfile.mkdtemp(prefix="halo-adversarial-")
    env = dict(os.environ)
    env["TMPDIR"] = row_tmp
    for k, v in (row.env or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    watched = env.get("TMPDIR", tempfile.gettempdir())
    before = kernel_dirs(watched)
    usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    # halo keeps ignoring SIGINT when it inherits that (nohup, a background job of a
    # non-interactive shell), so each row starts with the default action, as from a terminal.
    p = subprocess.Popen(row.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, env=env,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    if row.signal_after:
        delay, sig = row.signal_after
        try:
            p.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            # By then the candidate must be running, or the signal proves nothing.
            row.started = bool(candidate_processes(p.pid))
            t0 = time.monotonic()
            p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=row.limit + 60)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        hung = True
    seconds = time.monotonic() - t0
    usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (usage1.ru_utime + usage1.ru_stime) - (usage0.ru_utime + usage0.ru_stime)
    time.sleep(0.3)  # a killed process takes a moment to leave /proc
    left = candidate_processes(p.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    leaked = kernel_dirs(watched) - before
    shutil.rmtree(row_tmp, ignore_errors=True)
    text = (out + err).decode("utf-8", "replace")
    problems = []
    if hung:
        problems.append("did not end")
    if p.returncode not in row.statuses:
        problems.append("exit %s, expected %s" % (p.returncode, "/".join(str(s) for s in sorted(row.statuses))))
    if p.returncode == 4 or "internal error" in text:
        problems.append("internal error")
    # The limit's second of grace is halo's: a row in which halo computes throughout gets
    # it stretched by the share of a CPU the machine left halo (its CPU time over the
    # row's wall time; at most fourfold). On an idle machine that is one second; the test
    # asserts what halo does after its limit, not how loaded the machine running it is.
    grace = 1.0
    if row.cpu_bound and seconds > 0:
        grace = 1.0 / min(1.0, max(0.25, cpu / seconds))
    row.grace = grace
    if seconds > row.limit + grace:
        problems.append("%.1f s, limit %g s + %.1f (halo had %.0f%% of a CPU)" % (
            seconds, row.limit, grace, 100 * cpu / max(seconds, 1e-9)))
    if left:
        problems.append("%d candidate processes left running" % len(left))
    if leaked:
        problems.append("temporary folders left: " + ", ".join(sorted(leaked)))
    if row.expect:
        negate = row.expect.startswith("!")
        needle = row.expect[1:] if negate else row.expect
        if (needle in text) == negate:
            problems.append(("says" if negate else "does not say") + " '%s'" % needle)
    if row.signal_after and not getattr(row, "started", False):
        problems.append("the candidate was not running when the signal came")
    if row.max_output is not None and len(out) + len(err) > row.max_output:
        problems.append("%d bytes of output, at most %d" % (len(out) + len(err), row.max_output))
    return p.returncode, seconds, problems, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("halo")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--markdown", action="store_true", help="print the table for docs/testing.md")
    args = ap.parse_args()
    halo = os.path.abspath(args.halo)
    d = tempfile.mkdtemp(prefix="halo-adversarial-")
    failed = 0
    try:
        table = rows(halo, d)
        if args.only:
            table = [r for r in table if any(o in r.name for o in args.only)]
        if halide_worker(halo) is None:  # halo built without Halide: its rows prove nothing
            print("no Halide worker next to %s: the Halide rows are skipped" % halo)
            table = [r for r in table if not r.needs_halide]
        if args.markdown:
            print("| input | exit | seconds | limit | verdict |\n|---|---|---|---|---|")
        for i, row in enumerate(table):
            status, seconds, problems, text = run_row(row)
            verdict = "ok" if not problems else "FAIL: " + "; ".join(problems)
            failed += bool(problems)
            if args.markdown:
                print("| %s | %s | %.2f | %g | %s |" % (row.issue_text, status, seconds, row.limit, verdict))
            else:
                print("[%2d/%d] %-28s exit %3s %7.2f s (limit %g s)  %s" % (
                    i + 1, len(table), row.name, status, seconds, row.limit, verdict), flush=True)
            if problems and not args.markdown:
                print("        " + text.strip().replace("\n", "\n        ")[:800], flush=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("%d of %d adversarial inputs failed" % (failed, len(table)) if failed else
          "all %d adversarial inputs ended as documented" % len(table))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
