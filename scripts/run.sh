#!/usr/bin/env bash
# scripts/run.sh (make run): the whole simulator stack in one terminal.
#
# Prepares SoftHSM2 and PostgreSQL (scripts/dev-env.sh), builds the binaries, starts
# ocv-enclave in the background (log: .ocv/enclave.log) and ocv-proxy in the foreground.
# Ctrl-C stops the proxy, the enclave and the PostgreSQL cluster if this script started
# it and no `make test` is using it. Tokens and data stay in .ocv/, so the next
# `make run` finds them again.
#
# Every OCV_* variable below can be overridden from the environment, except
# OCV_ATTESTATION_PCR0, which is always the SHA-384 of the freshly built bin/ocv-enclave.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$OCV_ROOT"

enclave_pid=""
proxy_pid=""

# stop_child PID NAME: SIGTERM, then SIGKILL after 15 s.
# shellcheck disable=SC2317 # reached from the traps
stop_child() {
	local pid=$1 name=$2 i
	if [[ -z $pid ]] || ! kill -0 "$pid" 2>/dev/null; then
		return 0
	fi
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 150; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		ocv_log "$name did not stop within 15 s; killing it"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
}

# shellcheck disable=SC2317 # reached from the traps
cleanup() {
	trap - INT TERM EXIT
	stop_child "$proxy_pid" ocv-proxy
	stop_child "$enclave_pid" ocv-enclave
	if ((OCV_PG_STARTED)); then
		ocv_pg_release
	fi
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap cleanup EXIT

install -d -m 0755 "$OCV_DIR"
exec 8>"$OCV_DIR/run.lock"
flock -n 8 || ocv_die "another 'make run' is active in this checkout"

ocv_dev_env
"${MAKE:-make}" --no-print-directory -C "$OCV_ROOT" build

export OCV_ENCLAVE_LISTEN=${OCV_ENCLAVE_LISTEN:-unix://.ocv/enclave.sock}
export OCV_ENCLAVE_PKCS11_MODULE=${OCV_ENCLAVE_PKCS11_MODULE:-$OCV_SOFTHSM_MODULE}
export OCV_ENCLAVE_TOKEN_LABEL=${OCV_ENCLAVE_TOKEN_LABEL:-$OCV_TOKEN_LABEL}
export OCV_ENCLAVE_PIN_FILE=${OCV_ENCLAVE_PIN_FILE:-.ocv/softhsm/pin}
export OCV_ENCLAVE_ATTESTER=${OCV_ENCLAVE_ATTESTER:-sim}
export OCV_ENCLAVE_ATTESTATION_DIR=${OCV_ENCLAVE_ATTESTATION_DIR:-.ocv/attestation}
export OCV_LISTEN=${OCV_LISTEN:-127.0.0.1:8443}
# The token issuer and lifetimes are settings of both processes (the enclave checks
# every token it is shown against them): exported here, both read the same values.
# OCV_TOKEN_TTL and OCV_AGENT_TOKEN_TTL, when set in the environment, reach both too.
export OCV_PUBLIC_URL=${OCV_PUBLIC_URL:-https://$OCV_LISTEN}
export OCV_ENCLAVE_ADDR=${OCV_ENCLAVE_ADDR:-$OCV_ENCLAVE_LISTEN}
export OCV_DATA_DIR=${OCV_DATA_DIR:-.ocv}
export OCV_ATTESTATION_ROOT=${OCV_ATTESTATION_ROOT:-$OCV_ENCLAVE_ATTESTATION_DIR/root.pem}
# Simulator mode lifts the Free tier's monthly API call quota (the spec's 1,000)
# and its vault, secret and agent caps, so that `make bench` (which writes a new
# secret per request) and manual testing never hit 402 or 403
# resource_limit_exceeded; production keeps the documented Free values.
export OCV_TIER_FREE_REQUESTS=${OCV_TIER_FREE_REQUESTS:-unlimited}
export OCV_TIER_FREE_VAULTS=${OCV_TIER_FREE_VAULTS:-unlimited}
export OCV_TIER_FREE_SECRETS=${OCV_TIER_FREE_SECRETS:-unlimited}
export OCV_TIER_FREE_AGENTS=${OCV_TIER_FREE_AGENTS:-unlimited}
export OCV_TIER_FREE_WALLETS=${OCV_TIER_FREE_WALLETS:-unlimited}
OCV_ATTESTATION_PCR0=$(sha384sum bin/ocv-enclave | cut -d' ' -f1)
export OCV_ATTESTATION_PCR0
# The proxy's identity key (made once, kept in .ocv/ with mode 0600): the enclave serves
# only a peer that signs the handshake with it, and is given its public key.
export OCV_PROXY_IDENTITY_KEY=${OCV_PROXY_IDENTITY_KEY:-.ocv/proxy-identity.key}
if [[ -z ${OCV_PROXY_IDENTITY_PUBKEYS:-} ]]; then
	OCV_PROXY_IDENTITY_PUBKEYS=$(bin/ocv-enclave keygen-proxy-identity -out "$OCV_PROXY_IDENTITY_KEY") ||
		ocv_die "provisioning the proxy identity key $OCV_PROXY_IDENTITY_KEY"
fi
export OCV_PROXY_IDENTITY_PUBKEYS

# A socket left by a crashed enclave would make the next one fail to listen; the run lock
# above guarantees that no enclave of this checkout is still using it.
sock=""
if [[ $OCV_ENCLAVE_LISTEN == unix://* ]]; then
	sock=${OCV_ENCLAVE_LISTEN#unix://}
	rm -f "$sock"
fi

ocv_log "starting ocv-enclave (log: .ocv/enclave.log)"
env -u OCV_PROXY_IDENTITY_KEY bin/ocv-enclave >>"$OCV_DIR/enclave.log" 2>&1 &
enclave_pid=$!
if [[ -n $sock ]]; then
	for ((i = 0; i < 600; i++)); do
		[[ -S $sock ]] && break
		if ! kill -0 "$enclave_pid" 2>/dev/null; then
			tail -n 30 "$OCV_DIR/enclave.log" >&2 || true
			ocv_die "ocv-enclave exited during start; see .ocv/enclave.log"
		fi
		sleep 0.1
	done
	[[ -S $sock ]] || ocv_die "ocv-enclave did not create $sock within 60 s; see .ocv/enclave.log"
fi

ocv_log "starting ocv-proxy on $OCV_LISTEN"
bin/ocv-proxy &
proxy_pid=$!

host=${OCV_LISTEN%:*}
port=${OCV_LISTEN##*:}
case $host in "" | 0.0.0.0 | "[::]") host=127.0.0.1 ;; esac
base_url="https://$host:$port"
ca="$OCV_DATA_DIR/tls/ca.pem"
for ((i = 0; i < 300; i++)); do
	kill -0 "$proxy_pid" 2>/dev/null || break
	if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
		break
	fi
	sleep 0.1
done

cat >&2 <<EOF

  OCV simulator stack (enclave pid $enclave_pid, proxy pid $proxy_pid)
    base URL   $base_url
    CA         $ca
    try        curl --cacert $ca $base_url/v1/health
    database   $OCV_DATABASE_URL
    logs       .ocv/enclave.log (enclave), this terminal (proxy)
  Ctrl-C stops the proxy, the enclave and the PostgreSQL cluster it started; data stays in .ocv/.

EOF

status=0
wait "$proxy_pid" || status=$?
proxy_pid=""
ocv_log "ocv-proxy exited with status $status"
exit "$status"
