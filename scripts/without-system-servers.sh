#!/usr/bin/env bash
# Runs a command as on a machine with only Node: the system's PostgreSQL server and Chromium are hidden in a
# private mount namespace (an empty read-only folder over /usr/lib/postgresql and /usr/lib/chromium, /dev/null over
# the chromium commands), so the suites must take both from the npm registry (packages/test-servers). The rest of
# the machine is untouched, and so is everything outside the command. Needs root (or unshare's user namespaces).
#   scripts/without-system-servers.sh pnpm test
set -euo pipefail
if [ "${1:-}" = "--inside" ]; then
  shift
  for dir in /usr/lib/postgresql /usr/lib/chromium; do
    [ -d "$dir" ] && mount -t tmpfs -o ro,size=4k,mode=755 cyrnel-hidden "$dir"
  done
  for name in chromium chromium-browser; do
    for dir in ${PATH//:/ }; do
      [ -f "$dir/$name" ] && mount --bind /dev/null "$dir/$name"
    done
  done
  exec "$@"
fi
exec unshare --mount --propagation private "$0" --inside "$@"
