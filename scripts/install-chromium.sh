#!/usr/bin/env bash
# Installs Debian's chromium (/usr/bin/chromium) for the HTML report's browser test
# (test/report/html-browser.test.ts) when it is missing. Idempotent and quiet; prints what it did.
# It never fails the calling script: when it cannot install, it says why and the browser test
# skips with its reason.
set -u

CHROMIUM=/usr/bin/chromium

say() { echo "install-chromium: $*"; }

if [ -x "$CHROMIUM" ]; then
  say "already installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  say "$CHROMIUM is missing and this is not root, so nothing was installed; the HTML report's browser test will be skipped"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  say "$CHROMIUM is missing and there is no apt-get here, so nothing was installed; the HTML report's browser test will be skipped"
  exit 0
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
# Bounded (about 3.5 minutes at worst), so a held apt lock or a slow mirror cannot push CI past its 15 minutes.
if timeout 60 apt-get update -qq >"$log" 2>&1 &&
  timeout 150 apt-get install -y -qq --no-install-recommends chromium >>"$log" 2>&1 &&
  [ -x "$CHROMIUM" ]; then
  say "installed $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM") with apt-get"
else
  say "could not install chromium with apt-get; the HTML report's browser test will be skipped. Last lines of apt-get's output:"
  tail -n 5 "$log" | sed 's/^/  /'
fi
exit 0
