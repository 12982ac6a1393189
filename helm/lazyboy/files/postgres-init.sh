#!/bin/sh
# Run once by the postgres image on an empty data directory (/docker-entrypoint-initdb.d), as its
# superuser: the API's role (no superuser), the database it owns, and the vector extension in it, which
# only a superuser may create. The chart's ConfigMap and deploy/compose mount this same file. The role's
# password reaches psql as a variable (:'password' quotes it), never inside the SQL text.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v role="$LAZYBOY_DATABASE_USER" -v database="$LAZYBOY_DATABASE_NAME" -v password="$LAZYBOY_DATABASE_PASSWORD" <<'SQL'
CREATE ROLE :"role" LOGIN PASSWORD :'password';
CREATE DATABASE :"database" OWNER :"role";
\connect :"database"
CREATE EXTENSION IF NOT EXISTS vector;
SQL
