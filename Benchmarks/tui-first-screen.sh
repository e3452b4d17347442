#!/bin/bash
# Usage: Benchmarks/tui-first-screen.sh TRAIL TRACE
# Starts `TRAIL tui TRACE` in a 120x40 tmux session and prints the seconds until its first screen shows and the
# peak resident size of the trail process then, and once it unfolded everything and read the whole trace
# (Docs/viewers.md). Needs tmux.
set -eu
# Absolute: the session's shell starts in the tmux server's folder, not necessarily this one.
trail=$(realpath "$1")
trace=$(realpath "$2")
name=trail-tui-measure-$$
start=$(date +%s.%N)
tmux new-session -d -s "$name" -x 120 -y 40 "$trail tui $trace; sleep 60"
trap 'tmux kill-session -t "$name" 2>/dev/null || true' EXIT
shown=no
for _ in $(seq 1 6000); do
    if tmux capture-pane -p -t "$name" 2>/dev/null | grep -q "call tree 1/"; then shown=yes; break; fi
    sleep 0.05
done
end=$(date +%s.%N)
[ "$shown" = yes ] || { echo "no first screen within 300 s:"; tmux capture-pane -p -t "$name"; exit 1; }
pid=$(pgrep -P "$(tmux list-panes -t "$name" -F '#{pane_pid}')" | head -1)
echo "first screen after $(echo "$end - $start" | bc) s; peak resident $(awk '/VmHWM/ {print $2 / 1024 " MiB"}' /proc/"$pid"/status)"
tmux capture-pane -p -t "$name" | tail -1
tmux send-keys -t "$name" e
sleep 3
# The trace is read on after the first screen: the peak is the one once it is all read.
for _ in $(seq 1 1200); do
    tmux capture-pane -p -t "$name" | tail -1 | grep -q " reading " || break
    sleep 0.25
done
echo "read in $(echo "$(date +%s.%N) - $start" | bc) s"
echo "after unfolding everything: peak resident $(awk '/VmHWM/ {print $2 / 1024 " MiB"}' /proc/"$pid"/status)"
tmux send-keys -t "$name" q
