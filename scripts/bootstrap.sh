#!/usr/bin/env bash
# Installs every Debian package that silt's build and tests need.
# Safe to run any number of times: it installs only what is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config python3 python3-venv
  libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libbrotli-dev
  libcjson-dev libroaring-dev libreadline-dev libmicrohttpd-dev
  libcurl4-openssl-dev libssl-dev
  clang libclang-rt-14-dev valgrind
  openjdk-17-jre-headless maven
  # silt serve: psql for tests/server, openssl for their certificate, PostgreSQL for bench/server_bench.py
  postgresql-client-15 openssl postgresql-15
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# A JDK may already be present outside Debian's packages (the machine image
# ships one); Spark only needs `java` on PATH.
if command -v java >/dev/null 2>&1; then
  filtered=()
  for pkg in "${missing[@]}"; do
    [ "$pkg" = openjdk-17-jre-headless ] || filtered+=("$pkg")
  done
  missing=("${filtered[@]}")
fi
if command -v mvn >/dev/null 2>&1; then
  filtered=()
  for pkg in "${missing[@]}"; do
    [ "$pkg" = maven ] || filtered+=("$pkg")
  done
  missing=("${filtered[@]}")
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
