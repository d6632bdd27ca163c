# Shared by scripts/test, scripts/bench and scripts/demo: find (or install) PostgreSQL's server
# binaries and run a disposable cluster in a temporary directory.
#
#   pg_find_bin            sets PG_BIN (the directory holding initdb, pg_ctl, postgres)
#   pg_start_cluster DIR   initdb + pg_ctl start on a socket in DIR (and 127.0.0.1:$PG_PORT)
#                          sets DATABASE_URL to the cluster's `postgres` database
#   pg_stop_cluster        stops it and removes DIR

pg_find_bin() {
    local c
    for c in "${PG_BIN:-}" "$(command -v pg_config >/dev/null 2>&1 && pg_config --bindir)" \
             $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) \
             "$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")"; do
        if [ -n "$c" ] && [ -x "$c/initdb" ] && [ -x "$c/pg_ctl" ]; then
            PG_BIN="$c"
            export PG_BIN
            return 0
        fi
    done
    return 1
}

pg_install() {
    if pg_find_bin; then return 0; fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "PostgreSQL server binaries not found; installing Debian's postgresql package" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
        pg_find_bin && return 0
    fi
    echo "error: PostgreSQL server binaries (initdb, pg_ctl) not found." >&2
    echo "hint: install them (Debian/Ubuntu: apt-get install postgresql) or set DATABASE_URL to a server you own" >&2
    return 1
}

# Run a command as the cluster's owner: root may not run PostgreSQL.
pg_as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u "$PG_OWNER" -- "$@"
    else
        "$@"
    fi
}

pg_free_port() {
    python3 - <<'PY' 2>/dev/null || echo $((20000 + RANDOM % 20000))
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
PY
}

pg_start_cluster() {
    PG_DIR="$1"
    pg_install || return 1
    PG_OWNER="$(id -un)"
    if [ "$(id -u)" = 0 ]; then
        PG_OWNER=postgres
        id -u postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    fi
    mkdir -p "$PG_DIR/data" "$PG_DIR/sock"
    chown -R "$PG_OWNER" "$PG_DIR" 2>/dev/null || true
    chmod 700 "$PG_DIR/data"
    PG_PORT="${PG_PORT:-$(pg_free_port)}"
    pg_as_owner "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres -A trust --no-sync -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 \
        || { cat "$PG_DIR/initdb.log" >&2; return 1; }
    cat >>"$PG_DIR/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_DIR/sock'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 400
shared_buffers = 256MB
log_min_messages = warning
CONF
    pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 start >/dev/null \
        || { cat "$PG_DIR/server.log" >&2; return 1; }
    DATABASE_URL="postgresql://postgres@127.0.0.1:$PG_PORT/postgres"
    export DATABASE_URL PG_DIR PG_PORT PG_OWNER
}

pg_stop_cluster() {
    if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/data" ]; then
        pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
        rm -rf "$PG_DIR"
    fi
}
