#!/bin/sh
# Installs whatever capstan needs and is missing, then builds. Safe to run again: it only
# does work when something is absent or out of date.
set -e
cd "$(dirname "$0")/.."

# Debian packages the cluster, the native addon and the test suite rely on (systemd ships
# systemd-analyze, which test/systemd uses; file ships file(1), which test/cri/images uses;
# docker-registry, skopeo and apache2-utils' htpasswd serve test/kubelet/image-pull).
PACKAGES="iproute2 nftables iptables libmnl-dev libnftnl-dev etcd-server etcd-client
  iputils-ping conntrack g++ make python3 python3-kubernetes openssl systemd
  containerd runc containernetworking-plugins busybox-static gcc libc6-dev
  dnsutils dnsperf dnsmasq-base iperf3 ethtool file
  docker-registry skopeo apache2-utils chromium"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "capstan setup: installing Debian packages:$missing"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
    $SUDO apt-get update >/dev/null
    $SUDO apt-get install -y --no-install-recommends $missing >/dev/null
  }
  # The tests start their own registries (test/helpers/registry.ts); the package's service
  # would listen on :5000 on every interface.
  case "$missing" in *docker-registry*) $SUDO systemctl disable --now docker-registry >/dev/null 2>&1 || true ;; esac
fi

# npm dependencies (this also builds the native addon through binding.gyp).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "capstan setup: installing npm dependencies"
  npm ci --no-audit --no-fund >/dev/null
fi
# Rebuilt when missing or older than any of its sources (node-gyp rebuild empties build/, so
# the CNI plugin below is rebuilt after it).
if [ -f binding.gyp ] && { [ ! -f build/Release/capstan.node ] || [ -n "$(find binding.gyp native -newer build/Release/capstan.node 2>/dev/null | head -n 1)" ]; }; then
  echo "capstan setup: building the native addon"
  npx --no-install node-gyp rebuild >/dev/null
fi

# The thin CNI plugin (a static C client of the network agent; containerd execs it per pod).
if [ ! -x build/cni/capstan ] || [ cni/capstan-cni.c -nt build/cni/capstan ]; then
  echo "capstan setup: building the CNI plugin"
  mkdir -p build/cni
  gcc -static -Os -s -o build/cni/capstan.tmp cni/capstan-cni.c && mv build/cni/capstan.tmp build/cni/capstan
fi

# TypeScript, incrementally.
node_modules/.bin/tsc -p tsconfig.json
