#!/usr/bin/env python3
"""`make soak`: an operator's day, compressed, for SOAK_SECONDS (default 600).

Round after round, one to three copies of the probe app (`trail-probe soak`) log into one folder that rotates at
4 KiB, while they fork children without exec, start shells that write to the fd 2 they inherit, and end by exit,
a crash (SIGSEGV, abort, a Swift fatal error), their own SIGTERM, or a signal from this driver. Some rounds
delete the folder under them; some hold them to a small total quota. After each round the invariants are checked:
- every process ends within its limit (30 s to finish; 5 s after a signal or a crash);
- every line is present exactly once (rounds without a deletion and without a quota); no line ever twice;
- every crash has a block with its pid and a marker that names its pid;
- the folder stays within its bounds (sampled every 10 ms): quota + one file per copy, + what a crash or a
  termination signal writes without rotating (the buffered lines, the block).
Figures are printed at the end; the exit status is 1 when any invariant broke. Writes only below a temporary
folder, removed as it goes (a failing round's folder is kept, at most five)."""
import os, random, re, shutil, signal, subprocess, sys, tempfile, threading, time

PROBE = os.environ.get("TRAIL_PROBE", ".build/debug/trail-probe")
SECONDS = float(os.environ.get("SOAK_SECONDS", "600"))
SEED = int(os.environ.get("SOAK_SEED", str(int(time.time()))))
MAX_SIZE = 4096
LINE = re.compile(rb"soak (\S+) (\d+) \.$")

rng = random.Random(SEED)
figures = dict(rounds=0, processes=0, forks=0, shells=0, lines_checked=0, crashes_checked=0, signals=0,
               deletions=0, quota_rounds=0, slowest_end_after_signal=0.0, largest_over_quota=0)
failures = []
kept = 0


def folder_size(folder):
    """Bytes in the folder's log files. Each file counts once by inode: a listing taken while files are renamed
    can name one file twice."""
    sizes = {}
    try:
        for name in os.listdir(folder):
            if name.endswith(".log"):
                try:
                    info = os.lstat(os.path.join(folder, name))
                    sizes[info.st_ino] = info.st_size
                except FileNotFoundError:
                    pass
    except FileNotFoundError:
        pass
    return sum(sizes.values())


def read_lines(folder):
    counts = {}
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return counts
    for name in names:
        if not name.endswith(".log"):
            continue
        with open(os.path.join(folder, name), "rb") as file:
            for raw in file:
                line = raw.rstrip(b"\n")
                # The logger's lines carry a timestamp, level and label before the message, and a source after.
                if line.endswith(b")"):
                    line = line[:line.rfind(b" (")]
                index = line.find(b"soak ")
                if index < 0:
                    continue
                match = LINE.search(line[index:])
                if match:
                    key = (match.group(1).decode(), int(match.group(2)))
                    counts[key] = counts.get(key, 0) + 1
    return counts


def one_round(number):
    global kept
    base = tempfile.mkdtemp(prefix="trail-soak-")
    folder = os.path.join(base, "logs")
    quota = rng.random() < 0.25
    delete_at = rng.uniform(0.05, 0.5) if rng.random() < 0.2 else None
    environment = dict(os.environ, TRAIL_LOG_MAX_SIZE="4K", TRAIL_LOG_MAX_FILES="1000000",
                       TRAIL_LOG_MAX_TOTAL="256K" if quota else "1G", SWIFT_BACKTRACE="enable=no")
    environment["TRAIL_LOG_DURABLE"] = "1" if rng.random() < 0.3 else "0"
    workers = []
    for copy in range(rng.randint(1, 3)):
        end = rng.choice(["exit", "exit", "exit", "segv", "abort", "fatal", "term", "wait"])
        tag = f"r{number}c{copy}"
        forks, shells = rng.randint(0, 8), rng.randint(0, 3)
        arguments = [PROBE, "soak", folder, tag, str(rng.randint(1, 4)), str(rng.randint(100, 3000)), str(forks),
                     str(shells), end]
        out = open(os.path.join(base, f"{tag}.out"), "w+")
        err = open(os.path.join(base, f"{tag}.err"), "w+")
        process = subprocess.Popen(arguments, stdout=out, stderr=err, env=environment)
        workers.append(dict(tag=tag, end=end, process=process, out=out, err=err, started=time.time(), signal_at=None))
        figures["processes"] += 1 + forks + shells
        figures["forks"] += forks
        figures["shells"] += shells
    largest, stop = [0], [False]

    def watch():
        while not stop[0]:
            largest[0] = max(largest[0], folder_size(folder))
            time.sleep(0.01)
    watcher = threading.Thread(target=watch)
    watcher.start()
    started = time.time()
    deleted = False
    while any(w["process"].poll() is None for w in workers):
        now = time.time()
        if delete_at is not None and not deleted and now - started >= delete_at:
            shutil.rmtree(folder, ignore_errors=True)
            deleted = True
            figures["deletions"] += 1
        for w in workers:
            if w["process"].poll() is not None:
                continue
            w["out"].seek(0)
            logged = "logged" in w["out"].read()
            if logged and w["signal_at"] is None and w["end"] in ("segv", "abort", "fatal", "term", "wait"):
                w["signal_at"] = now
                if w["end"] == "wait":
                    w["process"].send_signal(rng.choice([signal.SIGTERM, signal.SIGINT, signal.SIGHUP]))
                    figures["signals"] += 1
            limit = 5 if w["signal_at"] is not None else 30
            since = now - (w["signal_at"] or w["started"])
            if since > limit:
                stack = os.path.join(tempfile.gettempdir(), f"trail-soak-stuck-{w['process'].pid}.txt")
                if shutil.which("gdb"):
                    with open(stack, "w") as file:
                        subprocess.run(["gdb", "-p", str(w["process"].pid), "-batch", "-ex", "thread apply all bt 30"],
                                       stdout=file, stderr=subprocess.DEVNULL)
                failures.append(f"round {number}: {w['tag']} ({w['end']}) did not end within {limit} s; killed; stack: {stack}")
                w["process"].kill()
        time.sleep(0.005)
    stop[0] = True
    watcher.join()
    for w in workers:
        if w["signal_at"] is not None:
            figures["slowest_end_after_signal"] = max(figures["slowest_end_after_signal"], time.time() - w["signal_at"])

    problems = []
    counts = read_lines(folder)
    for key, count in counts.items():
        if count > 1:
            problems.append(f"{key} written {count} times")
            break
    crashed = {"segv": -11, "abort": -6, "fatal": -4}
    for w in workers:
        w["out"].seek(0)
        output = w["out"].read()
        status = w["process"].returncode
        expected = crashed.get(w["end"], -15 if w["end"] == "term" else None)
        if w["end"] == "exit" and status != 0:
            problems.append(f"{w['tag']} exited {status}")
        if expected is not None and status != expected:
            problems.append(f"{w['tag']} ({w['end']}) ended with {status}, not {expected}")
        for child, pid in re.findall(r"hung fork (\d+) pid (\d+)", output):
            stack = subprocess.run(["gdb", "-p", pid, "-batch", "-ex", "thread apply all bt 30"], capture_output=True,
                                   text=True).stdout if shutil.which("gdb") else "(no gdb)"
            with open(os.path.join(base, f"hung-{pid}.txt"), "w") as file:
                file.write(stack)
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
            problems.append(f"{w['tag']}: forked child {child} (pid {pid}) hung; its stack is in {base}/hung-{pid}.txt")
        if not deleted and not quota:
            for source, count in re.findall(r"expect (\S+) (\d+)", output):
                for index in range(int(count)):
                    if counts.get((source, index), 0) != 1:
                        problems.append(f"{source} line {index}: present {counts.get((source, index), 0)} times")
                        break
                figures["lines_checked"] += int(count)
        # A quota prunes old files, crash blocks with them.
        if w["end"] in crashed and not deleted and not quota:
            pid = w["process"].pid
            text = b""
            markers = False
            for name in os.listdir(folder) if os.path.isdir(folder) else []:
                path = os.path.join(folder, name)
                if name.endswith(".log"):
                    text += open(path, "rb").read()
                elif ".crash" in name and os.path.isfile(path):
                    markers = markers or f"pid={pid}\n" in open(path, errors="replace").read()
            if f"=== TRAIL CRASH BEGIN".encode() not in text or f"\npid: {pid}\n".encode() not in text:
                problems.append(f"{w['tag']} ({w['end']}, pid {pid}): no crash block")
            if not markers:
                problems.append(f"{w['tag']} ({w['end']}, pid {pid}): no marker names it")
            figures["crashes_checked"] += 1
    if quota:
        figures["quota_rounds"] += 1
        # A crash or a termination signal writes every buffered line (two buffers of 1 MiB at most), and a crash
        # its block, where the file is: there is no rotation in a signal handler.
        signalled = sum(1 for w in workers if w["end"] in crashed or w["end"] in ("term", "wait"))
        bound = 256 * 1024 + MAX_SIZE * len(workers) + (2 << 20) * signalled
        figures["largest_over_quota"] = max(figures["largest_over_quota"], largest[0] - 256 * 1024)
        if largest[0] > bound:
            problems.append(f"the folder reached {largest[0]} bytes, over {bound}")
    for w in workers:
        w["out"].close()
        w["err"].close()
    if problems:
        failures.extend(f"round {number} (seed {SEED}, quota {quota}, deleted {deleted}): {p}" for p in problems[:5])
        if kept < 5:
            kept += 1
            print(f"soak: round {number} failed; its folder is kept: {base}", file=sys.stderr)
            return
    shutil.rmtree(base, ignore_errors=True)


def main():
    # A shell starts a background command with SIGINT ignored, and children inherit that through exec: a worker
    # would then rightly keep ignoring the SIGINT this driver sends. They start from the defaults instead.
    for number in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(number, signal.SIG_DFL)
    if not os.access(PROBE, os.X_OK):
        sys.exit(f"soak: {PROBE} is missing: run `swift build --product trail-probe` (make soak does)")
    print(f"soak: {SECONDS:.0f} s, seed {SEED}")
    deadline = time.time() + SECONDS
    number = 0
    while time.time() < deadline:
        one_round(number)
        number += 1
        figures["rounds"] = number
        if number % 20 == 0:
            print(f"soak: {number} rounds, {len(failures)} failures", flush=True)
    for key, value in figures.items():
        print(f"  {key}: {value:.2f}" if isinstance(value, float) else f"  {key}: {value}")
    for failure in failures[:40]:
        print("FAIL " + failure)
    print(f"soak: {'FAILED' if failures else 'ok'}: {len(failures)} failures in {number} rounds")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
