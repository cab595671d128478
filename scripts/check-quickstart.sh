#!/usr/bin/env bash
# Runs the pnpm install step of the README's quick start into throw-away npm
# prefixes, once as on a plain machine and once with corepack's pnpm shim
# enabled there (Node ships corepack; with the shim in place a plain
# `npm install --global pnpm` fails with EEXIST). Both must end with the
# pinned pnpm on that prefix's PATH. Needs the npm registry.
set -euo pipefail
cd "$(dirname "$0")/.."

pinned=$(node -p "require('./package.json').packageManager.split('@')[1]")
step=$(grep -m1 -oE 'npm install --global [^&`]*pnpm@[0-9.]+' README.md || true)
if [ -z "$step" ]; then
  echo "check-quickstart: README.md has no 'npm install --global … pnpm@<version>' step" >&2
  exit 1
fi
if [ "${step##*pnpm@}" != "$pinned" ]; then
  echo "check-quickstart: README.md installs pnpm@${step##*pnpm@}, package.json pins pnpm@$pinned" >&2
  exit 1
fi

run_step() { # $1: label, $2: "shim" to enable corepack's pnpm shim first
  local prefix
  prefix=$(mktemp -d)
  mkdir -p "$prefix/bin"
  if [ "$2" = shim ]; then
    if ! command -v corepack >/dev/null 2>&1; then
      echo "check-quickstart: $1: skipped (this Node has no corepack)"
      rm -rf "$prefix"
      return
    fi
    corepack enable --install-directory "$prefix/bin" pnpm
  fi
  # shellcheck disable=SC2086 # the README's words, split as a shell would
  if ! NPM_CONFIG_PREFIX="$prefix" $step --no-fund --no-audit >"$prefix/npm.log" 2>&1; then
    echo "check-quickstart: $1: '$step' failed:" >&2
    tail -n 5 "$prefix/npm.log" >&2
    rm -rf "$prefix"
    exit 1
  fi
  local got
  got=$(PATH="$prefix/bin:$PATH" pnpm --version)
  rm -rf "$prefix"
  if [ "$got" != "$pinned" ]; then
    echo "check-quickstart: $1: pnpm --version is '$got', expected $pinned" >&2
    exit 1
  fi
  echo "check-quickstart: $1: '$step' gives pnpm $got"
}

run_step "plain machine" none
run_step "corepack's pnpm shim enabled" shim
