#!/usr/bin/env bash
# Installs Debian's chromium (and the Liberation fonts the HTML report asks
# for first) when this host has no Chromium: the unit tests open
# rdma-bench's HTML report in it, headless, and `make test` runs them with
# RDMA_BENCH_REQUIRE_BROWSER=1, so that a missing browser fails them rather
# than skipping. Needs root or sudo to install.
set -euo pipefail
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null || [ -x /usr/bin/chromium ]; then
	exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "browser.sh: installing chromium needs root or sudo" >&2; exit 1; }
	sudo=sudo
fi
echo "installing chromium fonts-liberation (the HTML report's browser test)"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
