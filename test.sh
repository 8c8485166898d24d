#!/usr/bin/env bash
# The whole test suite: `./test.sh [cargo test arguments...]`, e.g. `./test.sh report`.
#
# The HTML report is checked in a real headless Chromium (tests/integration/util/browser.rs).
# This finds one ($CHROMIUM, else chromium, chromium-browser or google-chrome on PATH), installs
# Debian's `chromium` package when there is none, and exports CHROMIUM=<path> for the tests.
# Without a browser: with CI set (true, 1...) this fails; otherwise it warns loudly and the browser tests skip.
# CHROMIUM set to something that is not there is an error either way: it names a browser to use.
set -euo pipefail
cd "$(dirname "$0")"

find_chromium() {
    local name path
    for name in chromium chromium-browser google-chrome; do
        if path=$(command -v "$name" 2>/dev/null); then
            echo "$path"
            return 0
        fi
    done
    return 1
}

install_chromium() {
    command -v apt-get >/dev/null 2>&1 || { echo "test.sh: no apt-get here, cannot install chromium" >&2; return 1; }
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "test.sh: not root and no sudo, cannot install chromium" >&2; return 1; }
        sudo=(sudo)
    fi
    echo "test.sh: no Chromium found; installing Debian's chromium package (for the HTML report check)" >&2
    # Wait for another apt/dpkg (e.g. unattended upgrades) rather than failing at once.
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update \
        && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 \
            install -y --no-install-recommends chromium
}

if [ -n "${CHROMIUM:-}" ]; then
    if ! chromium=$(command -v "$CHROMIUM" 2>/dev/null) || [ ! -x "$chromium" ]; then
        echo "test.sh: CHROMIUM=$CHROMIUM is not an executable; fix or unset it" >&2
        exit 1
    fi
elif ! chromium=$(find_chromium); then
    install_chromium || echo "test.sh: installing chromium failed" >&2
    chromium=$(find_chromium) || chromium=""
fi

if [ -n "$chromium" ]; then
    export CHROMIUM="$chromium"
    echo "test.sh: HTML report checks use CHROMIUM=$CHROMIUM" >&2
elif [ -n "${CI:-}" ] && [ "${CI}" != "false" ] && [ "${CI}" != "0" ]; then
    echo "test.sh: ERROR: no Chromium (chromium, chromium-browser, google-chrome) and it could not be installed;" >&2
    echo "test.sh: CI must check the HTML report in a browser, so this fails. Install one or set CHROMIUM." >&2
    exit 1
else
    cat >&2 <<'EOF'

************************************************************************************************
*  WARNING: no Chromium found and it could not be installed.                                   *
*  The HTML report's browser tests will be SKIPPED. Install chromium or set CHROMIUM=<path>.   *
*  (With CI=true this is an error.)                                                            *
************************************************************************************************

EOF
fi

exec cargo test --workspace --locked "$@"
