#!/usr/bin/env bash
# scripts/dev-env.sh: prepares OCV's simulator stack (idempotent, quick when already set
# up) and prints the environment as shell code:
#
#   eval "$(scripts/dev-env.sh)"     # SOFTHSM2_CONF and OCV_DATABASE_URL in this shell
#   scripts/dev-env.sh stop          # stops the private PostgreSQL cluster (data is kept)
#   scripts/dev-env.sh status        # says whether the cluster runs
#
# See scripts/lib.sh for what it creates under .ocv/.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-up} in
up)
	ocv_dev_env
	ocv_print_env
	;;
stop)
	ocv_lock
	ocv_pg_stop
	ocv_unlock
	;;
status)
	ocv_pg_locate
	if ocv_pg_running; then
		echo "PostgreSQL running: $(ocv_pg_url ocv)"
	else
		echo "PostgreSQL not running (data in $OCV_PG_BASE/data)"
		exit 3
	fi
	;;
*)
	echo "usage: $0 [up|stop|status]" >&2
	exit 2
	;;
esac
