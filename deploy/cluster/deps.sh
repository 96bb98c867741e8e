# shellcheck shell=bash
# The machine's packages the cluster needs, from Debian: podman and buildah (images; rootful, native overlay, runc),
# containerd and runc (the node's runtime), the CNI plugins (bridge, host-local, loopback), etcd, debootstrap (the
# Node base image), iptables and conntrack (kube-proxy), ipset (kube-router's NetworkPolicies); openssl, curl and
# envsubst (gettext-base) for the scripts themselves. Sourced by cluster.sh.

CLUSTER_PACKAGES="podman buildah containerd runc containernetworking-plugins etcd-server debootstrap iptables conntrack
ipset openssl curl gettext-base"

install_deps() {
  local missing=() pkg
  for pkg in $CLUSTER_PACKAGES; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if ((${#missing[@]} == 0)); then
    note "all present: $CLUSTER_PACKAGES"
    return 0
  fi
  note "installing ${missing[*]}"
  # Package scripts must not start services of their own (etcd on 2379, containerd on its default socket): a
  # policy-rc.d refusing every start, for the length of this install, unless the machine already has one.
  local policy=/usr/sbin/policy-rc.d own_policy=false
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=true
  fi
  local rc=0
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    -o DPkg::Lock::Timeout=600 "${missing[@]}"; } || rc=$?
  if $own_policy; then rm -f "$policy"; fi
  return "$rc"
}
