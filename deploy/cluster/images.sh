# shellcheck shell=bash
# Images, built with Debian's podman and buildah (rootful, native overlay, runc) and no registry:
#   - the Node base image: what the official node:20-bookworm-slim image holds (Debian bookworm, node and npm under
#     /usr/local, the `node` user 1000:1000), made from `debootstrap --variant=minbase bookworm` and this host's Node 20,
#     because no image registry is reachable here. It carries the host's CA bundle (NODE_EXTRA_CA_CERTS): package
#     registries are reached through a proxy whose certificate only the host trusts.
#   - the platform image: deploy/docker/Dockerfile as committed, on that base (`--build-arg NODE_IMAGE`).
#   - the system images (pause, CoreDNS, metrics-server): one static binary each, from scratch.
# Each is saved as an archive under $STATE/images for `ctr images import` (node.sh). Sourced by cluster.sh and by
# deploy/check-images.sh.

NODE_VERSION="$(node --version)"
NODE_BASE_TAG="$NODE_BASE_IMAGE:${NODE_VERSION#v}-bookworm-slim"
PAUSE_IMAGE="localhost/pause:3.10"

# podman's and buildah's own configuration files (CONTAINERS_CONF / CONTAINERS_STORAGE_CONF, set in lib.sh).
configure_podman() {
  mkdir -p "$(dirname "$CONTAINERS_CONF")"
  cat >"$CONTAINERS_CONF.tmp" <<EOF
# Written by deploy/cluster/images.sh.
[containers]
# The sandbox cannot raise rlimits (no CAP_SYS_RESOURCE, "error setting rlimit type 7"/"type 6"): the file limit as
# it is, and a process limit below the host's (the container runtime's own is lower than the shell's).
default_ulimits = ["nofile=$(ulimit -Sn):$(ulimit -Hn)", "nproc=4096:4096"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
EOF
  mv "$CONTAINERS_CONF.tmp" "$CONTAINERS_CONF"
  cat >"$CONTAINERS_STORAGE_CONF.tmp" <<EOF
# Written by deploy/cluster/images.sh.
[storage]
driver = "overlay"
graphroot = "$CACHE/containers/storage"
runroot = "/run/crm-containers"
EOF
  mv "$CONTAINERS_STORAGE_CONF.tmp" "$CONTAINERS_STORAGE_CONF"
}

# A Debian bookworm minbase root filesystem, made once and kept as a tarball in the cache.
debootstrap_rootfs() {
  local tar="$CACHE/debootstrap-bookworm-minbase/rootfs.tar"
  if [[ -f "$tar" ]]; then echo "$tar"; return; fi
  local work
  work="$(mktemp -d "$CACHE/.debootstrap.XXXXXX")"
  # debootstrap mounts /proc and /sys inside the target while it runs; never leave them behind.
  # shellcheck disable=SC2064 # $work is known now; the trap removes itself once it ran
  trap "umount -R '$work/rootfs/proc' '$work/rootfs/sys' 2>/dev/null || true; rm -rf '$work'; trap - RETURN" RETURN
  debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >&2
  rm -rf "$work/rootfs"/var/lib/apt/lists/* "$work/rootfs"/var/cache/apt/*.bin "$work/rootfs"/var/cache/apt/archives/*.deb
  mkdir -p "$(dirname "$tar")"
  tar -C "$work/rootfs" -cf "$tar.tmp" .
  mv "$tar.tmp" "$tar"
  echo "$tar"
}

build_base_image() {
  configure_podman
  if podman image exists "$NODE_BASE_TAG"; then
    note "reused $NODE_BASE_TAG"
    return 0
  fi
  local rootfs_tar work
  rootfs_tar="$(debootstrap_rootfs)"
  work="$(mktemp -d "$CACHE/.node-base.XXXXXX")"
  # shellcheck disable=SC2064 # $work is known now; the trap removes itself once it ran
  trap "rm -rf '$work'; trap - RETURN" RETURN
  mkdir "$work/rootfs"
  tar -C "$work/rootfs" -xf "$rootfs_tar"
  local r="$work/rootfs" node_home
  node_home="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
  # The official image's layout: node, npm, npx and corepack under /usr/local, headers in /usr/local/include/node.
  install -D -m 0755 "$(readlink -f "$(command -v node)")" "$r/usr/local/bin/node"
  mkdir -p "$r/usr/local/lib/node_modules" "$r/usr/local/include"
  cp -a "$node_home/lib/node_modules/npm" "$node_home/lib/node_modules/corepack" "$r/usr/local/lib/node_modules/"
  if [[ -d "$node_home/include/node" ]]; then cp -a "$node_home/include/node" "$r/usr/local/include/"; fi
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$r/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$r/usr/local/bin/npx"
  ln -s ../lib/node_modules/corepack/dist/corepack.js "$r/usr/local/bin/corepack"
  chroot "$r" groupadd --gid 1000 node
  chroot "$r" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$r/etc/ssl/certs/ca-certificates.crt"
  chroot "$r" node --version >/dev/null
  tar -C "$r" -c . | podman import \
    --change "ENV NODE_VERSION=${NODE_VERSION#v}" \
    --change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" \
    --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change 'CMD ["node"]' - "$NODE_BASE_TAG" >/dev/null
  note "built $NODE_BASE_TAG ($(podman image inspect --format '{{.Size}}' "$NODE_BASE_TAG" | numfmt --to=iec) )"
}

# build_app_image: the Dockerfile's default target (the chart's image), tagged by content; prints the tag.
# --format docker keeps HEALTHCHECK (OCI image configs have none); --network host: the build's RUN steps reach the
# package registries as the host does, and podman makes no network (no bridge, no iptables rules) of its own.
build_app_image() {
  configure_podman
  # A failed build must stop here: tagging "$APP_IMAGE:build" then would ship the last image that did build.
  podman build --format docker --network host --build-arg "NODE_IMAGE=$NODE_BASE_TAG" \
    -f "$REPO_ROOT/deploy/docker/Dockerfile" -t "$APP_IMAGE:build" "$REPO_ROOT" >&2 || return 1
  local id
  id="$(podman image inspect --format '{{.Id}}' "$APP_IMAGE:build")"
  podman tag "$APP_IMAGE:build" "$APP_IMAGE:${id:0:12}"
  echo "${id:0:12}"
}

# scratch_image <image> <binary> [entrypoint args...]: an image holding only the static binary, run as 65534.
scratch_image() {
  local image="$1" binary="$2" container
  shift 2
  if podman image exists "$image"; then return 0; fi
  local entrypoint="[\"/$(basename "$binary")\"" arg
  for arg in "$@"; do entrypoint+=", \"$arg\""; done
  container="$(buildah from scratch)"
  buildah copy --chmod 0755 "$container" "$binary" "/$(basename "$binary")" >/dev/null
  buildah config --entrypoint "$entrypoint]" --user 65534:65534 "$container"
  buildah commit --rm "$container" "$image" >/dev/null
}

# save_image <image> <archive name>: a docker archive for containerd (it keeps the full image name), rewritten only when the image changed.
save_image() {
  local image="$1" archive="$STATE/images/$2.tar" id
  mkdir -p "$STATE/images"
  id="$(podman image inspect --format '{{.Id}}' "$image")"
  if [[ -f "$archive" && "$(cat "$archive.id" 2>/dev/null)" == "$id" ]]; then return 0; fi
  rm -f "$archive"
  podman save --format docker-archive -o "$archive" "$image"
  echo "$id" >"$archive.id"
}

build_images() {
  local tag started=$SECONDS
  tag="$(build_app_image)"
  echo "$tag" >"$STATE/app-image-tag"
  note "$APP_IMAGE:$tag built in $((SECONDS - started)) s ($(podman image inspect --format '{{.Size}}' "$APP_IMAGE:$tag" | numfmt --to=iec))"
  scratch_image "$PAUSE_IMAGE" "$KUBE_BIN/pause"
  scratch_image "localhost/coredns:$COREDNS_VERSION" "$CACHE/coredns-$COREDNS_VERSION/bin/coredns"
  scratch_image "localhost/metrics-server:$METRICS_SERVER_VERSION" "$CACHE/metrics-server-$METRICS_SERVER_VERSION/bin/metrics-server"
  save_image "$APP_IMAGE:$tag" platform
  save_image "$NODE_BASE_TAG" node-base
  save_image "$PAUSE_IMAGE" pause
  save_image "localhost/coredns:$COREDNS_VERSION" coredns
  save_image "localhost/metrics-server:$METRICS_SERVER_VERSION" metrics-server
}
