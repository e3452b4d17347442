#!/usr/bin/env python3
"""make bench: swift-trail's benchmarks, each run side by side with what it is compared to.

Commands of one comparison run alternately, round after round, so that a noisy machine affects them alike;
the figures are medians. Usage: bench.py [rewriter] [trace] [viewers] [logger] [symbolizer] [resources] [package] [values]
[--rounds N] [--package PATH] [--autogroup-nice N]
"""
import argparse
import json
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, ".build", "release")
WORK = tempfile.mkdtemp(prefix="trail-bench-")
RESULTS = []


def log(text=""):
    print(text, flush=True)
    RESULTS.append(text)


def run(argv, env=None, cwd=None, quiet=True):
    merged = dict(os.environ)
    merged.update(env or {})
    if isinstance(argv, Fed):  # processes reading a file, the last one's output dropped: no shell around them
        with open(argv.stdin) as stdin:
            first = subprocess.Popen(argv.argv, env=merged, cwd=cwd, stdin=stdin,
                                     stdout=subprocess.PIPE if argv.then else subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
            second = None
            if argv.then:
                second = subprocess.Popen(argv.then, env=merged, cwd=cwd, stdin=first.stdout,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                first.stdout.close()
            codes = [first.wait()] + ([second.wait()] if second else [])
        if any(codes) and not argv.may_fail:
            raise subprocess.CalledProcessError(max(codes), argv.argv)
        return
    if not quiet:
        subprocess.run(argv, env=merged, cwd=cwd, check=True)
        return
    result = subprocess.run(argv, env=merged, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if result.returncode != 0:  # swift build writes its errors to stdout
        sys.stderr.write(result.stdout.decode(errors="replace")[-4000:])
        raise subprocess.CalledProcessError(result.returncode, argv)


class Fed:
    """A command timed with standard input from a file and its output dropped (`then`: a second command its
    output is piped to), run directly: through `sh -c` each round would also time a shell's start-up (about a
    millisecond), which pulls a ratio of two short runs toward 1."""

    def __init__(self, argv, stdin, then=None, may_fail=False):
        self.argv, self.stdin, self.then, self.may_fail = argv, stdin, then, may_fail


def timed(argv, env=None, cwd=None, before=None):
    if before:
        before()
    start = time.perf_counter()
    run(argv, env=env, cwd=cwd)
    return time.perf_counter() - start


def compare(entries, rounds, spread=None):
    """entries: {label: (argv, env, before)}; returns {label: median seconds}. With `spread` (a list), the
    per-round times of each label are appended to it as (label, times)."""
    times = {label: [] for label in entries}
    for round_index in range(rounds):
        labels = list(entries)
        if round_index % 2:
            labels.reverse()
        for label in labels:
            argv, env, before = entries[label]
            times[label].append(timed(argv, env=env, before=before))
    if spread is not None:
        spread.extend(times.items())
    return {label: statistics.median(values) for label, values in times.items()}


def toolchain_usr():
    swiftc = shutil.which("swiftc")
    return os.path.dirname(os.path.dirname(os.path.realpath(swiftc)))


def goal(name, value, target, higher_is_better=True):
    met = value >= target if higher_is_better else value <= target
    sign = ">=" if higher_is_better else "<="
    log(f"  {name}: {value:.2f} (goal {sign} {target}) {'MET' if met else 'NOT MET'}")


# MARK: rewriter


def rewriter(rounds):
    log("## Rewriter: the toolchain's .swiftinterface corpus, both cores")
    corpus = os.path.join(WORK, "corpus")
    usr = toolchain_usr()
    size = 0
    for directory, _, files in os.walk(os.path.join(usr, "lib")):
        for name in files:
            if name.endswith(".swiftinterface"):
                source = os.path.join(directory, name)
                relative = os.path.relpath(source, usr)
                target = os.path.join(corpus, relative[: -len(".swiftinterface")] + ".swift")
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(source, target)
                size += os.path.getsize(target)
    count = sum(len(files) for _, _, files in os.walk(corpus))
    lines = sum(1 for directory, _, files in os.walk(corpus) for name in files
                for _ in open(os.path.join(directory, name), "rb"))
    log(f"  {count} files, {lines} lines, {size / 1e6:.1f} MB")
    output = os.path.join(WORK, "instrumented")
    medians = compare({
        "parse only (SwiftParser)": ([os.path.join(RELEASE, "trail-bench"), "parse", corpus], None, None),
        "trail instrument": ([os.path.join(RELEASE, "trail"), "instrument", "--inlinable", "--output", output, corpus],
                             None, lambda: shutil.rmtree(output, ignore_errors=True)),
    }, rounds)
    formatter = os.path.join(usr, "bin", "swift-format")
    medians["swift-format format --parallel"] = compare({
        "swift-format": ([formatter, "format", "--parallel", "--recursive", corpus], None, None),
    }, max(1, min(rounds, 2)))["swift-format"]
    for label, seconds in medians.items():
        log(f"  {label:34s} {seconds:8.2f} s  {size / seconds / 1e6:6.2f} MB/s")
    ours = medians["trail instrument"]
    goal("instrument throughput / parse-only throughput", medians["parse only (SwiftParser)"] / ours, 0.8)
    goal("instrument throughput / swift-format throughput", medians["swift-format format --parallel"] / ours, 5)


# MARK: trace cost


def forget_plans(sample):
    """SwiftPM may miss a file added to a path dependency (this repository) in a kept scratch folder: the saved
    plans go, so the next build plans again."""
    for plan in glob.glob(os.path.join(sample, ".build", "*", "*", "*", "description.json")):
        os.remove(plan)


def build_fib():
    sample = os.path.join(ROOT, "Samples", "Fib")
    forget_plans(sample)
    run(["swift", "build", "--package-path", sample, "--scratch-path", os.path.join(sample, ".build", "plain")])
    run(["swift", "build", "--package-path", sample, "--scratch-path", os.path.join(sample, ".build", "trail")],
        env={"TRAIL": "1"})
    c_source = os.path.join(WORK, "fib.c")
    with open(c_source, "w") as handle:
        handle.write("""#include <stdio.h>
#include <stdlib.h>
long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 30;
    printf("fib(%d) = %ld\\n", n, fib(n));
    return 0;
}
""")
    run(["gcc", "-O0", "-pg", c_source, "-o", os.path.join(WORK, "fib-pg")])
    run(["gcc", "-O0", c_source, "-o", os.path.join(WORK, "fib-plain")])
    return (os.path.join(sample, ".build", "plain", "debug", "Fib"),
            os.path.join(sample, ".build", "trail", "debug", "Fib"))


def trace_summary(path):
    """Walks a v2 trace (Docs/trace-format.md): records kept, DROPPED records, END's dropped count."""
    import struct
    with open(path, "rb") as handle:
        data = handle.read()
    if data[:8] != b"TRAILTRC":
        raise ValueError(f"{path}: not a trace")
    header_size, = struct.unpack_from("<I", data, 12)
    block_size, = struct.unpack_from("<I", data, 48)
    records = dropped_records = 0
    end = None
    for offset in range(header_size, len(data) - 15, block_size):
        magic, used, _ = struct.unpack_from("<4sIQ", data, offset)
        if magic != b"TBLK":
            continue
        at, stop = offset + 16, offset + 16 + used
        while at + 8 <= stop:
            kind, size = struct.unpack_from("<II", data, at)
            if kind == 4:  # RECORDS: count DROPPED records by their kind nibble
                count = (size - 16) // 16
                records += count
                words = struct.unpack_from(f"<{2 * count}Q", data, at + 8 + 16)
                dropped_records += sum(1 for word in words[1::2] if word >> 60 == 7)
            elif kind == 6:
                end = struct.unpack_from("<QQ", data, at + 8)
            at += 8 + size
    return records, dropped_records, end


def trace(rounds):
    plain, traced = build_fib()
    trace_folder = os.path.join(WORK, "traces")
    uftrace_data = os.path.join(WORK, "uftrace.data")
    failures = []
    for n in (30, 32):
        a, b = 0, 1
        for _ in range(n + 1):
            a, b = b, a + b
        calls = 2 * a - 1
        log(f"## Trace cost: recursive fib({n}), {calls} calls; Swift debug builds, C at -O0; default trace settings")
        drops = []

        def fresh():
            shutil.rmtree(trace_folder, ignore_errors=True)

        def check():
            # Every recorded run is checked: a run that dropped records does not count, and fails the bench.
            for name in os.listdir(trace_folder):
                records, dropped_records, end = trace_summary(os.path.join(trace_folder, name))
                dropped = end[1] if end else None
                drops.append((records, dropped_records, dropped))

        spread = []
        record_label = "Swift traced build, TRAIL_TRACE=record"
        entries = {
            "Swift untraced (plain debug build)": ([plain, str(n)], None, None),
            "Swift traced build, tracing off": ([traced, str(n)], None, None),
            record_label: ([traced, str(n)], {"TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": os.path.join(trace_folder, "fib.trace")}, fresh),
            "C -pg, not recording": ([os.path.join(WORK, "fib-pg"), str(n)], None, None),
            "uftrace record (C -pg)": (["uftrace", "record", "-d", uftrace_data, os.path.join(WORK, "fib-pg"), str(n)], None,
                                       lambda: shutil.rmtree(uftrace_data, ignore_errors=True)),
        }
        os.chdir(WORK)  # a -pg program writes gmon.out into its working folder
        times = {label: [] for label in entries}
        for round_index in range(rounds):
            labels = list(entries) if round_index % 2 == 0 else list(reversed(entries))
            for label in labels:
                argv, env, before = entries[label]
                times[label].append(timed(argv, env=env, before=before))
                if label == record_label:
                    check()
        os.chdir(ROOT)
        fresh()
        medians = {label: statistics.median(values) for label, values in times.items()}
        for label, seconds in medians.items():
            values = times[label]
            log(f"  {label:42s} {seconds * 1000:8.1f} ms  (min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f})")
        clean = [index for index, (records, marked, dropped) in enumerate(drops) if marked == 0 and dropped == 0]
        for index, (records, marked, dropped) in enumerate(drops):
            if marked or dropped != 0:
                failures.append(f"fib({n}) round {index + 1}: {dropped} records dropped ({marked} DROPPED markers, {records} kept)")
        if len(clean) < len(drops):
            log(f"  FAIL: {len(drops) - len(clean)} of {len(drops)} recorded runs dropped records")
        expected = 2 * calls
        log(f"  records per run: {', '.join(str(r) for r, _, _ in drops[:3])}... (expected {expected} + 2 for Recursion.calls); dropped: "
            f"{sum(d or 0 for _, _, d in drops)} in {len(drops)} runs")
        base = medians["Swift untraced (plain debug build)"]
        theirs_values = [u - c for u, c in zip(times["uftrace record (C -pg)"], times["C -pg, not recording"])]
        theirs = (medians["uftrace record (C -pg)"] - medians["C -pg, not recording"]) / calls * 1e9
        ours_runs = [(times[record_label][i] - base) / calls * 1e9 for i in clean]
        if not ours_runs:
            log("  FAIL: no recorded run without drops: no cost figure")
            continue
        ours = statistics.median(ours_runs)
        per_round = [(times[record_label][i] - base) / (theirs_values[i] if theirs_values[i] > 0 else float("nan")) for i in clean]
        off = (medians["Swift traced build, tracing off"] - base) / calls * 1e9
        log(f"  per call: trail record {ours:.1f} ns (runs without drops: min {min(ours_runs):.1f}, max {max(ours_runs):.1f}), "
            f"tracing compiled in but off {off:.1f} ns, uftrace record {theirs:.1f} ns")
        log(f"  per-round ratio trail/uftrace: {', '.join(f'{r:.2f}' for r in per_round)}")
        goal(f"fib({n}) trail record per call / uftrace per call", ours / theirs, 0.33, higher_is_better=False)
        goal(f"fib({n}) traced build (off) / untraced build", medians["Swift traced build, tracing off"] / base, 1.1, higher_is_better=False)
        log(f"  (for scale) traced build recording / untraced: {medians[record_label] / base:.1f}x")
    if failures:
        for failure in failures:
            log(f"  FAIL: {failure}")
        raise SystemExit("FAIL: trace records were dropped")


# MARK: viewers


AUTOGROUP_NICE = None


def own_autogroup():
    """In a child before exec, with --autogroup-nice: a session, so an autogroup, of its own at that nice. With
    sched_autogroup_enabled each session gets an equal share of the CPUs, so while other sessions build, a
    two-thread viewer run from this one got no more CPU than a one-thread run; both sides of a comparison run so."""
    os.setsid()
    try:
        with open("/proc/self/autogroup", "w") as handle:
            handle.write(str(AUTOGROUP_NICE))
    except OSError:
        pass


def measured(argv, env=None):
    """Runs argv with output to /dev/null; returns (seconds, peak resident MiB, stderr, CPU seconds: user and
    system) of that child."""
    merged = dict(os.environ)
    merged.update(env or {})
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=merged, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               preexec_fn=own_autogroup if AUTOGROUP_NICE is not None else None)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    errors = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.stderr.write(errors[-2000:])
        raise subprocess.CalledProcessError(status, argv)
    return seconds, usage.ru_maxrss / 1024, errors, usage.ru_utime + usage.ru_stime


def viewers(rounds):
    """trail report (and replay) against uftrace's on the same calls, at four trace sizes."""
    log("## Viewers: trail report vs uftrace report on recursive fib, same number of calls")
    _, traced = build_fib()
    trail = os.path.join(RELEASE, "trail")
    os.chdir(WORK)
    tiny = os.path.join(WORK, "fib-1.trace")
    run([traced, "1"], env={"TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": tiny})
    startup = statistics.median(measured([trail, "report", tiny])[0] for _ in range(max(3, rounds)))
    log(f"  (trail report start-up, on a one-call trace: {startup * 1000:.1f} ms)")
    rates = {}
    for n, label in [(26, "10 MB"), (30, "100 MB"), (35, "1 GB"), (40, "10 GB")]:
        calls = 2 * fib(n + 1) - 1
        records = 2 * calls
        trace_file = os.path.join(WORK, f"fib-{n}.trace")
        run([traced, str(n)], env={"TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace_file, "TRAIL_TRACE_MAX_SIZE": "16G"})
        size = os.path.getsize(trace_file)
        tries = max(1, rounds if n < 35 else (3 if n == 35 else 1))
        data = os.path.join(WORK, f"uftrace-{n}.data")
        if n <= 35:
            run(["uftrace", "record", "-d", data, os.path.join(WORK, "fib-pg"), str(n)])
        # trail and uftrace alternate, round by round, so that a busy machine slows both alike.
        runs, theirs = [], []
        for _ in range(tries):
            runs.append(measured([trail, "report", trace_file]))
            if n <= 35:
                theirs.append(measured(["uftrace", "report", "-d", data]))
        if any("dropped" in errors or "cut" in errors for _, _, errors, _ in runs):
            log(f"  FAIL: the fib({n}) trace lost records: {runs[0][2].strip()}")
        seconds = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[3] for r in runs)
        resident = max(r[1] for r in runs)
        rates[label] = records / seconds
        line = (f"  {label:>6s} ({size / 2**20:7.0f} MiB, {records / 1e6:6.1f} M records): trail report "
                f"{seconds:7.2f} s ({cpu:.2f} s CPU), {records / seconds / 1e6:5.1f} M records/s "
                f"({records / max(1e-9, seconds - startup) / 1e6:5.1f} after start-up), {resident:5.0f} MiB resident")
        if n <= 35:
            their_seconds = statistics.median(r[0] for r in theirs)
            their_cpu = statistics.median(r[3] for r in theirs)
            line += (f"; uftrace report {their_seconds:7.2f} s ({their_cpu:.2f} s CPU), "
                     f"{records / their_seconds / 1e6:5.1f} M records/s, "
                     f"{max(r[1] for r in theirs):5.0f} MiB: {their_seconds / seconds:.2f}x")
            rates[label + " uftrace"] = records / their_seconds
            if n == 30:
                ours_replay, their_replay = [], []
                for _ in range(tries):
                    ours_replay.append(measured([trail, "replay", trace_file])[0])
                    their_replay.append(measured(["uftrace", "replay", "-d", data])[0])
                ours_replay, their_replay = statistics.median(ours_replay), statistics.median(their_replay)
                replay_line = (f"  replay at {label}: trail {ours_replay:.2f} s, uftrace {their_replay:.2f} s: "
                               f"{their_replay / ours_replay:.2f}x")
            shutil.rmtree(data, ignore_errors=True)
        log(line)
        if n == 30:
            log(replay_line)
        if n == 35:
            spans = os.path.join(WORK, "spans.ndjson")
            exports = [measured([trail, "export", "--otlp", "--min-duration", "100us", "--summary", "-o", spans, trace_file])
                       for _ in range(tries)]
            export_seconds = statistics.median(r[0] for r in exports)
            log(f"  export --otlp --min-duration 100us at {label}: {export_seconds:.2f} s, "
                f"{max(r[1] for r in exports):.0f} MiB resident, {os.path.getsize(spans) / 2**20:.1f} MiB of requests")
            goal("export --otlp speed / report speed at 1 GB", seconds / export_seconds, 0.5)
            os.remove(spans)
        if n == 40:
            goal("10 GB report seconds", seconds, 10, higher_is_better=False)
            goal("10 GB report resident MiB", resident, 256, higher_is_better=False)
            # Issue 42: trail tui shows a 10 GB trace's first screen at once and reads the rest beside it.
            if shutil.which("tmux"):
                first, peak = tui_first_screen(trail, trace_file)
                log(f"  tui at {label}: first screen after {first:.2f} s, {peak:.0f} MiB resident at most "
                    "(unfolded, the whole trace read)")
                goal("10 GB tui first-screen seconds", first, 2, higher_is_better=False)
                goal("10 GB tui peak resident MiB", peak, 256, higher_is_better=False)
            else:
                log("  (no tmux: the tui's first screen is not measured)")
        os.remove(trace_file)
    os.chdir(ROOT)
    for label in ["10 MB", "100 MB", "1 GB"]:
        # Issue 42: both cores from 1 GB on (a file of 16 blocks or more is read on two threads).
        goal(f"trail / uftrace report records per second at {label}", rates[label] / rates[label + " uftrace"],
             8 if label == "1 GB" else 2)
    ours = [rates[label] for label in ["10 MB", "100 MB", "1 GB", "10 GB"]]
    goal("slowest / fastest trail report rate across sizes", min(ours) / max(ours), 0.8)


def tui_first_screen(trail, trace_file):
    """Benchmarks/tui-first-screen.sh: seconds to `trail tui`'s first screen, and its peak resident MiB once it
    unfolded everything and read the whole trace."""
    output = subprocess.run(["bash", os.path.join(ROOT, "Benchmarks", "tui-first-screen.sh"), trail, trace_file],
                            capture_output=True, text=True, check=True).stdout
    first = float(output.split("first screen after ")[1].split(" s")[0])
    peak = float(output.split("after unfolding everything: peak resident ")[1].split(" MiB")[0])
    return first, peak


def otlp(rounds):
    """OTLP/HTTP to a loopback receiver from the same traces, at two sizes: http/json against http/protobuf, with
    and without gzip. Bytes on the wire from the export's own summary; time end to end, receiver included."""
    log("## OTLP export: the same spans as http/json and http/protobuf (gzip or not), to a loopback receiver")
    _, traced = build_fib()
    trail = os.path.join(RELEASE, "trail")
    receiver = subprocess.Popen([sys.executable, os.path.join(ROOT, "Benchmarks", "otlp_receiver.py")], stdout=subprocess.PIPE, text=True)
    try:
        endpoint = f"http://127.0.0.1:{receiver.stdout.readline().strip()}"
        for n in (18, 22):
            trace_file = os.path.join(WORK, f"otlp-fib-{n}.trace")
            run([traced, str(n)], env={"TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace_file})
            spans = 2 * fib(n + 1) - 1
            results = {}
            for label, options in (("http/json", ["--protocol", "http/json"]), ("http/protobuf", ["--protocol", "http/protobuf"]),
                                   ("http/protobuf, gzip", ["--protocol", "http/protobuf", "--compression", "gzip"]),
                                   ("http/json, gzip", ["--protocol", "http/json", "--compression", "gzip"])):
                runs = [measured([trail, "export", "--otlp", "--endpoint", endpoint] + options + [trace_file]) for _ in range(rounds)]
                seconds = statistics.median(r[0] for r in runs)
                size = runs[0][2].split("requests (")[1].split(",")[0] if "requests (" in runs[0][2] else "?"
                results[label] = (seconds, size)
                log(f"  {spans:7d} spans {label:22s} {seconds:6.2f} s  {spans / seconds / 1e3:7.1f} k spans/s  {size} sent")
            def mib(text):
                number, unit = text.split()
                return float(number) * {"B": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1}[unit]
            goal(f"json bytes / protobuf+gzip bytes, {spans} spans", mib(results["http/json"][1]) / mib(results["http/protobuf, gzip"][1]), 3)
            goal(f"json time / protobuf+gzip time, {spans} spans", results["http/json"][0] / results["http/protobuf, gzip"][0], 2)
            os.remove(trace_file)
    finally:
        receiver.kill()
        receiver.wait()


def follow(rounds, seconds=60, rate=1000, outage=(20, 10)):
    """trail export --otlp --follow beside a traced server (the runtime probe's steady mode: RATE requests a
    second, four spans each) for SECONDS, the receiver refusing for OUTAGE[1] s from OUTAGE[0] s on: every span
    delivered once, its delay from end to receipt, and the follower's peak memory."""
    log(f"## --follow: {rate} requests/s ({4 * rate} spans/s) for {seconds} s, the receiver down {outage[1]} s from {outage[0]} s")
    run(["swift", "build", "-c", "release", "--product", "trail-probe"])
    trail, probe = os.path.join(RELEASE, "trail"), os.path.join(RELEASE, "trail-probe")
    folder = os.path.join(WORK, "follow")
    os.makedirs(folder)
    delays = os.path.join(WORK, "delays.txt")
    receiver = subprocess.Popen([sys.executable, os.path.join(ROOT, "Benchmarks", "otlp_receiver.py"), "--spans", delays,
                                 "--outage", f"{outage[0]}:{outage[1]}"], stdout=subprocess.PIPE, text=True)
    try:
        endpoint = f"http://127.0.0.1:{receiver.stdout.readline().strip()}"
        server = subprocess.Popen([probe, "steady", folder, str(seconds), str(rate)], stdout=subprocess.DEVNULL,
                                  env=dict(os.environ, TRAIL_TRACE="record", TRAIL_TRACE_FILE=folder + "/%p.trace"))
        follower = subprocess.Popen([trail, "export", "--otlp", "--follow", "--endpoint", endpoint, "--protocol", "http/json", folder],
                                    stderr=subprocess.DEVNULL)
        server.wait()
        everything = os.path.join(WORK, "all.json")
        run([trail, "export", "--otlp", "-o", everything] + [os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".trace")])
        expected = sum(len(scope["spans"]) for line in open(everything) for resource in json.loads(line)["resourceSpans"]
                       for scope in resource["scopeSpans"])
        deadline = time.time() + 60
        while time.time() < deadline and sum(1 for _ in open(delays)) < expected:
            time.sleep(0.5)
        with open(f"/proc/{follower.pid}/status") as status:  # the peak, before it goes
            resident = next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
        follower.terminate()
        follower.wait()
        ids, values, clear = [], [], []
        window = (0.0, 0.0)
        for line in open(delays):
            if line.startswith("# outage"):
                window = tuple(float(x) for x in line.split()[2:4])
                continue
            span, delay, end = line.split()
            ids.append(span)
            values.append(float(delay))
            # Spans that ended away from the outage (and the backoff after it): the 2 s goal is theirs.
            if not window[0] - 2 <= float(end) <= window[1] + 20:
                clear.append(float(delay))
        values.sort()
        clear.sort()
        log(f"  {len(ids)} spans delivered ({len(set(ids))} distinct) of the {expected} in the trace; follower peak RSS {resident:.0f} MiB")
        if values:
            log(f"  delay from end to receipt: median {values[len(values) // 2]:.2f} s, p99 {values[len(values) * 99 // 100]:.2f} s, "
                f"max {values[-1]:.2f} s (the outage's spans wait it out)")
        if clear:
            log(f"  away from the outage ({len(clear)} spans): median {clear[len(clear) // 2]:.2f} s, p99 {clear[len(clear) * 99 // 100]:.2f} s")
            goal("p99 delay away from the outage, s", clear[len(clear) * 99 // 100], 2, higher_is_better=False)
        goal("spans delivered twice", len(ids) - len(set(ids)), 0, higher_is_better=False)
        goal("spans lost", expected - len(set(ids)), 0, higher_is_better=False)
        goal("follower peak RSS MiB", resident, 64, higher_is_better=False)
    finally:
        receiver.kill()
        receiver.wait()


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


# MARK: logger


def logger(rounds):
    lines = 2_000_000
    rotate = 64 << 20
    log(f"## Logger: {lines} lines of 123 bytes into a rotating file ({rotate >> 20} MiB, 3 kept), same disk")
    spdlog = os.path.join(WORK, "spdlog_bench")
    run(["g++", "-O2", "-std=c++17", os.path.join(ROOT, "Benchmarks", "spdlog", "spdlog_bench.cpp"), "-o", spdlog,
         "-lspdlog", "-lfmt", "-pthread"])
    directory = os.path.join(WORK, "logs")

    def fresh():
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)

    for threads in (1, 8):
        kind = "st" if threads == 1 else "mt"
        spread = []
        medians = compare({
            "trail": ([os.path.join(RELEASE, "trail-bench"), "log", directory, str(threads), str(lines), str(rotate)], None, fresh),
            f"spdlog rotating_logger_{kind}": ([spdlog, directory, str(threads), str(lines), str(rotate)], None, fresh),
            # The same calls as JSON lines (about twice the bytes: time in ns, keys, source, pid, thread id).
            "trail, TRAIL_LOG_FORMAT=json": ([os.path.join(RELEASE, "trail-bench"), "log", directory, str(threads), str(lines), str(rotate)],
                                             dict(os.environ, TRAIL_LOG_FORMAT="json"), fresh),
        }, rounds, spread)
        for label, seconds in medians.items():
            times = dict(spread)[label]
            log(f"  {threads} thread{'s' if threads > 1 else ' '} {label:28s} {seconds:6.2f} s  {lines / seconds / 1e6:5.2f} M lines/s"
                f"  (rounds {min(times):.2f} to {max(times):.2f} s)")
        trail_times, spdlog_times = dict(spread)["trail"], dict(spread)[f"spdlog rotating_logger_{kind}"]
        ratios = sorted(s / t for s, t in zip(spdlog_times, trail_times))
        log(f"  per-round ratios {ratios[0]:.2f} to {ratios[-1]:.2f}")
        goal(f"trail / spdlog, {threads} thread{'s' if threads > 1 else ''}",
             medians[f"spdlog rotating_logger_{kind}"] / medians["trail"], 1.5 if threads == 1 else 1.0)


    swift_log(rounds, lines, rotate, fresh, directory)
    spans(rounds)
    latency(rounds)


def build_server_release():
    """The Server Sample, release: the logger and span benchmarks' program."""
    sample = os.path.join(ROOT, "Samples", "Server")
    forget_plans(sample)
    scratch = os.path.join(sample, ".build", "release")
    run(["swift", "build", "-c", "release", "--package-path", sample, "--scratch-path", scratch])
    return os.path.join(scratch, "release", "Server")


def swift_log(rounds, lines, rotate, fresh, directory):
    """swift-log's Logger onto TrailLogHandler, against Trail's own Logger writing the same lines (the Server
    Sample's bench-log, release). The floor is swift-log's API alone: a handler that takes each line and drops it."""
    log(f"## swift-log through TrailLogHandler: the same {lines} lines, against Trail's Logger")
    server = build_server_release()
    for threads in (1, 8):
        medians = compare({api: ([server, "bench-log", directory, str(threads), str(lines), str(rotate), api], None, fresh)
                           for api in ("trail", "swift-log", "swift-log-floor")}, rounds)
        for label, seconds in medians.items():
            log(f"  {threads} thread{'s' if threads > 1 else ' '} {label:16s} {seconds:6.2f} s  {lines / seconds / 1e6:5.2f} M lines/s")
        log(f"  swift-log / Trail's Logger, whole: {medians['swift-log'] / medians['trail']:.2f}")
        goal(f"TrailLogHandler's own cost (swift-log minus its floor) / Trail's Logger, {threads} thread{'s' if threads > 1 else ''}",
             (medians["swift-log"] - medians["swift-log-floor"]) / medians["trail"], 1.25, higher_is_better=False)


def spans(rounds, count=200_000):
    """A withSpan with two attributes through TrailTracer, recording and not, against swift-distributed-tracing's
    no-op tracer (the API's own floor): the Server Sample's bench-spans, release, which prints ns per span."""
    log(f"## swift-distributed-tracing spans through TrailTracer: {count} withSpan calls, two attributes each")
    server = build_server_release()
    with tempfile.TemporaryDirectory(dir=WORK) as traces:
        cases = {"no-op tracer (floor)": ("noop", {}), "TrailTracer, not recording": ("trail", {}),
                 "TrailTracer, TRAIL_TRACE=record": ("trail", {"TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": traces + "/%p.trace"})}
        medians = {}
        for label, (mode, env) in cases.items():
            values = []
            for _ in range(rounds):
                out = subprocess.run([server, "bench-spans", str(count), mode], env=dict(os.environ, **env),
                                     capture_output=True, text=True, check=True).stdout
                values.append(float(out.split()[0]))
                for name in os.listdir(traces):
                    os.remove(os.path.join(traces, name))
            medians[label] = statistics.median(values)
            log(f"  {label:34s} {medians[label]:7.0f} ns per span (median of {rounds})")
        log(f"  recording / floor: {medians['TrailTracer, TRAIL_TRACE=record'] / medians['no-op tracer (floor)']:.1f}x")


def latency(rounds):
    """Rotation costs the same however many files are kept, and no log call waits long on one. The cost
    comparison runs in tmpfs: on disk, 3,000 kept files keep 45 MB the kernel must write back, while with 3
    kept the files are deleted before their pages reach the disk, which would measure writeback, not rotation."""
    lines = 400_000
    log(f"## Logger latency: {lines} lines from one thread, 64 KiB files (some 700 rotations), every 64th an error")

    def runs(folder, kept):
        directory = os.path.join(folder, "trail-latency")
        results = []
        for _ in range(rounds):
            shutil.rmtree(directory, ignore_errors=True)
            os.makedirs(directory)
            out = subprocess.run([os.path.join(RELEASE, "trail-bench"), "log-latency", directory, str(kept), str(lines)],
                                 capture_output=True, text=True, check=True).stdout.split()
            results.append({out[i]: int(out[i + 1]) for i in range(0, len(out), 2)})
        shutil.rmtree(directory, ignore_errors=True)
        return results

    totals, every = {}, {}
    for folder, kept in (("/dev/shm", 3), ("/dev/shm", 3000), (WORK, 3000)):
        results = runs(folder, kept)
        total = statistics.median(r["total"] for r in results)
        p999 = statistics.median(r["p999"] for r in results)
        longest = max(r["max"] for r in results)
        totals[(folder, kept)] = total
        every[(folder, kept)] = results
        log(f"  {kept:5d} files kept in {folder:10s}: run {total / 1e6:6.3f} s (median), 99.9th percentile call {p999} us, "
            f"longest call {longest / 1000:.2f} ms (worst of {rounds}), median longest "
            f"{statistics.median(r['max'] for r in results) / 1000:.2f} ms")
    goal("run with 3,000 files kept / with 3, tmpfs (at most)", totals[("/dev/shm", 3000)] / totals[("/dev/shm", 3)], 1.25,
         higher_is_better=False)
    results = every[(WORK, 3000)]
    goal("longest log call with 3,000 files kept on disk, median of runs, ms (at most)",
         statistics.median(r["max"] for r in results) / 1000, 10, higher_is_better=False)


# MARK: symbolizer


def text_range(binary):
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if ".text" in parts:
            index = parts.index(".text")
            return int(parts[index + 2], 16), int(parts[index + 4], 16)
    raise RuntimeError("no .text in " + binary)


def frames_of(text):
    """llvm-symbolizer text: blocks per address, frames as (function, file, line); guessed files dropped."""
    blocks = []
    for block in text.split("\n\n"):
        lines = block.strip("\n").split("\n")
        if not lines or lines == [""]:
            continue
        frames = []
        for index in range(0, len(lines) - 1, 2):
            location = lines[index + 1].rsplit(":", 2)
            file, line = (location[0], location[1]) if len(location) == 3 else ("??", "0")
            if line == "0":
                file = "??"  # no line: llvm guesses a file from the symbol table (often crtstuff.c)
            frames.append((lines[index], file, line))
        blocks.append(frames)
    return blocks


def demangled_functions(text, demangle):
    """llvm-symbolizer's text with its function lines through swift-demangle, and only those: piped whole,
    swift-demangle also rewrites mangled names inside file paths (a macro expansion's buffer,
    `@__swiftmacro_...swift`), which the DWARF and the symbolizers spell as they are."""
    lines = text.split("\n")
    functions, position = [], 0
    for index, line in enumerate(lines):
        if line == "":
            position = 0
            continue
        if position % 2 == 0:
            functions.append(index)
        position += 1
    names = subprocess.run([demangle], input="\n".join(lines[i] for i in functions) + "\n", capture_output=True,
                           text=True, check=True).stdout.split("\n")
    assert len(names) == len(functions) + 1, "swift-demangle gave another number of lines than it was given"
    for name, index in zip(names, functions):
        lines[index] = name
    return "\n".join(lines)


def symbolizer(rounds):
    log("## Symbolizer: CrashLab built with TRAIL=1, debug and -O -g")
    sample = os.path.join(ROOT, "Samples", "CrashLab")
    forget_plans(sample)
    run(["swift", "build", "--package-path", sample, "--scratch-path", os.path.join(sample, ".build", "trail")], env={"TRAIL": "1"})
    run(["swift", "build", "--package-path", sample, "--scratch-path", os.path.join(sample, ".build", "release-g"),
         "-c", "release", "-Xswiftc", "-g"], env={"TRAIL": "1", "TRAIL_RELEASE": "1"})
    usr = toolchain_usr()
    llvm, demangle = os.path.join(usr, "bin", "llvm-symbolizer"), os.path.join(usr, "bin", "swift-demangle")
    trail, lean = os.path.join(RELEASE, "trail"), os.path.join(RELEASE, "trail-symbolize")
    import random
    for label, binary in [("debug", os.path.join(sample, ".build", "trail", "debug", "CrashLab")),
                          ("-O -g", os.path.join(sample, ".build", "release-g", "release", "CrashLab"))]:
        start, size = text_range(binary)
        random.seed(7)
        log(f"  {label}: {binary} ({os.path.getsize(binary) >> 10} KiB)")
        for count in (1, 2000, 20000):
            path = os.path.join(WORK, f"addresses-{count}")
            with open(path, "w") as handle:
                handle.write("\n".join(hex(start + random.randrange(size)) for _ in range(count)) + "\n")
            medians = compare({
                "trail-symbolize --obj": (Fed([lean, "--obj", binary], path), None, None),
                "llvm-symbolizer | swift-demangle": (Fed([llvm, "--obj", binary], path, then=[demangle]), None, None),
                "addr2line -f -i -C": (Fed(["addr2line", "-f", "-i", "-C", "-e", binary], path), None, None),
                "eu-addr2line -f -i -C": (Fed(["eu-addr2line", "-f", "-i", "-C", "-e", binary], path, may_fail=True),
                                          None, None),
            }, rounds)
            for name, seconds in medians.items():
                log(f"    {count:6d} addresses  {name:34s} {seconds * 1000:8.1f} ms  {count / seconds / 1000:8.1f} k/s")
            if count > 1:
                goal(f"{label}: speed vs GNU addr2line at {count:,} addresses",
                     medians["addr2line -f -i -C"] / medians["trail-symbolize --obj"], 2)
            if count == 20000:
                ours = medians["trail-symbolize --obj"]
                goal(f"{label}: speed vs llvm-symbolizer + swift-demangle", medians["llvm-symbolizer | swift-demangle"] / ours, 2)
                a = frames_of(subprocess.run(f"{lean} --obj {binary} < {path}", shell=True, capture_output=True, text=True).stdout)
                b = frames_of(demangled_functions(subprocess.run(
                    f"{llvm} --obj {binary} < {path}", shell=True, capture_output=True, text=True).stdout, demangle))
                same = sum(1 for x, y in zip(a, b) if x == y)
                inlined = sum(1 for y in b if len(y) > 1)
                log(f"    agreement with llvm-symbolizer (function, file, line of every frame, {inlined} addresses with inline chains): "
                    f"{100 * same / max(1, len(b)):.2f}%")
                goal(f"{label}: agreement %", 100 * same / max(1, len(b)), 100)
                gnu = subprocess.run(f"eu-addr2line -f -i -C -e {binary} < {path}", shell=True, capture_output=True, text=True).stdout
                unknown = gnu.count("??:0")
                log(f"    (eu-addr2line answered ??:0 for {unknown} of its {gnu.count(chr(10)) // 2} lines: no .debug_aranges)")
    # One crash of 30 frames against eu-addr2line's start-up on one address.
    directory = os.path.join(WORK, "crash")
    subprocess.run([os.path.join(sample, ".build", "release-g", "release", "CrashLab"), "--log-dir", directory, "overflow"],
                   env=dict(os.environ, SWIFT_BACKTRACE="enable=no"), capture_output=True)
    lines, frames = [], 0
    for line in open(os.path.join(directory, "CrashLab.log"), errors="replace"):
        if line.startswith("frame "):
            frames += 1
            if frames > 30:
                continue
        lines.append(line)
    crash = os.path.join(WORK, "crash30.log")
    with open(crash, "w") as handle:
        handle.write("".join(lines))
    binary = os.path.join(sample, ".build", "release-g", "release", "CrashLab")
    medians = compare({
        "trail-symbolize (one 30-frame crash)": ([lean, crash], None, None),
        "trail symbolize (one 30-frame crash)": ([trail, "symbolize", crash], None, None),
        "eu-addr2line (one address)": (["eu-addr2line", "-e", binary, hex(text_range(binary)[0])], None, None),
    }, max(rounds, 20))
    for name, seconds in medians.items():
        log(f"  {name:40s} {seconds * 1000:8.2f} ms")
    goal("eu-addr2line start-up / trail-symbolize one 30-frame crash", medians["eu-addr2line (one address)"] /
         medians["trail-symbolize (one 30-frame crash)"], 1)


# MARK: resources


def resources(rounds):
    log("## Resources: trail resources on 5,000 files and 200 XML files, vs swift build compiling what it writes")
    package = os.path.join(WORK, "resources")
    try:
        resources_in(package, rounds)
    finally:
        shutil.rmtree(package, ignore_errors=True)


def write_resources_package(package):
    """A package whose one target has 3,000 images, 2,000 data files and 200 XIB-like layouts of 25 views."""
    target = os.path.join(package, "Sources", "Big")
    folders = {kind: os.path.join(target, "Resources", kind) for kind in ("Images", "Data", "Layouts")}
    for folder in folders.values():
        os.makedirs(folder)
    with open(os.path.join(package, "Package.swift"), "w") as handle:
        handle.write(f"""// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "Big",
    dependencies: [.package(name: "swift-trail", path: {ROOT!r})],
    targets: [.executableTarget(name: "Big", resources: [.process("Resources")],
                                plugins: [.plugin(name: "TrailResources", package: "swift-trail")])])
""".replace("'", '"'))
    with open(os.path.join(target, "main.swift"), "w") as handle:
        handle.write("print(Resources.Images.photo0000.name, Resources.Screen000.Xib.screen0View0)\n")
    for index in range(3000):
        with open(os.path.join(folders["Images"], f"photo-{index:04d}.png"), "wb") as handle:
            handle.write(b"\x89PNG")
    for index in range(1000):
        with open(os.path.join(folders["Data"], f"record_{index:04d}.json"), "w") as handle:
            handle.write("{}")
        with open(os.path.join(folders["Data"], f"Note {index:04d}.txt"), "w") as handle:
            handle.write("note")
    for index in range(200):
        with open(os.path.join(folders["Layouts"], f"Screen{index:03d}.xib"), "w") as handle:
            handle.write('<?xml version="1.0" encoding="UTF-8"?>\n<document>\n' + "".join(
                f'    <view id="v{view}" identifier="screen{index}-view-{view}" tag="{view}"/>\n' for view in range(25))
                + "</document>\n")
    files = sorted(os.path.join(directory, name) for directory, _, names in os.walk(os.path.join(target, "Resources"))
                   for name in names)
    return target, files


def resources_in(package, rounds):
    target, files = write_resources_package(package)
    xml_files = [path for path in files if path.endswith(".xib")]
    log(f"  {len(files) - len(xml_files)} resource files and {len(xml_files)} XML files "
        f"({len(xml_files) * 50} identifiers)")
    trail = os.path.join(RELEASE, "trail-resources")  # what the plugin runs
    output = os.path.join(WORK, "resources-generated")
    # The commands the plugin gives the build, run as SwiftPM runs them: as many at once as there are cores.
    list_command = [trail, "--root", target, "--output", os.path.join(output, "TrailResources.swift"),
                    "--xml-extension", "storyboard", "--xml-extension", "xib", "--xml-extension", "xml"] + files
    xml_commands = [[trail, "--xml", "--root", target, "--output",
                     os.path.join(output, os.path.basename(path) + ".swift"), path] for path in xml_files]

    def generate():
        os.makedirs(output, exist_ok=True)
        pending = [list_command] + xml_commands
        running = []
        while pending or running:
            while pending and len(running) < (os.cpu_count() or 1):
                running.append(subprocess.Popen(pending.pop(0), stdout=subprocess.DEVNULL))
            running[0].wait()
            if running[0].returncode != 0:
                raise subprocess.CalledProcessError(running[0].returncode, running[0].args)
            running.pop(0)

    scratch = os.path.join(package, ".build")
    build = ["swift", "build", "--package-path", package, "--scratch-path", scratch]
    run(build)
    run(build)  # settle: the first rebuild re-plans
    objects = os.path.join(scratch, "debug", "Big.build")

    def forget_objects():
        for name in os.listdir(objects):
            if name.endswith(".o"):
                os.remove(os.path.join(objects, name))

    medians = {}
    times = []
    for _ in range(rounds):
        shutil.rmtree(output, ignore_errors=True)
        start = time.perf_counter()
        generate()
        times.append(time.perf_counter() - start)
    list_times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run(list_command)
        list_times.append(time.perf_counter() - start)
    medians["trail-resources, every command (as many at once as cores)"] = statistics.median(times)
    medians["  of which the file list"] = statistics.median(list_times)
    medians.update(compare({"swift build compiling the generated files": (build, None, forget_objects)}, rounds))
    for label, seconds in medians.items():
        log(f"  {label:44s} {seconds:8.2f} s")
    lines = sum(1 for name in os.listdir(output) for _ in open(os.path.join(output, name)))
    log(f"  generated: {len(os.listdir(output))} files, {lines} lines")
    goal("generation / compilation", medians["trail-resources, every command (as many at once as cores)"] /
         medians["swift build compiling the generated files"], 0.1, higher_is_better=False)

    # A rebuild with nothing changed runs none of the plugin's commands.
    result = subprocess.run(build, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True)
    ran = [line for line in result.stdout.splitlines() if "] Trail " in line]
    log(f"  no-change rebuild: {len(ran)} commands ran (goal 0) {'MET' if not ran else 'NOT MET'}")


# MARK: main


# MARK: trail test on a real package


PACKAGE = None


def package(rounds):
    """`trail test` against `swift build --build-tests` of the same package: the first build, from clean, and a
    rebuild after one file changes. Takes --package PATH (swift-argument-parser, say); skipped without it."""
    log("## trail test on a package: first traced build and a rebuild after one edit, against swift build")
    if not PACKAGE:
        log("  skipped: give --package PATH (a package of some hundred files, such as swift-argument-parser)")
        return
    source = os.path.abspath(PACKAGE)
    copy = os.path.join(WORK, "package")
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".build", ".git"))
    trail = os.path.join(RELEASE, "trail")
    plain_scratch = os.path.join(WORK, "plain-build")
    swift_files = [os.path.join(d, f) for d, _, files in os.walk(os.path.join(copy, "Sources")) for f in files if f.endswith(".swift")]
    edited = max(swift_files, key=os.path.getsize)
    log(f"  {os.path.basename(source)}: {len(swift_files)} Swift files in Sources; the edit appends a comment to "
        f"{os.path.relpath(edited, copy)}")
    traced = ([trail, "test", "--package", copy, "--filter", "trail-bench-matches-no-test"], None, None)
    plain = (["swift", "build", "--build-tests", "--package-path", copy, "--scratch-path", plain_scratch], None, None)

    def clean():
        shutil.rmtree(os.path.join(copy, ".build"), ignore_errors=True)
        shutil.rmtree(plain_scratch, ignore_errors=True)

    firsts = {"trail test": [], "swift build": []}
    for _ in range(max(1, min(rounds, 2))):  # a clean build takes a minute or more
        clean()
        firsts["trail test"].append(timed(traced[0]))
        firsts["swift build"].append(timed(plain[0]))
    first = {label: statistics.median(values) for label, values in firsts.items()}

    def touch():
        with open(edited, "a") as handle:
            handle.write("// trail-bench edit\n")

    again = compare({"trail test": (traced[0], None, touch), "swift build": (plain[0], None, touch)}, rounds)
    for label in first:
        log(f"  {label:12s} first {first[label]:7.2f} s   after one edit {again[label]:6.2f} s")
    goal("trail test first build / swift build --build-tests", first["trail test"] / first["swift build"], 2, higher_is_better=False)
    goal("trail test after one edit / swift build after one edit", again["trail test"] / again["swift build"], 1.5, higher_is_better=False)


# MARK: values


VALUES_MANIFEST = """// swift-tools-version:6.0
import PackageDescription

// bench.py's copy of %(name)s, instrumented in place by `trail instrument`: it always depends on Trail.
let package = Package(
    name: "%(name)s",
    dependencies: [.package(name: "swift-trail", path: "%(root)s")],
    targets: [.executableTarget(name: "%(name)s", dependencies: [.product(name: "Trail", package: "swift-trail")])]
)
"""


def build_copy(package, name, flags, configuration="release"):
    """A build of the one-target package `package` whose executable is `name`: plain, or a copy instrumented in
    place with `flags` (kept under .build, so a rerun rebuilds only what changed)."""
    if flags is None:
        scratch = os.path.join(package, ".build", "plain-" + configuration)
        run(["swift", "build", "-c", configuration, "--package-path", package, "--scratch-path", scratch])
        return os.path.join(scratch, configuration, name)
    kind = "values" if "--values" in flags else "traced"
    copy = os.path.join(ROOT, ".build", "bench-" + name.lower(), kind)
    sources = os.path.join(copy, "Sources", name)
    os.makedirs(sources, exist_ok=True)
    with open(os.path.join(copy, "Package.swift"), "w") as handle:
        handle.write(VALUES_MANIFEST % {"name": name, "root": ROOT})
    for file in sorted(os.listdir(os.path.join(package, "Sources", name))):
        if file == "_Trail.swift" or not file.endswith(".swift"):
            continue
        with open(os.path.join(package, "Sources", name, file)) as source, open(os.path.join(sources, file), "w") as target:
            target.write(source.read())
    trail = os.path.join(RELEASE, "trail")
    if not os.path.exists(trail):
        trail = os.path.join(ROOT, ".build", "debug", "trail")
    run([trail, "instrument", "--in-place", "--module", name] + flags + [sources])
    run(["swift", "build", "-c", configuration, "--package-path", copy])
    return os.path.join(copy, ".build", configuration, name)


def build_fib_release(flags):
    """Samples/Fib as a release build: plain, or instrumented with `flags`."""
    return build_copy(os.path.join(ROOT, "Samples", "Fib"), "Fib", flags)


def build_fib_values_debug():
    """Samples/Fib as `TRAIL=1 TRAIL_VALUES=1 swift build` makes it: the plugin's debug build with values."""
    sample = os.path.join(ROOT, "Samples", "Fib")
    scratch = os.path.join(sample, ".build", "trail-values")
    run(["swift", "build", "--package-path", sample, "--scratch-path", scratch], env={"TRAIL": "1", "TRAIL_VALUES": "1"})
    return os.path.join(scratch, "debug", "Fib")


def values(rounds):
    """Issue 41: recursive fib recording its argument and result, against recording without values, per call; and
    a build with values compiled in but tracing off, against the untraced build. The goals are judged on the
    builds users get, as the trace section's are: `TRAIL=1 TRAIL_VALUES=1 swift build`, a debug build (the plugin
    traces release builds only when TRAIL_RELEASE=1 asks). Release builds of copies instrumented in place follow,
    for those who trace release builds."""
    trace_folder = os.path.join(WORK, "value-traces")

    def fresh():
        shutil.rmtree(trace_folder, ignore_errors=True)

    def recording(name):
        return {"TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": os.path.join(trace_folder, name + ".trace")}

    def per_call(configuration, plain, traced, with_values, n, judged):
        # Recording at fib(30) (a trace of some 170 MB with values, written as it is made).
        calls = 2 * fib(n + 1) - 1
        log(f"## Values: recursive fib({n}), {calls} calls, each recording n and its result; {configuration} builds")
        medians = compare({
            "untraced": ([plain, str(n)], None, None),
            "traced build, recording": ([traced, str(n)], recording("traced"), fresh),
            "traced build with values, recording": ([with_values, str(n)], recording("values"), fresh),
        }, rounds)
        for label, seconds in medians.items():
            log(f"  {label:42s} {seconds * 1000:8.1f} ms")
        base = medians["untraced"]
        without = (medians["traced build, recording"] - base) / calls * 1e9
        recorded = (medians["traced build with values, recording"] - base) / calls * 1e9
        log(f"  per call: recording {without:.1f} ns, recording with values {recorded:.1f} ns")
        name = f"fib({n}) {configuration}: recording with values / recording without, per call"
        if judged:
            goal(name, recorded / without, 1.5, higher_is_better=False)
        else:
            log(f"  {name}: {recorded / without:.2f}")
        fresh()

    def tracing_off(configuration, builds, judged):
        log(f"## Values compiled in, tracing off: {configuration} builds")
        for program, (plain, traced, with_values, argument) in builds.items():
            entries = {"untraced": ([plain] + argument, None, None)}
            if traced:
                entries["traced build, tracing off"] = ([traced] + argument, None, None)
            entries["traced build with values, tracing off"] = ([with_values] + argument, None, None)
            medians = compare(entries, rounds)
            for label, seconds in medians.items():
                log(f"  {program:18s} {label:42s} {seconds * 1000:8.1f} ms")
            base = medians["untraced"]
            for label in ("traced build with values, tracing off", "traced build, tracing off"):
                if label not in medians:
                    continue
                name = f"{program} {configuration}: {label.replace(', tracing off', ' (off)')} / untraced"
                if judged and "values" in label:
                    goal(name, medians[label] / base, 1.1, higher_is_better=False)
                else:
                    log(f"  {name}: {medians[label] / base:.2f}")

    def instructions(builds):
        # Instructions per call, counted by callgrind: what this machine's timings (a shared VM, ±20 % between
        # sittings) cannot show apart. The difference between fib(25) and fib(20) leaves start-up out.
        if not shutil.which("valgrind"):
            log("  (valgrind not installed: no instruction counts)")
            return
        calls = (2 * fib(26) - 1) - (2 * fib(21) - 1)
        counts = {}
        for label, binary in builds.items():
            refs = []
            for n in (20, 25):
                out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary, str(n)],
                                     capture_output=True, text=True).stderr
                refs.append(int(re.search(r"refs:\s+([\d,]+)", out).group(1).replace(",", "")))
            counts[label] = (refs[1] - refs[0]) / calls
        base = counts["untraced"]
        log("  instructions per call (callgrind): " + ", ".join(f"{label} {count:.1f} ({count / base:.2f}x)"
                                                               for label, count in counts.items()))

    # An ordinary program beside fib: Benchmarks/JSONWalk, a recursive-descent JSON parser of small functions
    # (`peek`, `advance`, `isDigit` per byte), all instrumented. Fib is the worst case: a body of a few cycles.
    walk = os.path.join(ROOT, "Benchmarks", "JSONWalk")
    plain_debug, traced_debug = build_fib()
    values_debug = build_fib_values_debug()
    per_call("debug (TRAIL=1 TRAIL_VALUES=1 swift build)", plain_debug, traced_debug, values_debug, 30, True)
    tracing_off("debug", {
        "fib(32)": (plain_debug, traced_debug, values_debug, ["32"]),
        "JSONWalk 5000": (build_copy(walk, "JSONWalk", None, "debug"), None,
                          build_copy(walk, "JSONWalk", ["--values"], "debug"), ["5000"]),
    }, True)
    instructions({"untraced": plain_debug, "traced": traced_debug, "values": values_debug})
    plain = build_fib_release(None)
    traced = build_fib_release([])
    with_values = build_fib_release(["--values"])
    per_call("release (instrumented in place)", plain, traced, with_values, 30, False)
    tracing_off("release (instrumented in place)", {
        "fib(35)": (plain, traced, with_values, ["35"]),
        "JSONWalk 20000": (build_copy(walk, "JSONWalk", None), None, build_copy(walk, "JSONWalk", ["--values"]), []),
    }, False)
    instructions({"untraced": plain, "traced": traced, "values": with_values})


SECTIONS = {"rewriter": rewriter, "trace": trace, "viewers": viewers, "otlp": otlp, "follow": follow, "logger": logger, "symbolizer": symbolizer,
            "resources": resources, "package": package, "values": values}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sections", nargs="*", help="some of: " + ", ".join(SECTIONS))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--package", help="the package the 'package' section traces (skipped without it)")
    parser.add_argument("--autogroup-nice", type=int,
                        help="viewers: run each measured command in an autogroup of its own at this nice (as root)")
    arguments = parser.parse_args()
    global PACKAGE, AUTOGROUP_NICE
    PACKAGE = arguments.package
    AUTOGROUP_NICE = arguments.autogroup_nice
    chosen = arguments.sections or list(SECTIONS)
    unknown = [name for name in chosen if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    log(f"# swift-trail benchmarks ({time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, medians of "
        f"{arguments.rounds} alternating rounds)")
    try:
        for name in chosen:
            log()
            SECTIONS[name](arguments.rounds)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(os.path.join(ROOT, "bench-results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench-results", "latest.txt"), "w") as handle:
        handle.write("\n".join(RESULTS) + "\n")


if __name__ == "__main__":
    sys.exit(main())
