#!/usr/bin/env bash
# The postgres image's entrypoint (/usr/local/bin/postgres-entrypoint): makes a cluster in an empty $PGDATA,
# runs the init scripts in /docker-entrypoint-initdb.d once in it, then execs postgres, which is PID 1 from
# then on (the image's stop signal is SIGINT, postgres's fast shutdown: SIGTERM would wait for every client
# to leave). It follows the conventions of the official postgres images that the chart uses, so that the
# chart runs either image:
#   POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE  the superuser's password (required for a new cluster)
#   POSTGRES_USER                                the superuser's name (default postgres)
#   PGDATA                                       the cluster's directory (default /var/lib/postgresql/data/pgdata)
#   /docker-entrypoint-initdb.d/*.sh, *.sql      run in name order on the new cluster, over its socket
# and one of its own:
#   POSTGRES_ALLOWED_CIDRS  the networks clients may connect from, with a password (scram-sha-256);
#                           comma- or space-separated, default any address. pg_hba.conf is written anew at
#                           every start, so a changed list takes effect with the next pod.
# Arguments are passed on to postgres (e.g. -c shared_buffers=256MB).
set -euo pipefail

log() { printf '[postgres-entrypoint] %s\n' "$*" >&2; }

export PGDATA=${PGDATA:-/var/lib/postgresql/data/pgdata}
SOCKETS=/var/run/postgresql
# Settings of every start, given on the command line rather than written into postgresql.conf, so that an
# upgraded image changes them for clusters it did not make. jit: this image leaves LLVM out.
SETTINGS=(-c listen_addresses='*' -c unix_socket_directories="$SOCKETS" -c jit=off)

if [ "$(id -u)" = 0 ]; then
  log "refusing to run as root: run as the user postgres (uid 999) or any other one"
  exit 1
fi

# The superuser's password: from the file POSTGRES_PASSWORD_FILE names (a mounted Secret), else the variable.
password() {
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
    # A file's trailing newline is no part of the password.
    printf '%s' "$(cat "$POSTGRES_PASSWORD_FILE")"
  else
    printf '%s' "${POSTGRES_PASSWORD:-}"
  fi
}

# A new cluster is made beside $PGDATA and moved into place only once its init scripts have run: a start
# that fails half-way (a script's error, a pod killed) leaves no cluster that a later start would take for
# a finished one and skip the scripts of.
init_cluster() {
  local user=${POSTGRES_USER:-postgres} scratch="$PGDATA.init" secret
  secret=$(password)
  if [ -z "$secret" ]; then
    log "the data directory $PGDATA is empty: set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE for the new cluster's superuser"
    exit 1
  fi
  # An empty directory (made by hand, or a mount point) is taken; files without a cluster are not ours.
  if [ -d "$PGDATA" ] && ! rmdir "$PGDATA" 2>/dev/null; then
    log "$PGDATA holds files but no cluster (no PG_VERSION): leaving it alone"
    exit 1
  fi
  rm -rf "$scratch"
  mkdir -p "$scratch"
  chmod 700 "$scratch"
  trap 'log "making the cluster failed: the next start begins again from an empty one"' ERR
  log "making a new cluster in $PGDATA (superuser $user)"
  # Local (socket) connections are trusted: the socket directory is inside the container alone.
  initdb -D "$scratch" --username="$user" --pwfile=<(printf '%s\n' "$secret") --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  local scripts=(/docker-entrypoint-initdb.d/*)
  if [ -e "${scripts[0]}" ]; then
    # On the socket alone: nobody can connect over the network before the scripts are done.
    pg_ctl -D "$scratch" -w -t 60 -o "-c listen_addresses='' -c unix_socket_directories=$SOCKETS -c jit=off" start >/dev/null
    export POSTGRES_USER=$user PGHOST=$SOCKETS PGUSER=$user
    for script in "${scripts[@]}"; do
      case $script in
        *.sh)
          log "running $script"
          if [ -x "$script" ]; then "$script"; else bash "$script"; fi
          ;;
        *.sql)
          log "running $script"
          psql -v ON_ERROR_STOP=1 --dbname postgres --no-psqlrc --quiet --file "$script"
          ;;
        *) log "ignoring $script" ;;
      esac
    done
    pg_ctl -D "$scratch" -w -t 60 -m fast stop >/dev/null
    unset PGHOST PGUSER
  fi
  mv "$scratch" "$PGDATA"
  trap - ERR
}

write_hba() {
  local cidrs=${POSTGRES_ALLOWED_CIDRS:-0.0.0.0/0,::/0} cidr
  {
    echo "# Written by postgres-entrypoint at every start (POSTGRES_ALLOWED_CIDRS): edits here do not last."
    echo "local all all trust"
    echo "host all all 127.0.0.1/32 scram-sha-256"
    echo "host all all ::1/128 scram-sha-256"
    for cidr in ${cidrs//,/ }; do
      echo "host all all $cidr scram-sha-256"
    done
  } >"$PGDATA/pg_hba.conf"
}

mkdir -p "$(dirname "$PGDATA")"
[ -s "$PGDATA/PG_VERSION" ] || init_cluster
write_hba
exec postgres -D "$PGDATA" "${SETTINGS[@]}" "$@"
