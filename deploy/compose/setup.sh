#!/usr/bin/env bash
# setup.sh: readies compose.yaml beside it on this Docker host. Builds the five images from Debian packages
# and this checkout (deploy/images/build.sh, cached by content) and loads them into Docker, then writes .env
# beside compose.yaml: the images' names, and the secrets, generated on the first run and kept on every
# later one (the vault key must never change once there is data). Run it again after pulling a new version:
# only the image names change. Then: docker compose up -d (or docker-compose up -d).
#
#   LAZYBOY_COMPOSE_ENV   the file to write (default .env beside compose.yaml)
#   LAZYBOY_SKIP_LOAD=1   build and write .env, but do not `docker load` (the images are loaded already)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ENV_FILE=${LAZYBOY_COMPOSE_ENV:-$HERE/.env}
log() { printf '[compose] %s\n' "$*" >&2; }

declare -A refs
for image in postgres redis api web worker; do
  built=$(bash "$HERE/../images/build.sh" "$image")
  read -r archive ref <<<"$built"
  # An image Docker has already (its name is its content's hash) is not loaded again.
  if [ "${LAZYBOY_SKIP_LOAD:-}" != 1 ] && ! docker image inspect "$ref" >/dev/null 2>&1; then
    log "loading $ref"
    docker load --quiet --input "$archive" >/dev/null
  fi
  refs[$image]=$ref
done

# A secret of letters and digits alone: it goes into URLs and a shell's here-document.
secret() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
# The value `name` has in the file now, if any.
current() { [ -f "$ENV_FILE" ] && sed -n "s/^$1=//p" "$ENV_FILE" | tail -n1; }

touch "$ENV_FILE"
chmod 600 "$ENV_FILE"
set_value() {
  local name=$1 value=$2 rest
  rest=$(grep -v "^$name=" "$ENV_FILE" || true)
  printf '%s\n%s=%s\n' "$rest" "$name" "$value" | sed '/^$/d' >"$ENV_FILE.new"
  mv "$ENV_FILE.new" "$ENV_FILE"
}
for image in postgres redis api web worker; do
  set_value "LAZYBOY_${image^^}_IMAGE" "${refs[$image]}"
done
for name in LAZYBOY_POSTGRES_ADMIN_PASSWORD LAZYBOY_DATABASE_PASSWORD LAZYBOY_REDIS_PASSWORD LAZYBOY_VAULT_KEY \
  LAZYBOY_INTERNAL_SECRET LAZYBOY_APP_TOKEN LAZYBOY_POOL_TOKEN; do
  [ -n "$(current "$name")" ] || set_value "$name" "$(secret)"
done
log "wrote $ENV_FILE (secrets kept, images updated); the first admin signs in with LAZYBOY_APP_TOKEN from it"
