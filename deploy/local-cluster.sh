#!/usr/bin/env bash
# local-cluster.sh: Loyalty's production topology on one machine, to try
# and to test. From Debian packages (PostgreSQL 15, pg_auto_failover,
# pgbouncer, HAProxy):
#
#   pg_auto_failover monitor  127.0.0.1:BASE+4  watches the nodes, promotes one
#   PostgreSQL node1          127.0.0.1:BASE    primary at first     each run by its
#   PostgreSQL node2          127.0.0.1:BASE+1  secondary at first   keeper (pg_autoctl run)
#                             synchronous streaming replication between them
#   pgbouncer, transaction pooling, one per PostgreSQL node:
#                             127.0.0.1:BASE+2 -> node1, BASE+3 -> node2
#   loyalty serve x3          127.0.0.1:BASE+11..BASE+13, sharing PostgreSQL
#                             and Redis (rate limits)
#   HAProxy                   https://127.0.0.1:BASE+10 -> the three instances
#                             (TLS ends here, with a self-signed certificate)
#
# The instances reach PostgreSQL through both pgbouncers with a multi-host
# URL and target_session_attrs=read-write, so after a failover they connect
# to whichever node accepts writes; pgx runs in exec mode (unnamed
# statements), as transaction pooling needs. Their LISTEN connection goes
# to PostgreSQL directly (--db-listen) with the multi-host URL that
# `pg_autoctl show uri --formation default` prints, since it holds a session.
#
# Usage:
#   deploy/local-cluster.sh up        start everything (installs the packages if missing)
#   deploy/local-cluster.sh status    what runs; pg_autoctl show state
#   deploy/local-cluster.sh failover  lose the primary's machine (kill -9 of its keeper and
#                                     its PostgreSQL) and wait until the monitor promoted the other
#   deploy/local-cluster.sh rejoin    bring the lost node back (its keeper again): it rejoins as
#                                     the secondary
#   deploy/local-cluster.sh down      stop everything and delete the directory
#
# Settings (environment):
#   LOYALTY_CLUSTER_DIR   where the clusters, configs and logs live (/tmp/loyalty-cluster)
#   LOYALTY_CLUSTER_PORT  BASE of the ports above (25400)
#   LOYALTY_BIN           the loyalty binary (default: go build ./cmd/loyalty)
#   LOYALTY_REDIS         redis:// URL shared by the instances (redis://127.0.0.1:6379/0)
#
# "up" writes $LOYALTY_CLUSTER_DIR/cluster.env with the addresses (URL,
# CA_CERT, DB, DB_LISTEN, DB_DIRECT, MONITOR, DATA_DIR, INSTANCES) for
# scripts and tests to read.
# PostgreSQL and pg_autoctl run as the postgres user (they refuse root) with
# fsync off, and pg_auto_failover's timeouts cut to seconds
# (docs/topology.md): this is a test bed, not a durable deployment.
set -euo pipefail

DIR=$(realpath -m "${LOYALTY_CLUSTER_DIR:-/tmp/loyalty-cluster}") # absolute: pg_autoctl files its pid under it
BASE=${LOYALTY_CLUSTER_PORT:-25400}
REDIS=${LOYALTY_REDIS:-redis://127.0.0.1:6379/0}
PG1=$BASE PG2=$((BASE + 1)) BOUNCER1=$((BASE + 2)) BOUNCER2=$((BASE + 3)) MONITOR=$((BASE + 4)) HTTP=$((BASE + 10))
INSTANCES=(1 2 3)
NODES=(1 2)
DBNAME=loyalty
REPO=$(cd "$(dirname "$0")/.." && pwd)

# pg_auto_failover's timing, cut from its defaults (in brackets) so that a
# lost primary is replaced in seconds; docs/topology.md explains each.
HEALTH_CHECK_PERIOD=1000         # ms between the monitor's checks of each node [5000]
HEALTH_CHECK_TIMEOUT=1000        # ms a check may take to connect [5000]
HEALTH_CHECK_MAX_RETRIES=2       # [2]
HEALTH_CHECK_RETRY_DELAY=500     # ms [2000]
UNHEALTHY_TIMEOUT=3000           # ms without a keeper's report, checks failing, before failing over [20000]
PRIMARY_DEMOTE_TIMEOUT=5000      # ms a lost primary has to demote itself before the other is let write [30000]
NETWORK_PARTITION_TIMEOUT=3      # s a primary that sees neither monitor nor standby waits before demoting itself [20]

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

# autoctl runs pg_autoctl as postgres, with its configuration, state and
# pid files kept in $DIR (not in postgres's home or /tmp), so that "down"
# removes them all.
autoctl() {
  as_postgres env XDG_CONFIG_HOME="$DIR/xdg/config" XDG_DATA_HOME="$DIR/xdg/data" \
    XDG_RUNTIME_DIR="$DIR/xdg/run" PATH="$(pgbin):/usr/local/bin:/usr/bin:/bin" pg_autoctl "$@"
}

apt_install() {
  [ $# -gt 0 ] || return 0
  [ "$(id -u)" = 0 ] || die "missing $*: apt-get install $* (as root)"
  log "installing $*"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

ensure_packages() {
  local missing=() ver
  command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
  command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  apt_install "${missing[@]}"
  # pg_auto_failover: the pg_autoctl command and the monitor's extension,
  # built for the server's major version.
  ver=$(basename "$(dirname "$(pgbin)")")
  missing=()
  command -v pg_autoctl >/dev/null 2>&1 || missing+=(pg-auto-failover-cli)
  [ -e "/usr/lib/postgresql/$ver/lib/pgautofailover.so" ] || missing+=("postgresql-$ver-auto-failover")
  apt_install "${missing[@]}"
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

# monitor_sql runs SQL on the monitor's database.
monitor_sql() {
  as_postgres "$(pgbin)/psql" -h 127.0.0.1 -p "$MONITOR" -U postgres -d pg_auto_failover -Atqc "$1"
}

monitor_uri() {
  echo "postgres://autoctl_node@127.0.0.1:$MONITOR/pg_auto_failover?sslmode=disable"
}

# keeper_pid is the pid of a running pg_autoctl run (of monitor, node1 or
# node2), or nothing.
keeper_pid() {
  local f="$DIR/xdg/run/pg_autoctl$DIR/$1/pg_autoctl.pid" pid
  [ -e "$f" ] || return 0
  pid=$(head -n1 "$f")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
}

keeper_running() { [ -n "$(keeper_pid "$1")" ]; }

# start_keeper runs pg_autoctl run for a PGDATA in the background, in a
# session of its own (setsid): it starts and supervises that PostgreSQL
# (restarting it if it stops) and reports to the monitor every second.
start_keeper() { # start_keeper NAME
  local name=$1
  setsid runuser -u postgres -- env XDG_CONFIG_HOME="$DIR/xdg/config" XDG_DATA_HOME="$DIR/xdg/data" \
    XDG_RUNTIME_DIR="$DIR/xdg/run" PATH="$(pgbin):/usr/local/bin:/usr/bin:/bin" \
    pg_autoctl run --pgdata "$DIR/$name" >>"$DIR/$name.log" 2>&1 </dev/null &
  wait_for "pg_autoctl run ($name)" 10 keeper_running "$name"
}

# tune appends settings to a PGDATA's postgresql.auto.conf, which
# PostgreSQL reads last: they win over pg_autoctl's
# postgresql-auto-failover.conf (which sizes shared_buffers for a machine
# of its own).
tune() { # tune PGDATA SETTINGS
  printf '%s\n' "$2" | as_postgres tee -a "$1/postgresql.auto.conf" >/dev/null
}

start_monitor() {
  log "pg_auto_failover monitor on $MONITOR"
  autoctl create monitor --pgdata "$DIR/monitor" --pgport "$MONITOR" --hostname 127.0.0.1 \
    --auth trust --no-ssl --ssl-mode disable --pgctl "$(pgbin)/pg_ctl" >"$DIR/monitor.log" 2>&1 ||
    die "pg_autoctl create monitor failed: $(tail -n 20 "$DIR/monitor.log")"
  autoctl config set --pgdata "$DIR/monitor" postgresql.listen_addresses 127.0.0.1 >/dev/null
  tune "$DIR/monitor" "shared_buffers = '32MB'
fsync = off
pgautofailover.health_check_period = $HEALTH_CHECK_PERIOD
pgautofailover.health_check_timeout = $HEALTH_CHECK_TIMEOUT
pgautofailover.health_check_max_retries = $HEALTH_CHECK_MAX_RETRIES
pgautofailover.health_check_retry_delay = $HEALTH_CHECK_RETRY_DELAY
pgautofailover.node_considered_unhealthy_timeout = $UNHEALTHY_TIMEOUT
pgautofailover.primary_demote_timeout = $PRIMARY_DEMOTE_TIMEOUT
pgautofailover.startup_grace_period = 2000"
  start_keeper monitor
  wait_for "the monitor" 30 monitor_sql "SELECT 1"
}

# node_state prints a node's state as the monitor knows it: reported and
# goal, "primary primary" once it is settled as the primary.
node_state() { # node_state N
  monitor_sql "SELECT reportedstate || ' ' || goalstate FROM pgautofailover.node WHERE nodename = 'node$1'"
}

node_is() { # node_is N STATE: reported and goal both STATE
  [ "$(node_state "$1")" = "$2 $2" ]
}

create_node() { # create_node N PORT
  local n=$1 port=$2
  autoctl create postgres --pgdata "$DIR/node$n" --pghost "$DIR" --pgport "$port" --listen 127.0.0.1 \
    --hostname 127.0.0.1 --name "node$n" --dbname "$DBNAME" --monitor "$(monitor_uri)" \
    --auth trust --no-ssl --ssl-mode disable --pgctl "$(pgbin)/pg_ctl" >>"$DIR/node$n.log" 2>&1 ||
    die "pg_autoctl create postgres (node$n) failed: $(tail -n 20 "$DIR/node$n.log")"
  autoctl config set --pgdata "$DIR/node$n" timeout.network_partition_timeout "$NETWORK_PARTITION_TIMEOUT" >/dev/null
}

start_postgres() {
  local bin
  bin=$(pgbin)
  start_monitor

  log "PostgreSQL node1 on $PG1 (pg_autoctl create postgres: the first node is the primary)"
  # initdb here rather than by pg_autoctl: trust for the instances on
  # loopback, the C.UTF-8 locale, and settings that node2 copies with its
  # base backup.
  as_postgres "$bin/initdb" -D "$DIR/node1" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  echo "unix_socket_directories = '$DIR'" | as_postgres tee -a "$DIR/node1/postgresql.conf" >/dev/null
  tune "$DIR/node1" "fsync = off
full_page_writes = off
max_connections = 200
shared_buffers = '128MB'"
  create_node 1 "$PG1"
  start_keeper node1
  wait_for "node1 as a single node" 60 node_is 1 single

  log "PostgreSQL node2 on $PG2 (pg_autoctl create postgres: a base backup of node1, then its secondary)"
  create_node 2 "$PG2"
  start_keeper node2
  wait_for "node1 primary and node2 secondary" 120 settled 1 2
  # With number_sync_standbys 0 and node2 in the replication quorum (the
  # defaults), pg_autoctl has node1 wait for node2 at every commit.
  log "node1: synchronous_standby_names = $(psql_at "$PG1" "SHOW synchronous_standby_names")"
  wait_for "synchronous streaming replication" 30 standby_in_sync
}

settled() { # settled PRIMARY SECONDARY
  node_is "$1" primary && node_is "$2" secondary
}

standby_in_sync() {
  case "$(psql_at "$PG1" "SELECT string_agg(sync_state, ',') FROM pg_stat_replication")" in
    sync | quorum) return 0 ;;
  esac
  return 1
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
admin_users = postgres
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

# bouncer_admin runs a command on pgbouncer N's admin console.
bouncer_admin() { # bouncer_admin N COMMAND
  local port=$((BASE + 1 + $1))
  as_postgres "$(pgbin)/psql" -h 127.0.0.1 -p "$port" -U postgres -d pgbouncer -Atqc "$2"
}

# dsn is the instances' database URL: both pgbouncers, the writable one
# chosen at every connection; exec mode uses no named prepared statement
# (a transaction pooler hands each transaction to any server connection).
dsn() {
  echo "postgres://postgres@127.0.0.1:$BOUNCER1,127.0.0.1:$BOUNCER2/$DBNAME?sslmode=disable&target_session_attrs=read-write&default_query_exec_mode=exec&connect_timeout=3"
}

# direct_dsn is the formation's URL as pg_auto_failover gives it (both
# nodes, target_session_attrs=read-write), as the postgres user.
direct_dsn() {
  local uri
  uri=$(autoctl show uri --pgdata "$DIR/monitor" --formation default)
  case "$uri" in postgres://*) ;; *) die "pg_autoctl show uri: $uri" ;; esac
  echo "postgres://postgres@${uri#postgres://}"
}

# listen_dsn goes around the pooler: LISTEN needs its own session.
listen_dsn() {
  echo "$(direct_dsn)&connect_timeout=3"
}

loyalty_bin() {
  if [ -n "${LOYALTY_BIN:-}" ]; then echo "$LOYALTY_BIN"; return; fi
  log "building loyalty"
  (cd "$REPO" && go build -o "$DIR/loyalty" ./cmd/loyalty)
  echo "$DIR/loyalty"
}

start_instances() {
  local bin=$1 listen
  listen=$(listen_dsn)
  log "migrating (directly: migrations need a session)"
  # Migrations need a session (their lock timeout, an advisory lock),
  # which the pooler in transaction mode does not give: they go directly.
  "$bin" --db "$(dsn)" --data-dir "$DIR/data" migrate --db-listen "$(listen_dsn)" --json >"$DIR/migrate.json"
  for i in "${INSTANCES[@]}"; do
    local port=$((BASE + 10 + i))
    log "loyalty serve $i on $port"
    # Messages and images go to a data directory shared by the three, as
    # a shared disk would be in production. Only HAProxy's address is a
    # trusted proxy: clients on other loopback addresses (127.0.0.2, ...)
    # count as clients of their own for the per-IP limits.
    nohup "$bin" --db "$(dsn)" --data-dir "$DIR/data" serve --addr "127.0.0.1:$port" \
      --db-listen "$listen" --redis "$REDIS" --behind-proxy --trusted-proxies 127.0.0.1 \
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
    echo "DB_DIRECT='$(direct_dsn)'"
    echo "MONITOR='$(monitor_uri)'"
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
  mkdir -p "$DIR/xdg/run"
  chmod 755 "$DIR"
  chown -R postgres "$DIR"
  bin=$(loyalty_bin)
  start_postgres
  start_pgbouncer 1 "$BOUNCER1" "$PG1"
  start_pgbouncer 2 "$BOUNCER2" "$PG2"
  start_instances "$bin"
  start_haproxy
  write_env
  log "up: $(sed -n 1p "$DIR/cluster.env") (settings in $DIR/cluster.env)"
}

status() {
  [ -e "$DIR/cluster.env" ] || die "not up (no $DIR/cluster.env)"
  autoctl show state --pgdata "$DIR/monitor" 2>&1 || echo "monitor: down"
  for name in monitor node1 node2; do
    if keeper_running "$name"; then echo "$name keeper: running"; else echo "$name keeper: down"; fi
  done
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

# postmaster_pid is the pid of a PGDATA's running postmaster, or nothing.
postmaster_pid() {
  local pid
  [ -e "$1/postmaster.pid" ] || return 0
  pid=$(head -n1 "$1/postmaster.pid")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
}

# node_pids lists every process of a node: its keeper's session (pg_autoctl
# and its services) and its PostgreSQL (the postmaster and its children,
# which PostgreSQL puts in sessions of their own).
node_pids() { # node_pids NAME
  local keeper pm
  keeper=$(keeper_pid "$1")
  pm=$(postmaster_pid "$DIR/$1")
  {
    [ -z "$keeper" ] || ps -o pid= -s "$(ps -o sid= -p "$keeper" | tr -d ' ')" || true
    [ -z "$pm" ] || { echo "$pm"; ps -o pid= --ppid "$pm" || true; }
  } | tr -d ' ' | sort -u
}

# failover loses the primary's machine: its keeper, its postmaster and
# every backend get SIGKILL at once, so nothing of that node demotes
# itself, reports to the monitor or restarts PostgreSQL (pg_autoctl run
# restarts a PostgreSQL that stops by itself). The monitor notices by its
# health checks and the keeper's silence, and promotes the other node;
# this waits until that node is primary (or wait_primary: accepting
# writes with no standby left to wait for).
failover() {
  [ -e "$DIR/cluster.env" ] || die "not up (no $DIR/cluster.env)"
  local old new pids start state
  if node_is 1 primary; then old=1 new=2; elif node_is 2 primary; then old=2 new=1; else
    die "no node is primary: $(autoctl show state --pgdata "$DIR/monitor" 2>&1)"
  fi
  node_is "$new" secondary || die "node$new is not a secondary to promote: $(node_state "$new")"
  pids=$(node_pids "node$old")
  [ -n "$pids" ] || die "node$old has no process to kill"
  log "losing the primary, node$old: kill -9 of its keeper and PostgreSQL ($(echo "$pids" | wc -l) processes)"
  start=$(date +%s%N)
  # shellcheck disable=SC2086 # one pid a word
  kill -9 $pids
  for _ in $(seq 1 1200); do
    state=$(node_state "$new" 2>/dev/null || true)
    case "$state" in "primary primary" | "wait_primary wait_primary") break ;; esac
    sleep 0.1
  done
  case "$state" in "primary primary" | "wait_primary wait_primary") ;; *)
    die "node$new not promoted within 120 s: $(autoctl show state --pgdata "$DIR/monitor" 2>&1)" ;;
  esac
  log "the monitor promoted node$new ($state) $((($(date +%s%N) - start) / 1000000)) ms after the loss"
  autoctl show events --pgdata "$DIR/monitor" --count 8 2>&1 | cut -c1-200 >&2 || true
}

# rejoin starts the keeper of the node that failover lost again, as a
# machine that comes back would: pg_autoctl rewinds its PostgreSQL to the
# new primary's timeline (pg_rewind) and makes it that primary's
# synchronous secondary, so that failover may run again.
rejoin() {
  [ -e "$DIR/cluster.env" ] || die "not up (no $DIR/cluster.env)"
  local lost="" other
  for n in "${NODES[@]}"; do keeper_running "node$n" || lost=$n; done
  [ -n "$lost" ] || die "every node's keeper runs: no node to rejoin"
  other=$((3 - lost))
  # The clients that pgbouncer kept while its node was away would be sent
  # to it once it is back as a secondary, where a write fails ("read-only
  # transaction"): they are dropped, and new ones choose again by
  # target_session_attrs.
  log "pgbouncer $lost: KILL $DBNAME (its clients connect again)"
  bouncer_admin "$lost" "KILL $DBNAME" >/dev/null
  bouncer_admin "$lost" "RESUME $DBNAME" >/dev/null
  log "node$lost: pg_autoctl run again"
  start_keeper "node$lost"
  wait_for "node$lost as the secondary of node$other" 180 settled "$other" "$lost"
  log "node$lost is the secondary of node$other again"
}

# free_shm removes the System V segment of a PostgreSQL that was killed
# (a postmaster that exits removes its own): the 7th line of
# postmaster.pid holds its key and id.
free_shm() { # free_shm PGDATA
  local id
  [ -e "$1/postmaster.pid" ] || return 0
  id=$(sed -n 7p "$1/postmaster.pid" | awk '{print $2}')
  [ -n "$id" ] || return 0
  if [ "$(ipcs -m -i "$id" 2>/dev/null | sed -n 's/.*nattch=\([0-9]*\).*/\1/p')" = 0 ]; then
    ipcrm -m "$id" 2>/dev/null || true
  fi
}

down() {
  local bin pid
  bin=$(pgbin)
  if [ -e "$DIR/haproxy.pid" ]; then kill "$(cat "$DIR/haproxy.pid")" 2>/dev/null || true; fi
  for i in "${INSTANCES[@]}"; do
    if [ -e "$DIR/loyalty$i.pid" ]; then kill "$(cat "$DIR/loyalty$i.pid")" 2>/dev/null || true; fi
  done
  for n in 1 2; do
    if [ -e "$DIR/pgbouncer$n.pid" ]; then kill "$(cat "$DIR/pgbouncer$n.pid")" 2>/dev/null || true; fi
  done
  # The keepers first (each would restart its PostgreSQL), then whatever
  # PostgreSQL is left, immediately.
  for name in node1 node2 monitor; do
    pid=$(keeper_pid "$name")
    if [ -n "$pid" ]; then
      # shellcheck disable=SC2046 # one pid a word
      kill -9 $(ps -o pid= -s "$(ps -o sid= -p "$pid" | tr -d ' ')" | grep -vx " *$(postmaster_pid "$DIR/$name")") 2>/dev/null || true
    fi
  done
  for name in node1 node2 monitor; do
    if [ -n "$(postmaster_pid "$DIR/$name")" ]; then
      as_postgres "$bin/pg_ctl" -D "$DIR/$name" -m immediate stop >/dev/null 2>&1 || true
    fi
    free_shm "$DIR/$name"
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
  rejoin) rejoin ;;
  down) down ;;
  *) sed -n '2,44p' "$0" >&2; exit 2 ;;
esac
