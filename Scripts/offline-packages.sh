#!/usr/bin/env bash
# The integrations' users get swift-log, swift-distributed-tracing and swift-service-context by their public
# URLs. Where SwiftPM reaches no package host, `make` runs this: each package copied from FROM (a folder of
# unmodified copies, with a README table that gives each one's version) becomes a local git repository in
# INTO, tagged with that version, and each ROOT package gets mirrors from the public URLs to them.
# Usage: offline-packages.sh FROM INTO ROOT...
set -euo pipefail
from=$1 into=$2
shift 2
if [ -z "$from" ]; then
  echo "offline-packages: TRAIL_OFFLINE_PACKAGES is not set and ../shared/packages does not exist;" \
       "the integrations resolve from their public URLs" >&2
  exit 0
fi
[ -d "$from" ] || { echo "offline-packages: TRAIL_OFFLINE_PACKAGES=$from is not a folder" >&2; exit 1; }
mkdir -p "$into"
into=$(cd "$into" && pwd)
for name in swift-log swift-distributed-tracing swift-service-context; do
  source="$from/$name"
  [ -d "$source" ] || { echo "offline-packages: $source is missing (TRAIL_OFFLINE_PACKAGES=$from)" >&2; exit 1; }
  # "| swift-log | https://github.com/apple/swift-log | 1.14.0 + 9 commits | 7af2de1... |"
  version=$(awk -F'|' -v n="$name" '{ gsub(/ /, "", $2) } $2 == n { split($4, v, " "); print v[1] }' "$from/README.md" 2>/dev/null || true)
  if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "offline-packages: $from/README.md gives no version for $name (found '$version')" >&2
    exit 1
  fi
  repository="$into/$name"
  stamp="v2 $version $(find "$source" -type f -printf '%T@\n' | sort -n | tail -1)"
  if [ -f "$repository.stamp" ] && [ "$(cat "$repository.stamp")" = "$stamp" ] && [ -d "$repository/.git" ]; then
    continue
  fi
  rm -rf "$repository" "$repository.tmp"
  cp -a "$source" "$repository.tmp"
  rm -rf "$repository.tmp/.git" "$repository.tmp/.build"
  git -C "$repository.tmp" init -q
  git -C "$repository.tmp" add -A
  # A fixed author, date and message: the same copy gives the same commit on every machine, so a
  # Package.resolved made here pins a revision that exists there too.
  GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
    git -C "$repository.tmp" -c user.name=swift-trail -c user.email=swift-trail@localhost commit -qm "$name $version"
  git -C "$repository.tmp" tag "$version"
  mv "$repository.tmp" "$repository"
  echo "$stamp" > "$repository.stamp"
  echo "offline-packages: $name $version is $repository"
done
# The mirrors file is written here, not with `swift package config set-mirror`: that takes the root's build
# lock, which a running `swift test` holds (make install from a test would wait forever). Other mirrors stay.
for root in "$@"; do
  python3 - "$root/.swiftpm/configuration/mirrors.json" "$into" swift-log swift-distributed-tracing swift-service-context <<'PY'
import json, os, sys
path, into, names = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    with open(path) as handle:
        entries = json.load(handle).get("object", [])
except (OSError, ValueError):
    entries = []
ours = {f"https://github.com/apple/{name}.git": os.path.join(into, name) for name in names}
entries = [e for e in entries if e.get("original") not in ours]
entries += [{"mirror": mirror, "original": original} for original, mirror in ours.items()]
entries.sort(key=lambda e: e["original"])
os.makedirs(os.path.dirname(path), exist_ok=True)
text = json.dumps({"object": entries, "version": 1}, indent=2) + "\n"
old = open(path).read() if os.path.exists(path) else None
if old != text:
    with open(path + ".tmp", "w") as handle:
        handle.write(text)
    os.replace(path + ".tmp", path)
PY
done
