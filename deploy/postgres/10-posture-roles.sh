#!/bin/sh
# Run once by the postgres image on an empty data volume (/docker-entrypoint-initdb.d), as the
# superuser. It creates what docs/operations.md ("Database roles") asks of production:
#   posture_owner    owns the database and the schema; the service migrates with it
#                    (MIGRATION_DATABASE_URL) and nothing else
#   posture_app      the group migration 0006 grants to: every table, but audit_log insert-only
#   posture_gateway  the login the gateway, the scheduler and the CLI use (DATABASE_URL); a member
#                    of posture_app, neither owner nor superuser, so the append-only triggers
#                    of audit_log bind it
set -e
: "${POSTURE_OWNER_PASSWORD:?}" "${POSTURE_APP_PASSWORD:?}"
psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER" --dbname postgres \
  -v owner_password="$POSTURE_OWNER_PASSWORD" -v app_password="$POSTURE_APP_PASSWORD" <<'SQL'
CREATE ROLE posture_owner LOGIN PASSWORD :'owner_password';
CREATE DATABASE posture OWNER posture_owner;
CREATE ROLE posture_app NOLOGIN;
CREATE ROLE posture_gateway LOGIN PASSWORD :'app_password' IN ROLE posture_app;
REVOKE ALL ON DATABASE posture FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE posture TO posture_app;
SQL
