#!/bin/sh
# Installs Debian's chromium for the inbox browser test (test/inbox-browser.test.ts), which
# drives it with playwright-core. Does nothing when /usr/bin/chromium is already there, so it
# is safe to run again. Needs root (or sudo without a password) and apt-get.
set -eu

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "chromium is already installed: $CHROMIUM"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: $CHROMIUM is missing and apt-get is not available here." >&2
  echo "Install Chromium with your system's package manager so that $CHROMIUM exists." >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo -n"
else
  echo "error: installing chromium needs root; run: sudo $0" >&2
  exit 1
fi

echo "Installing chromium with apt-get (this takes a few minutes)..."
export DEBIAN_FRONTEND=noninteractive
# Another apt-get may hold dpkg's lock (e.g. a parallel setup job): wait for it, not fail.
LOCK_WAIT="-o DPkg::Lock::Timeout=600"
$SUDO apt-get $LOCK_WAIT update -qq
$SUDO apt-get $LOCK_WAIT install -y -qq chromium >/dev/null

if [ ! -x "$CHROMIUM" ]; then
  echo "error: apt-get installed chromium, but $CHROMIUM is still missing." >&2
  exit 1
fi
echo "chromium installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
