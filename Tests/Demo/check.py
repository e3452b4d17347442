#!/usr/bin/env python3
"""make test's last step: `make demo`, twice, as a newcomer runs it. Each run must build with no warning,
start from an empty folder, and show the calls it recorded itself (not an older trace beside a numbered new one).
Usage: check.py DEMO_FOLDER [make arguments]"""
import os
import subprocess
import sys

demo = sys.argv[1]
failures = []
for attempt in (1, 2):
    result = subprocess.run(["make", "--no-print-directory", "demo", f"DEMO={demo}"] + sys.argv[2:],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = result.stdout
    def fail(message):
        failures.append(f"run {attempt}: {message}")
    if result.returncode != 0:
        fail(f"make demo exited with {result.returncode}:\n{output[-3000:]}")
        break
    warnings = [line for line in output.splitlines() if "warning:" in line]
    if warnings:
        fail("the demo printed warnings:\n  " + "\n  ".join(warnings[:10]))
    names = sorted(os.listdir(demo))
    expected = ["build-status", "demo.trace", "items.json", "spans.json", "survey.trace", "values.json",
                "values.trace"]
    if names != expected:
        fail(f"the demo folder holds {names}, not {expected}")
    # The replay of demo.trace shows this run's pid in its header; the recorded process printed nothing else
    # that names it, so compare the replay's calls with the trace's own process.
    replay = subprocess.run([".build/debug/trail", "replay", os.path.join(demo, "demo.trace")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    if replay not in output:
        fail("the replay the demo printed is not the replay of the trace it wrote")
    for call in ("ItemStore.", "} /* "):
        if call not in replay:
            fail(f"the demo's replay shows no {call!r}")
    # The values build's replay: this run's, with arguments, results and the error remove throws.
    values = subprocess.run([".build/debug/trail", "replay", os.path.join(demo, "values.trace")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    if values not in output:
        fail("the values replay the demo printed is not the replay of the trace it wrote")
    for shown in ('ItemStore.Store.create(name: "Lamp", value: 40)', "} throws StoreError: no item with serial"):
        if shown not in values:
            fail(f"the values replay shows no {shown!r}")
if failures:
    print("demo check FAILED\n" + "\n".join(failures))
    sys.exit(1)
print("demo check: make demo ran twice, with no warning, each run showing the trace it wrote")
