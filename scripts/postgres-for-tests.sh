#!/usr/bin/env bash
# A throwaway PostgreSQL 15 + pgvector on 127.0.0.1 for engramdb's tests and benchmarks.
#
#   scripts/postgres-for-tests.sh install        # root: apt-get the server, build pgvector if needed
#   scripts/postgres-for-tests.sh check          # exit 0 when the binaries and pgvector are there
#   scripts/postgres-for-tests.sh start DIR [PORT]   # new cluster in DIR; prints its URL last
#   scripts/postgres-for-tests.sh stop DIR       # stop it and delete DIR
#   scripts/postgres-for-tests.sh run -- CMD...  # start, run CMD with ENGRAMDB_TEST_POSTGRES_URL
#                                                # set, stop (whatever CMD's outcome)
#
# `install` is what CI runs before the test suite (.ci/run). Debian bookworm ships PostgreSQL 15
# but no pgvector binary package, so unless one is installable (`apt-cache policy`, e.g. on a
# newer Debian or with the PGDG repository configured) pgvector 0.8.0 is built from Debian
# trixie's source package: its source index is fetched into a private temporary apt state (the
# machine's own apt sources are not touched), `apt-get source` downloads and verifies the
# package, then `make` and `make install` against postgresql-server-dev-15.
#
# `start` makes a cluster that lives only for the test run: password authentication on
# 127.0.0.1 (random password, in the printed URL), no Unix socket, durability switched off
# (fsync, full_page_writes, synchronous_commit: a crash of the *server* may lose it, which is fine
# for a throwaway cluster; client crashes, which the tests make, are unaffected). PostgreSQL
# refuses to run as root, so under root the cluster runs as the `postgres` system user (created
# by Debian's packages), falling back to `nobody`.
#
# Environment: ENGRAMDB_PG_BIN (directory of initdb/pg_ctl; default: the newest
# /usr/lib/postgresql/*/bin), ENGRAMDB_PG_MAJOR for `install` (default 15),
# ENGRAMDB_PGVECTOR_SUITE (the Debian suite whose source is built, default trixie).
set -euo pipefail

PG_MAJOR="${ENGRAMDB_PG_MAJOR:-15}"
PGVECTOR_SUITE="${ENGRAMDB_PGVECTOR_SUITE:-trixie}"

log() { printf '[postgres-for-tests] %s\n' "$*" >&2; }
die() {
    log "error: $*"
    exit 1
}

pg_bin() {
    if [ -n "${ENGRAMDB_PG_BIN:-}" ]; then
        echo "$ENGRAMDB_PG_BIN"
        return
    fi
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    [ -n "$dir" ] || dir="$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")"
    echo "$dir"
}

# The extension directory of the server in $1 (Debian layout first, then pg_config).
extension_dir() {
    local bin="$1" major
    major="$("$bin/postgres" --version | sed -E 's/[^0-9]*([0-9]+).*/\1/')"
    if [ -d "/usr/share/postgresql/$major/extension" ]; then
        echo "/usr/share/postgresql/$major/extension"
    elif [ -x "$bin/pg_config" ]; then
        echo "$("$bin/pg_config" --sharedir)/extension"
    else
        echo "/usr/share/postgresql/$major/extension"
    fi
}

cmd_check() {
    local bin
    bin="$(pg_bin)"
    [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] || {
        log "no PostgreSQL server binaries (looked in ${bin:-/usr/lib/postgresql/*/bin}); run: sudo $0 install"
        return 1
    }
    [ -f "$(extension_dir "$bin")/vector.control" ] || {
        log "PostgreSQL found in $bin but pgvector is not installed; run: sudo $0 install"
        return 1
    }
    echo "$bin"
}

# --- install -------------------------------------------------------------------------------------

apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

build_pgvector_from_source() {
    local work apt_state opts
    work="$(mktemp -d /tmp/engramdb-pgvector.XXXXXX)"
    BUILD_DIR="$work"
    trap 'rm -rf "$BUILD_DIR"' EXIT
    apt_state="$work/apt"
    mkdir -p "$apt_state/lists/partial" "$apt_state/cache/archives/partial" "$apt_state/parts"
    cat >"$apt_state/parts/source.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $PGVECTOR_SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    # A private apt state: only this source index, kept in $work and deleted afterwards.
    opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_state/parts"
        -o "Dir::State::Lists=$apt_state/lists" -o "Dir::Cache=$apt_state/cache"
        -o "APT::Sandbox::User=root")
    log "building pgvector from Debian $PGVECTOR_SUITE's source package"
    apt_install "postgresql-server-dev-$PG_MAJOR" dpkg-dev make gcc
    apt-get "${opts[@]}" update -qq >/dev/null
    (cd "$work" && apt-get "${opts[@]}" source -qq --download-only pgvector >/dev/null)
    local dsc
    dsc="$(ls "$work"/pgvector_*.dsc | head -n 1)"
    dpkg-source -x "$dsc" "$work/src" >/dev/null
    local pg_config="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
    make -s -C "$work/src" -j "$(nproc)" PG_CONFIG="$pg_config" >/dev/null
    make -s -C "$work/src" install PG_CONFIG="$pg_config" >/dev/null
    log "pgvector $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$work/src/vector.control") installed"
}

cmd_install() {
    local started=$SECONDS
    if [ "$(id -u)" != 0 ]; then
        cmd_check >/dev/null && return 0
        die "installing PostgreSQL/pgvector needs root (apt-get); run: sudo $0 install"
    fi
    command -v apt-get >/dev/null || die "no apt-get: install PostgreSQL $PG_MAJOR and pgvector yourself"
    local updated=0
    if [ ! -x "/usr/lib/postgresql/$PG_MAJOR/bin/initdb" ]; then
        log "installing postgresql-$PG_MAJOR"
        apt-get update -qq >/dev/null
        updated=1
        apt_install "postgresql-$PG_MAJOR"
    fi
    if [ ! -f "/usr/share/postgresql/$PG_MAJOR/extension/vector.control" ]; then
        [ "$updated" = 1 ] || apt-get update -qq >/dev/null
        local candidate
        candidate="$(apt-cache policy "postgresql-$PG_MAJOR-pgvector" 2>/dev/null |
            sed -n 's/^ *Candidate: *//p')"
        if [ -n "$candidate" ] && [ "$candidate" != "(none)" ]; then
            log "installing postgresql-$PG_MAJOR-pgvector $candidate"
            apt_install "postgresql-$PG_MAJOR-pgvector"
        else
            build_pgvector_from_source
        fi
    fi
    ENGRAMDB_PG_BIN="/usr/lib/postgresql/$PG_MAJOR/bin" cmd_check >/dev/null
    log "PostgreSQL $PG_MAJOR with pgvector ready ($((SECONDS - started)) s)"
}

# --- start / stop ----------------------------------------------------------------------------------

run_as() {
    # Run "$@" as the cluster's owner ($OWNER; empty: ourselves).
    if [ -n "$OWNER" ]; then
        runuser -u "$OWNER" -- "$@"
    else
        "$@"
    fi
}

choose_owner() {
    OWNER=""
    if [ "$(id -u)" = 0 ]; then
        if id -u postgres >/dev/null 2>&1; then OWNER=postgres; else OWNER=nobody; fi
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd_start() {
    local dir="${1:?usage: start DIR [PORT]}" port="${2:-}" bin
    bin="$(cmd_check)" || exit 1
    [ -n "$port" ] || port="$(free_port)"
    choose_owner
    mkdir -p "$dir"
    [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
    local password
    password="$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
    printf '%s\n' "$password" >"$dir/.pwfile"
    chmod 600 "$dir/.pwfile"
    if [ -n "$OWNER" ]; then
        chown -R "$OWNER" "$dir"
        chmod 700 "$dir"
    fi
    run_as "$bin/initdb" -D "$dir/data" -U engramdb --pwfile="$dir/.pwfile" \
        --auth=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
        die "initdb failed: $(tail -n 5 "$dir/initdb.log")"
    rm -f "$dir/.pwfile"
    cat >>"$dir/data/postgresql.conf" <<EOF
# engramdb throwaway test cluster
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = ''
max_connections = 300
shared_buffers = 256MB
fsync = off
full_page_writes = off
synchronous_commit = off
max_wal_size = 2GB
EOF
    run_as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null ||
        die "the server did not start: $(tail -n 5 "$dir/server.log" 2>/dev/null)"
    echo "postgresql://engramdb:$password@127.0.0.1:$port/postgres"
}

cmd_stop() {
    local dir="${1:?usage: stop DIR}" bin
    bin="$(pg_bin)"
    choose_owner
    if [ -f "$dir/data/postmaster.pid" ]; then
        run_as "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 ||
            log "pg_ctl stop failed; see $dir/server.log"
    fi
    rm -rf "$dir"
}

cmd_run() {
    [ "${1:-}" = "--" ] && shift
    [ $# -gt 0 ] || die "usage: run -- CMD..."
    local dir url status=0
    dir="$(mktemp -d /tmp/engramdb-pg.XXXXXX)"
    trap 'cmd_stop "$dir"' EXIT
    url="$(cmd_start "$dir")"
    log "PostgreSQL running at ${url/:*@/:***@}"
    ENGRAMDB_TEST_POSTGRES_URL="$url" "$@" || status=$?
    return "$status"
}

case "${1:-}" in
install) cmd_install ;;
check) cmd_check >/dev/null ;;
start) shift && cmd_start "$@" ;;
stop) shift && cmd_stop "$@" ;;
run) shift && cmd_run "$@" ;;
*)
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
