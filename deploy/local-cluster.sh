#!/usr/bin/env bash
# local-cluster.sh: Loyalty's production topology on one machine, to try
# and to test. From Debian packages (PostgreSQL 15, pgbouncer, HAProxy):
#
#   PostgreSQL primary      127.0.0.1:BASE      synchronous streaming replication
#   PostgreSQL hot standby  127.0.0.1:BASE+1    (pg_basebackup -R)
#   pgbouncer, transaction pooling, one per PostgreSQL node:
#                           127.0.0.1:BASE+2 -> primary, BASE+3 -> standby
#   loyalty serve x3        127.0.0.1:BASE+11..BASE+13, sharing PostgreSQL
#                           and Redis (rate limits)
#   HAProxy                 https://127.0.0.1:BASE+10 -> the three instances
#                           (TLS ends here, with a self-signed certificate)
#
# The instances reach PostgreSQL through both pgbouncers with a multi-host
# URL and target_session_attrs=read-write, so after a failover they connect
# to whichever node accepts writes; pgx runs in exec mode (unnamed
# statements), as transaction pooling needs. Their LISTEN connection goes
# to PostgreSQL directly (--db-listen), since it holds a session.
#
# Usage:
#   deploy/local-cluster.sh up        start everything (installs the packages if missing)
#   deploy/local-cluster.sh status    what runs, which node is primary
#   deploy/local-cluster.sh failover  crash the primary (immediate stop), promote the standby
#   deploy/local-cluster.sh down      stop everything and delete the directory
#
# Settings (environment):
#   LOYALTY_CLUSTER_DIR   where the clusters, configs and logs live (/tmp/loyalty-cluster)
#   LOYALTY_CLUSTER_PORT  BASE of the ports above (25400)
#   LOYALTY_BIN           the loyalty binary (default: go build ./cmd/loyalty)
#   LOYALTY_REDIS         redis:// URL shared by the instances (redis://127.0.0.1:6379/0)
#
# "up" writes $LOYALTY_CLUSTER_DIR/cluster.env with the addresses (URL,
# CA_CERT, DB, DB_LISTEN, DB_DIRECT, DATA_DIR, INSTANCES) for scripts and
# tests to read.
# PostgreSQL runs as the postgres user (it refuses root) with fsync off:
# this is a test bed, not a durable deployment.
set -euo pipefail

DIR=${LOYALTY_CLUSTER_DIR:-/tmp/loyalty-cluster}
BASE=${LOYALTY_CLUSTER_PORT:-25400}
REDIS=${LOYALTY_REDIS:-redis://127.0.0.1:6379/0}
PG1=$BASE PG2=$((BASE + 1)) BOUNCER1=$((BASE + 2)) BOUNCER2=$((BASE + 3)) HTTP=$((BASE + 10))
INSTANCES=(1 2 3)
DBNAME=loyalty
REPO=$(cd "$(dirname "$0")/.." && pwd)

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'local-cluster: %s\n' "$*" >&2; exit 1; }

pgbin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
  [ -n "$d" ] || die "PostgreSQL server binaries not found (apt-get install postgresql)"
  echo "$d"
}

# as_postgres runs a command as the postgres user (PostgreSQL refuses root).
as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

ensure_packages() {
  local missing=()
  command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
  command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "missing ${missing[*]}: apt-get install ${missing[*]} (as root)"
    log "installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  # Debian starts the packaged services by itself on some machines; this
  # topology runs its own copies on private ports.
  export PATH="$PATH:/usr/sbin"
}

wait_for() { # wait_for WHAT SECONDS COMMAND...
  local what=$1 secs=$2
  shift 2
  for _ in $(seq 1 $((secs * 10))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  die "$what did not come up within ${secs}s"
}

psql_at() { # psql_at PORT SQL
  as_postgres "$(pgbin)/psql" -h 127.0.0.1 -p "$1" -U postgres -d postgres -Atqc "$2"
}

start_postgres() {
  local bin
  bin=$(pgbin)
  log "PostgreSQL primary on $PG1"
  as_postgres "$bin/initdb" -D "$DIR/pg1" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  cat >>"$DIR/pg1/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PG1
unix_socket_directories = '$DIR'
fsync = off
full_page_writes = off
max_connections = 200
wal_level = replica
max_wal_senders = 5
hot_standby = on
cluster_name = 'primary'
EOF
  echo "host replication postgres 127.0.0.1/32 trust" >>"$DIR/pg1/pg_hba.conf"
  as_postgres "$bin/pg_ctl" -D "$DIR/pg1" -l "$DIR/pg1.log" -w start >/dev/null
  as_postgres "$bin/createdb" -h 127.0.0.1 -p "$PG1" -U postgres "$DBNAME"

  log "PostgreSQL hot standby on $PG2 (pg_basebackup -R)"
  as_postgres "$bin/pg_basebackup" -h 127.0.0.1 -p "$PG1" -U postgres -D "$DIR/pg2" -R -X stream -c fast
  cat >>"$DIR/pg2/postgresql.conf" <<EOF
port = $PG2
cluster_name = 'standby'
EOF
  as_postgres "$bin/pg_ctl" -D "$DIR/pg2" -l "$DIR/pg2.log" -w start >/dev/null
  # From now on a commit is acknowledged once the standby has it too, so a
  # failover loses no acknowledged write. Set on the primary alone, after
  # the copy: the standby, once promoted, has no standby to wait for.
  psql_at "$PG1" "ALTER SYSTEM SET synchronous_standby_names = 'standby'" >/dev/null
  psql_at "$PG1" "SELECT pg_reload_conf()" >/dev/null
  wait_for "synchronous streaming replication" 30 standby_in_sync
}

standby_in_sync() {
  [ "$(psql_at "$PG1" "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'")" = sync ]
}

start_pgbouncer() { # start_pgbouncer N LISTEN_PORT PG_PORT
  local n=$1 port=$2 pg=$3 conf="$DIR/pgbouncer$1.ini"
  log "pgbouncer $n on $port (transaction pooling) -> PostgreSQL $pg"
  echo '"postgres" ""' >"$DIR/userlist.txt"
  cat >"$conf" <<EOF
[databases]
$DBNAME = host=127.0.0.1 port=$pg dbname=$DBNAME
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $DIR/userlist.txt
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
; a node that is down is reported at once rather than after minutes, so
; clients move to the other host of their URL
server_connect_timeout = 3
server_login_retry = 1
query_wait_timeout = 2
; a server connection keeps its foreign-key checks' plans, sized for the
; tables of when it made them, until it closes (docs/topology.md)
server_lifetime = 300
logfile = $DIR/pgbouncer$n.log
pidfile = $DIR/pgbouncer$n.pid
EOF
  chown postgres "$conf" "$DIR/userlist.txt"
  as_postgres pgbouncer -d -q "$conf"
  wait_for "pgbouncer $n" 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port"
}

# dsn is the instances' database URL: both pgbouncers, the writable one
# chosen at every connection; exec mode uses no named prepared statement
# (a transaction pooler hands each transaction to any server connection).
dsn() {
  echo "postgres://postgres@127.0.0.1:$BOUNCER1,127.0.0.1:$BOUNCER2/$DBNAME?sslmode=disable&target_session_attrs=read-write&default_query_exec_mode=exec&connect_timeout=3"
}

# listen_dsn goes around the pooler: LISTEN needs its own session.
listen_dsn() {
  echo "postgres://postgres@127.0.0.1:$PG1,127.0.0.1:$PG2/$DBNAME?sslmode=disable&target_session_attrs=read-write&connect_timeout=3"
}

loyalty_bin() {
  if [ -n "${LOYALTY_BIN:-}" ]; then echo "$LOYALTY_BIN"; return; fi
  log "building loyalty"
  (cd "$REPO" && go build -o "$DIR/loyalty" ./cmd/loyalty)
  echo "$DIR/loyalty"
}

start_instances() {
  local bin=$1
  log "migrating through pgbouncer"
  "$bin" --db "$(dsn)" --data-dir "$DIR/data" migrate --json >"$DIR/migrate.json"
  for i in "${INSTANCES[@]}"; do
    local port=$((BASE + 10 + i))
    log "loyalty serve $i on $port"
    # Messages and images go to a data directory shared by the three, as
    # a shared disk would be in production. Only HAProxy's address is a
    # trusted proxy: clients on other loopback addresses (127.0.0.2, ...)
    # count as clients of their own for the per-IP limits.
    nohup "$bin" --db "$(dsn)" --data-dir "$DIR/data" serve --addr "127.0.0.1:$port" \
      --db-listen "$(listen_dsn)" --redis "$REDIS" --behind-proxy --trusted-proxies 127.0.0.1 \
      >"$DIR/loyalty$i.log" 2>&1 &
    echo $! >"$DIR/loyalty$i.pid"
  done
  for i in "${INSTANCES[@]}"; do
    wait_for "loyalty $i" 30 curl -fsS "http://127.0.0.1:$((BASE + 10 + i))/readyz"
  done
}

start_haproxy() {
  log "HAProxy on $HTTP (HTTPS) -> the three instances"
  # TLS ends at the load balancer, which tells the instances so
  # (X-Forwarded-Proto; they trust it from loopback with --behind-proxy).
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$DIR/haproxy.key" -out "$DIR/haproxy.crt" 2>/dev/null
  cat "$DIR/haproxy.crt" "$DIR/haproxy.key" >"$DIR/haproxy.pem"
  {
    cat <<EOF
global
  maxconn 2000
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  option forwardfor
frontend loyalty
  bind 127.0.0.1:$HTTP ssl crt $DIR/haproxy.pem
  http-request set-header X-Forwarded-Proto https
  default_backend instances
backend instances
  balance roundrobin
  option httpchk GET /readyz
  # A request the instance never answered may go to another one; POSTs
  # are retried by the clients themselves, with their Idempotency-Key.
  retry-on conn-failure empty-response
  option redispatch
EOF
    for i in "${INSTANCES[@]}"; do
      echo "  server loyalty$i 127.0.0.1:$((BASE + 10 + i)) check inter 500ms fall 2 rise 1"
    done
  } >"$DIR/haproxy.cfg"
  haproxy -D -f "$DIR/haproxy.cfg" -p "$DIR/haproxy.pid"
  wait_for "HAProxy" 10 curl -fsS --cacert "$DIR/haproxy.crt" "https://127.0.0.1:$HTTP/healthz"
}

write_env() {
  {
    echo "URL=https://127.0.0.1:$HTTP"
    echo "CA_CERT=$DIR/haproxy.crt"
    echo "DB='$(dsn)'"
    echo "DB_LISTEN='$(listen_dsn)'"
    echo "DB_DIRECT='postgres://postgres@127.0.0.1:$PG1,127.0.0.1:$PG2/$DBNAME?sslmode=disable&target_session_attrs=read-write'"
    echo "DATA_DIR=$DIR/data"
    local urls=()
    for i in "${INSTANCES[@]}"; do urls+=("http://127.0.0.1:$((BASE + 10 + i))"); done
    echo "INSTANCES='${urls[*]}'"
  } >"$DIR/cluster.env"
}

up() {
  [ ! -e "$DIR/cluster.env" ] || die "already up at $DIR (down first)"
  ensure_packages
  local bin
  mkdir -p "$DIR"
  chmod 755 "$DIR"
  chown postgres "$DIR"
  bin=$(loyalty_bin)
  start_postgres
  start_pgbouncer 1 "$BOUNCER1" "$PG1"
  start_pgbouncer 2 "$BOUNCER2" "$PG2"
  start_instances "$bin"
  start_haproxy
  write_env
  log "up: $(sed -n 1p "$DIR/cluster.env") (settings in $DIR/cluster.env)"
}

role() { # role PORT: primary, standby or down
  local r
  r=$(psql_at "$1" "SELECT pg_is_in_recovery()" 2>/dev/null) || { echo down; return; }
  [ "$r" = f ] && echo primary || echo standby
}

status() {
  [ -e "$DIR/cluster.env" ] || die "not up (no $DIR/cluster.env)"
  echo "PostgreSQL $PG1: $(role "$PG1")"
  echo "PostgreSQL $PG2: $(role "$PG2")"
  for n in 1 2; do
    if [ -e "$DIR/pgbouncer$n.pid" ] && kill -0 "$(cat "$DIR/pgbouncer$n.pid")" 2>/dev/null; then
      echo "pgbouncer $n: running"
    else
      echo "pgbouncer $n: down"
    fi
  done
  for i in "${INSTANCES[@]}"; do
    local port=$((BASE + 10 + i))
    if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
      echo "loyalty $i ($port): ready"
    else
      echo "loyalty $i ($port): not ready"
    fi
  done
  curl -fsS --cacert "$DIR/haproxy.crt" "https://127.0.0.1:$HTTP/healthz" >/dev/null 2>&1 && echo "HAProxy $HTTP: up" || echo "HAProxy $HTTP: down"
}

# failover crashes whichever node is primary and promotes the other.
failover() {
  local bin old new ports=([1]=$PG1 [2]=$PG2)
  bin=$(pgbin)
  if [ "$(role "$PG1")" = primary ]; then old=1 new=2; else old=2 new=1; fi
  [ "$(role "${ports[$new]}")" = standby ] || die "no standby to promote"
  log "crashing the primary (node $old, immediate stop)"
  as_postgres "$bin/pg_ctl" -D "$DIR/pg$old" -m immediate stop >/dev/null
  log "promoting the standby (node $new)"
  as_postgres "$bin/pg_ctl" -D "$DIR/pg$new" -w promote >/dev/null
  log "node $new is $(role "${ports[$new]}")"
}

down() {
  local bin
  bin=$(pgbin)
  if [ -e "$DIR/haproxy.pid" ]; then kill "$(cat "$DIR/haproxy.pid")" 2>/dev/null || true; fi
  for i in "${INSTANCES[@]}"; do
    if [ -e "$DIR/loyalty$i.pid" ]; then kill "$(cat "$DIR/loyalty$i.pid")" 2>/dev/null || true; fi
  done
  for n in 1 2; do
    if [ -e "$DIR/pgbouncer$n.pid" ]; then kill "$(cat "$DIR/pgbouncer$n.pid")" 2>/dev/null || true; fi
  done
  for n in 1 2; do
    if [ -e "$DIR/pg$n/postmaster.pid" ]; then as_postgres "$bin/pg_ctl" -D "$DIR/pg$n" -m immediate stop >/dev/null 2>&1 || true; fi
  done
  for i in "${INSTANCES[@]}"; do
    if [ -e "$DIR/loyalty$i.pid" ]; then
      for _ in $(seq 1 50); do kill -0 "$(cat "$DIR/loyalty$i.pid")" 2>/dev/null || break; sleep 0.1; done
    fi
  done
  rm -rf "$DIR"
  log "down"
}

case "${1:-}" in
  up) up ;;
  status) status ;;
  failover) failover ;;
  down) down ;;
  *) sed -n '2,36p' "$0" >&2; exit 2 ;;
esac
