#!/usr/bin/env bash
# Installs what `npm start` / `npm test` need and is missing: npm packages (when package-lock.json changed)
# and, unless --deps-only, Chromium's headless shell plus fonts for Latin, CJK and emoji, and ffmpeg (webm/gif videos).
# Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
export PUPPETEER_SKIP_DOWNLOAD=1   # never let puppeteer fetch a browser; we use the system's

deps_only=false
[ "${1:-}" = "--deps-only" ] && deps_only=true

stamp=node_modules/.setup-stamp
want=$(sha256sum package-lock.json package.json | sha256sum | cut -c1-64)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing npm packages" >&2
  npm install --no-audit --no-fund --loglevel=error >&2
  echo "$want" > "$stamp"
fi

$deps_only && exit 0

have_chrome() {
  [ -n "${CHROME_PATH:-}" ] && [ -x "${CHROME_PATH}" ] && return 0
  for c in chromium-headless-shell chromium chromium-browser google-chrome; do command -v "$c" >/dev/null 2>&1 && return 0; done
  return 1
}

packages=(chromium-headless-shell fonts-liberation fonts-noto-cjk fonts-noto-color-emoji ffmpeg)
missing=()
if command -v dpkg >/dev/null 2>&1; then
  for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  # Any Chromium satisfies the engine requirement (CHROME_PATH or a full chromium); fonts are still wanted.
  if have_chrome; then missing=("${missing[@]/chromium-headless-shell}"); fi
  missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
fi

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  elif ! have_chrome; then
    echo "setup: Chromium is missing. Install it, e.g. 'sudo apt-get install -y ${missing[*]}', or set CHROME_PATH to a Chromium/Chrome binary." >&2
    exit 1
  else
    echo "setup: optional packages missing (${missing[*]}): captures work; without the fonts some scripts render as boxes, without ffmpeg there are no webm/gif videos." >&2
  fi
fi
have_chrome || { echo "setup: no Chromium found after install; set CHROME_PATH" >&2; exit 1; }
