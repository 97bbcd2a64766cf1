#!/usr/bin/env bash
# scripts/test.sh (make test): every test, real backends included, with the race detector.
#
#   scripts/test.sh [go test flags...]     packages: OCV_TEST_PKGS (default ./...)
#
# Makes sure SoftHSM2 and PostgreSQL are installed (a test that needs one FAILS when it
# is missing; nothing is skipped), starts the private PostgreSQL cluster unless
# OCV_TEST_DATABASE_URL is given, and exports OCV_TEST_DATABASE_URL pointing at its
# "postgres" database: tests create their own databases from there. SoftHSM tests make
# their own tokens under a temp dir, so no HSM variable is exported. A cluster started
# here is stopped at the end unless another make run/test still uses it, or OCV_KEEP_PG=1.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$OCV_ROOT"

packages=(softhsm2 postgresql gcc libc6-dev)
conformance=test/conformance/package.json
[[ -f $conformance ]] && packages+=(npm)
ocv_ensure_packages "${packages[@]}"
ocv_clear_pg_env

# A SOFTHSM2_CONF naming a file that does not exist makes C_Initialize fail in any test
# that does not set its own; a valid one is left alone.
if [[ -n ${SOFTHSM2_CONF:-} && ! -r $SOFTHSM2_CONF ]]; then
	unset SOFTHSM2_CONF
fi

# shellcheck disable=SC2317 # reached from the EXIT trap
stop_pg() {
	if ((OCV_PG_STARTED)) && [[ ${OCV_KEEP_PG:-0} != 1 ]]; then
		ocv_pg_release
	fi
}
trap stop_pg EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -z ${OCV_TEST_DATABASE_URL:-} ]]; then
	ocv_pg_hold
	ocv_lock
	ocv_pg_setup
	ocv_unlock
	export OCV_TEST_DATABASE_URL
	OCV_TEST_DATABASE_URL=$(ocv_pg_url postgres)
fi
ocv_log "OCV_TEST_DATABASE_URL=$OCV_TEST_DATABASE_URL"

if [[ -f $conformance ]]; then
	ocv_log "installing conformance test dependencies (npm ci)"
	npm ci --prefix test/conformance --no-audit --no-fund >&2
	# The conformance tests beside the Go packages fail, not skip, without node.
	export OCV_REQUIRE_CONFORMANCE=1
fi

read -r -a pkgs <<<"${OCV_TEST_PKGS:-./...}"
status=0
CGO_ENABLED=1 go test -race -count=1 -timeout 20m "$@" "${pkgs[@]}" || status=$?
if ((status != 0)); then
	ocv_log "go test failed (status $status)"
fi
exit "$status"
