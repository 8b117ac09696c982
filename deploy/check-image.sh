#!/usr/bin/env bash
# Build the qbank image with buildah and check that it works, without a Docker daemon.
#
#   sudo deploy/check-image.sh            # build on a Debian base made with debootstrap (cached)
#   QBANK_IMAGE_BASE=python:3.11-slim sudo deploy/check-image.sh    # where a registry is reachable
#
# Needs root and Debian's buildah, debootstrap, iproute2 and docker-compose (for the schema). Each container runs with
# `buildah run --isolation chroot` (no OCI runtime, no cgroups) inside a network namespace of
# its own, so the image's port 8000 never meets the host's. What it checks: the image
# configuration (user, HEALTHCHECK, volume, port), that the server runs as the non-root user,
# /healthz, the schema at the newest migration, the bundled content served, the data volume
# kept across a restart, a mounted content directory replacing the bundled one, the
# HEALTHCHECK command passing while serving and failing once stopped, the security headers, the
# image size, and docker-compose.yml against the Compose schema.
#
# Settings (environment):
#   QBANK_IMAGE_BASE      base image (default: a Debian bookworm base built here, cached)
#   QBANK_IMAGE_CACHE     where the debootstrap base is kept (default /var/cache/qbank-image)
#   QBANK_IMAGE_TAG       the image to build (default localhost/qbank:check)
#   QBANK_IMAGE_CA        CA bundle handed to pip as a build secret, for a TLS-inspecting proxy
#                         (default /etc/ssl/certs/ca-certificates.crt, when it exists)
#   QBANK_IMAGE_NO_BINARY packages pip builds from source, e.g. pykatex (as on arm64)
#   QBANK_IMAGE_MAX_MB    largest acceptable image size in MB (default 450)
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${QBANK_IMAGE_CACHE:-/var/cache/qbank-image}
TAG=${QBANK_IMAGE_TAG:-localhost/qbank:check}
CA=${QBANK_IMAGE_CA:-/etc/ssl/certs/ca-certificates.crt}
MAX_MB=${QBANK_IMAGE_MAX_MB:-450}
DEBIAN_BASE=localhost/qbank-base:bookworm
MIRROR=${QBANK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
START_SECONDS=180  # the first start renders every formula of the bundled content

work=$(mktemp -d /tmp/qbank-check-image.XXXXXX)
containers=()
namespaces=()
failures=0

say() { printf '%s\n' "$*"; }
pass() { say "ok    $*"; }
fail() { say "FAIL  $*"; failures=$((failures + 1)); }
die() { say "error: $*" >&2; exit 1; }

cleanup() {
  local ns ctr
  for ns in "${namespaces[@]}"; do
    stop_server "$ns"
    ip netns delete "$ns" 2>/dev/null || true
  done
  for ctr in "${containers[@]}"; do buildah rm "$ctr" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || die "run as root: buildah's chroot isolation and network namespaces need it"
for tool in buildah ip python3; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install buildah iproute2 python3)"
done

# --- the base ---------------------------------------------------------------------------------
base=${QBANK_IMAGE_BASE:-}
if [ -z "$base" ]; then
  base=$DEBIAN_BASE
  if ! buildah inspect --type image "$base" >/dev/null 2>&1; then
    command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"
    if [ ! -x "$CACHE/rootfs/usr/bin/python3" ]; then
      say "making a Debian bookworm base with Python 3.11 in $CACHE/rootfs"
      rm -rf "$CACHE/rootfs.tmp" && mkdir -p "$CACHE"
      debootstrap --variant=minbase --include=python3,python3-venv \
        bookworm "$CACHE/rootfs.tmp" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
        || die "debootstrap failed; see $CACHE/debootstrap.log"
      chroot "$CACHE/rootfs.tmp" apt-get clean
      rm -rf "$CACHE/rootfs.tmp/var/lib/apt/lists/"*
      mv "$CACHE/rootfs.tmp" "$CACHE/rootfs"
    fi
    ctr=$(buildah from scratch)
    mnt=$(buildah mount "$ctr")
    tar -C "$CACHE/rootfs" -c . | tar -C "$mnt" -x
    buildah umount "$ctr" >/dev/null
    buildah config --cmd /bin/bash "$ctr"
    buildah commit --quiet --rm "$ctr" "$base" >/dev/null
  fi
fi
say "base: $base"

# --- the build --------------------------------------------------------------------------------
build=(buildah bud --isolation chroot --format docker --layers --build-arg "BASE=$base" -t "$TAG")
[ -f "$CA" ] && build+=(--secret "id=ca,src=$CA")
[ -n "${QBANK_IMAGE_NO_BINARY:-}" ] && build+=(--build-arg "PIP_NO_BINARY=$QBANK_IMAGE_NO_BINARY")
started=$(date +%s)
"${build[@]}" . >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; die "the build failed"; }
say "built $TAG in $(($(date +%s) - started)) s"
if [ -n "${QBANK_IMAGE_NO_BINARY:-}" ]; then
  if grep -q "Building wheel for ${QBANK_IMAGE_NO_BINARY}" "$work/build.log"; then
    pass "$QBANK_IMAGE_NO_BINARY built from its sdist in the build stage"
  elif grep -q "Using cache" "$work/build.log"; then
    say "note  the dependency layer came from the cache; remove $TAG's layers to rebuild it"
  else
    fail "$QBANK_IMAGE_NO_BINARY was not built from source"
  fi
fi

# --- the image's configuration ----------------------------------------------------------------
buildah inspect --type image "$TAG" >"$work/image.json"
read -r user healthcheck volume port <<<"$(python3 - "$work/image.json" <<'EOF'
import json, sys
image = json.load(open(sys.argv[1]))
config = image["Docker"]["config"]
test = (config.get("Healthcheck") or {}).get("Test") or []
print(
    config.get("User") or "-",
    "yes" if test[:1] == ["CMD"] else "no",
    "yes" if "/var/lib/qbank" in (config.get("Volumes") or {}) else "no",
    "yes" if "8000/tcp" in (config.get("ExposedPorts") or {}) else "no",
)
EOF
)"
size_mb=$(buildah images --noheading --format '{{.Size}}' "$TAG" | head -1)
[ "$user" = qbank ] && pass "runs as user qbank by default" || fail "image user is '$user'"
[ "$healthcheck" = yes ] && pass "HEALTHCHECK kept (docker format)" || fail "no HEALTHCHECK in image"
[ "$volume" = yes ] && pass "VOLUME /var/lib/qbank" || fail "no volume at /var/lib/qbank"
[ "$port" = yes ] && pass "EXPOSE 8000" || fail "port 8000 not exposed"
size_bytes=$(python3 -c "import sys; n, u = sys.argv[1], sys.argv[2]; print(int(float(n) * {'kB': 1e3, 'MB': 1e6, 'GB': 1e9}[u]))" $size_mb)
if [ "$size_bytes" -le $((MAX_MB * 1000000)) ]; then
  pass "image size $size_mb (at most $MAX_MB MB)"
else
  fail "image size $size_mb is over $MAX_MB MB"
fi

# --- running it -------------------------------------------------------------------------------
secret=$(python3 -c 'import secrets; print(secrets.token_urlsafe(48))')
mapfile -t command < <(python3 -c 'import json, sys; print(*json.load(open(sys.argv[1]))["Docker"]["config"]["Cmd"], sep="\n")' "$work/image.json")
mapfile -t probe < <(python3 -c 'import json, sys; print(*json.load(open(sys.argv[1]))["Docker"]["config"]["Healthcheck"]["Test"][1:], sep="\n")' "$work/image.json")

# new_container NAME: a container of the image with its own network namespace, without the
# image's VOLUME (the image keeps it). For a volume `buildah run` mounts a folder of its own unless
# a -v option mounts something there, and buildah before 1.29 (bookworm has 1.28) picks between
# the two with an unstable sort: with two -v options its empty folder was at /var/lib/qbank in
# about a third of the runs, and the server used a bank of its own (docs/deploy.md).
new_container() {
  local name=$1
  ip netns add "$name"
  namespaces+=("$name")
  ip netns exec "$name" ip link set lo up
  buildah from --name "$name" "$TAG" >/dev/null
  containers+=("$name")
  buildah config --volume /var/lib/qbank- "$name"
}

# uses_volume NAME DATA: whether the server in NAME has the host folder DATA at /var/lib/qbank.
uses_volume() {
  local pid root seen=0
  for pid in $(ip netns pids "$1"); do
    root=$(readlink "/proc/$pid/root" 2>/dev/null) || continue
    [ "$root" != / ] || continue  # buildah's own process, outside the chroot
    [ "$(stat -c %d:%i "/proc/$pid/root/var/lib/qbank")" = "$(stat -c %d:%i "$2")" ] || return 1
    seen=$((seen + 1))
  done
  [ "$seen" -gt 0 ]
}

# inside NAME [buildah run options] NAME -- COMMAND...: run a command in the container, in its namespace.
inside() {
  local name=$1
  shift
  ip netns exec "$name" buildah run --isolation chroot -e "QBANK_SECRET_KEY=$secret" "$@"
}

# start_server NAME DATA [MORE -v OPTIONS]: the image's own command, as `docker run` would run it.
start_server() {
  local name=$1 data=$2
  shift 2
  inside "$name" -v "$data:/var/lib/qbank" "$@" "$name" -- "${command[@]}" >>"$work/$name.log" 2>&1 &
  local deadline=$(($(date +%s) + START_SECONDS))
  until ip netns exec "$name" python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)" 2>/dev/null; do
    if [ "$(date +%s)" -gt "$deadline" ]; then
      tail -20 "$work/$name.log"
      return 1
    fi
    sleep 1
  done
}

stop_server() {
  local pids
  pids=$(ip netns pids "$1" 2>/dev/null || true)
  [ -n "$pids" ] || return 0
  kill $pids 2>/dev/null || true
  for _ in $(seq 50); do
    [ -z "$(ip netns pids "$1" 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  kill -9 $(ip netns pids "$1") 2>/dev/null || true
}

# http NAME decks|pages PASSWORD, or http NAME metrics N: ask the server in NAME over HTTP.
http() {
  local name=$1
  shift
  ip netns exec "$name" python3 - "$@" <<'EOF'
import http.cookiejar, json, sys, urllib.error, urllib.parse, urllib.request
jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
base = "http://127.0.0.1:8000"
def get(path):
    with opener.open(base + path, timeout=10) as answer:
        get.headers = answer.headers
        return answer.status, answer.headers.get("content-type", ""), answer.read()
def sign_in(name, password):
    data = urllib.parse.urlencode({"name": name, "password": password}).encode()
    opener.open(base + "/login", data=data, timeout=10).read()
what = sys.argv[1]
try:
    if what == "metrics":  # N GETs of /login, then each of 4 scrapes' count of them
        for _ in range(int(sys.argv[2])):
            urllib.request.urlopen(base + "/login", timeout=10).read()
        line = 'qbank_http_requests_total{method="GET",route="/login",status="200"} '
        for _ in range(4):
            _, _, body = get("/metrics")
            print(*(int(float(x[len(line):])) for x in body.decode().splitlines() if x.startswith(line)))
        sys.exit(0)
    sign_in("checker", sys.argv[2])
    if what == "decks":
        status, _, body = get("/api/decks")
        print(status, " ".join(sorted(d["slug"] for d in json.loads(body))))
    elif what == "pages":
        for path in ("/", "/static/app.css", "/static/katex/fonts/KaTeX_Main-Regular.woff2"):
            status, kind, _ = get(path)
            secured = "script-src 'self'" in get.headers.get("content-security-policy", "") and (
                get.headers.get("x-content-type-options") == "nosniff"
            )
            print(status, kind.split(";")[0], path, "headers-ok" if secured else "headers-missing")
except urllib.error.HTTPError as error:
    print(error.code, error.url)
EOF
}

# Names of this run's containers and network namespaces.
a=qbank-check-$$-a
b=qbank-check-$$-b
password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(16))')
data=$work/data
mkdir -p "$data"
# A named volume starts with the image's /var/lib/qbank, owned by qbank; a host folder must be too.
new_container "$a"
# Asked up to three times: once in nine runs here, buildah's chroot run printed nothing for an
# `id -u` that succeeded, and the empty uid left the folder to root.
uid=
for _ in 1 2 3; do
  uid=$(inside "$a" "$a" -- id -u) || true
  [[ "$uid" =~ ^[0-9]+$ ]] && break
  sleep 1
done
[[ "$uid" =~ ^[0-9]+$ ]] || die "the container did not say its uid (id -u printed '$uid')"
[ "$uid" != 0 ] && pass "commands run as uid $uid, not root" || fail "commands run as root"
chown "$uid" "$data"

if start_server "$a" "$data"; then
  pass "/healthz answers (first start: schema made, bundled content imported)"
else
  fail "the server did not answer /healthz within $START_SECONDS s"
  exit 1
fi
# The processes inside the container: those whose root is not the host's (buildah's own
# process, outside the chroot, stays root).
server_uids=$(for pid in $(ip netns pids "$a"); do
  [ "$(readlink "/proc/$pid/root")" != / ] && awk '/^Uid:/ {print $2}' "/proc/$pid/status"
done | sort -u | tr '\n' ' ')
server_uids=${server_uids% }
[ -n "$server_uids" ] && [[ " $server_uids " != *" 0 "* ]] && pass "the server process runs as uid $server_uids" \
  || fail "a server process runs as root (uids: $server_uids)"

revisions=$(inside "$a" -v "$data:/var/lib/qbank" "$a" -- python -c "
import sqlite3
from alembic.config import Config
from alembic.script import ScriptDirectory
from app.infra.migrate import MIGRATIONS
config = Config()
config.set_main_option('script_location', str(MIGRATIONS))
head = ScriptDirectory.from_config(config).get_current_head()
print(head, sqlite3.connect('/var/lib/qbank/qbank.db').execute('SELECT version_num FROM alembic_version').fetchone()[0])
" 2>&1 | tail -1)
read -r head current <<<"$revisions"
[ -n "$head" ] && [ "$head" = "${current:-}" ] && pass "schema at the newest migration, $head" \
  || fail "schema not at the newest migration: $revisions"
[ -f "$data/qbank.db" ] && pass "the database is on the volume ($data/qbank.db)" \
  || fail "no database on the volume"

echo "$password" | inside "$a" -v "$data:/var/lib/qbank" "$a" -- \
  qbank user add checker --admin --password-stdin >/dev/null
bundled=$(for f in content/decks/*.md; do sed -n 's/^slug: *//p' "$f" | head -1; done | sort | tr '\n' ' ')
bundled=${bundled% }
served=$(http "$a" decks "$password")
[ "$served" = "200 $bundled" ] && pass "the bundled decks are served: $bundled" \
  || fail "decks served: '$served', bundled: '$bundled'"
pages=$(http "$a" pages "$password")
say "$pages" | grep -qv "^200 .* headers-ok$" && fail "pages: $pages" \
  || pass "home page, CSS and KaTeX font served, with the security headers (CSP, nosniff)"

# As Docker does (--retries=3): healthy once a probe passes. A probe can fail to start at all
# ("Close_Fd sealing memfd copy: Device or resource busy": buildah starting a second process in
# a running container), which says nothing of the server.
probed=no
for _ in 1 2 3; do
  if inside "$a" "$a" -- "${probe[@]}"; then probed=yes; break; fi
  sleep 1
done
[ "$probed" = yes ] && pass "HEALTHCHECK command passes while serving" \
  || fail "HEALTHCHECK command fails while serving (3 probes)"
stop_server "$a"
if inside "$a" "$a" -- "${probe[@]}" 2>/dev/null; then
  fail "HEALTHCHECK command passes with the server stopped"
else
  pass "HEALTHCHECK command fails once the server has stopped"
fi

# The same volume again: the bank and the account are still there, nothing is imported again.
: >"$work/"$a".log"
start_server "$a" "$data" || fail "the server did not start again on its volume"
if grep -q "imported" "$work/"$a".log"; then
  fail "the restarted server imported the content again"
else
  pass "restarted on the same volume: the bank was kept (no new import)"
fi
[ "$(http "$a" decks "$password")" = "200 $bundled" ] \
  && pass "the account made before the restart signs in" || fail "the account was lost"
stop_server "$a"

# Two workers, as docker-compose.yml runs them: every scrape adds up both workers' counters.
single=("${command[@]}")
command+=(--workers 2)
: >"$work/$a.log"
start_server "$a" "$data" || fail "the server did not start with --workers 2"
# /healthz answers as soon as one worker serves; each worker builds the app first, and the second
# was still at it when the workers were counted once here. Both are waited for, before the scrapes.
deadline=$(($(date +%s) + START_SECONDS))
until [ "$(grep -c "Application startup complete" "$work/$a.log" || true)" -ge 2 ] \
  || [ "$(date +%s)" -gt "$deadline" ]; do
  sleep 1
done
workers=$(grep -c "Started server process" "$work/$a.log" || true)
[ "$workers" -ge 2 ] && pass "--workers 2: $workers worker processes started" \
  || fail "--workers 2: $workers worker processes started"
scrapes=$(http "$a" metrics 20 | tr '\n' ' ')
[ "$scrapes" = "20 20 20 20 " ] && pass "--workers 2: each of 4 scrapes counts all 20 requests" \
  || fail "--workers 2: the scrapes counted '$scrapes' of 20 requests"
stop_server "$a"
command=("${single[@]}")

# A content directory mounted over the bundled one, on a fresh volume.
mkdir -p "$work/content/decks" "$work/data-own"
cat >"$work/content/decks/own.md" <<'EOF'
---
title: Own deck
slug: own-deck
language: en
---

## 1. What replaces the bundled content? {#own-card}

**Answer.** A content directory mounted at /srv/qbank/content.
EOF
chmod -R a+rX "$work/content"
chown "$uid" "$work/data-own"
new_container "$b"
# The account first, as an operator would before the first start.
echo "$password" | inside "$b" -v "$work/data-own:/var/lib/qbank" "$b" -- \
  qbank user add checker --admin --password-stdin >/dev/null
start_server "$b" "$work/data-own" -v "$work/content:/srv/qbank/content:ro" \
  || fail "the server did not start with a mounted content directory"
uses_volume "$b" "$work/data-own" \
  && pass "with two mounts, the server's /var/lib/qbank is the mounted data folder" \
  || fail "with two mounts, the server's /var/lib/qbank is not the mounted data folder"
own=$(http "$b" decks "$password")
if [ "$own" = "200 own-deck" ]; then
  pass "a mounted content directory replaces the bundled decks"
else
  fail "with mounted content, decks served: '$own'; the server's log:"
  tail -5 "$work/$b.log"
fi
stop_server "$b"

# docker-compose.yml, checked against the Compose schema (neither needs a daemon).
compose=()
if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null; then
  compose=(docker-compose)
fi
if [ ${#compose[@]} -eq 0 ]; then
  fail "no docker compose or docker-compose to validate docker-compose.yml (apt-get install docker-compose)"
elif POSTGRES_PASSWORD=check QBANK_SECRET_KEY=$secret "${compose[@]}" -f docker-compose.yml config -q; then
  pass "docker-compose.yml is valid (${compose[*]} config)"
else
  fail "docker-compose.yml is not valid"
fi

if [ "$failures" -gt 0 ]; then
  say "$failures check(s) failed"
  exit 1
fi
say "all checks passed: $TAG on $base, $(uname -m)"
