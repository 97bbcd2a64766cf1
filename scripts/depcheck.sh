#!/usr/bin/env bash
# scripts/depcheck.sh (make depcheck): checks the import rules of DESIGN.md section 5 on
# the non-test code of every package, from `go list`. Prints one line per violation and
# exits 1 when there is any.
#
#  1. proxy/... and api/... depend (directly or not) on no enclave package other than
#     enclave/wire and enclave/client, and never on keyvault/pkcs11.
#  2. enclave/... imports no net/http (the enclave has no HTTP), and depends on no
#     certmagic, pgx, proxy/..., api/... or internal/store.
#  3. keyvault, attestation (the root packages), enclave/wire/... and policy/... import
#     only the standard library, golang.org/x/crypto and each other; chain/...
#     depends on no key holder (keyvault/pkcs11, keyvault/memstore, enclave/...) and no
#     edge code (proxy/..., api/..., internal/store).
#  4. Only cmd/ and choosers know concrete types: keyvault/memstore is imported by tests
#     (and keyvault/...) only, and no non-test file declares func init(). test/evmnet and
#     go-ethereum's simulated backend are reached from _test.go files only.
#  5. The proxy side is one stack and no package imports one above it (docs/architecture.md):
#       6 cmd/ocv-proxy          wiring
#       5 proxy                  server, middleware, routes
#       4 proxy/handlers         decode, call a service or a store, encode
#       3 proxy/intents          services
#       2 proxy/<concern>        auth, metering, webhooks, chainrpc, httperr, ...
#       1 internal/store         PostgreSQL repositories
#       0 contracts              api, enclave/wire, policy, chain, internal/auditchain, internal/obs,
#                                internal/outbox, internal/passhash, internal/egress
#     api/problem imports only the standard library; api imports nothing of OCV but api/...;
#     the clients of the API (internal/cli, internal/mcpserver) import nothing under proxy/;
#     internal/store depends (even indirectly) on nothing under proxy/ or api/; internal/egress
#     (the one outbound connection policy) imports only the standard library.
#  6. Small parts: no non-test file in proxy/handlers over 200 lines (handlers decode, call
#     and encode), and no interface over 20 methods anywhere (give each consumer the few it uses).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CGO_ENABLED=${CGO_ENABLED:-1}

mod=$(go list -m)
listing=$(go list -e -f '{{.ImportPath}}|{{.Dir}}|{{join .Imports " "}}|{{join .Deps " "}}|{{join .GoFiles " "}} {{join .CgoFiles " "}}' ./...)

violations=0
violation() {
	printf 'depcheck: %s: %s\n' "$1" "$2"
	violations=$((violations + 1))
}

# under P PREFIX: P is PREFIX or inside it.
under() { [[ $1 == "$2" || $1 == "$2"/* ]]; }

# layer P: the rung of P on the proxy side's stack (rule 5), or nothing.
layer() {
	case $1 in
	cmd/ocv-proxy) echo 6 ;;
	proxy) echo 5 ;;
	proxy/handlers | proxy/handlers/*) echo 4 ;;
	proxy/intents | proxy/intents/*) echo 3 ;;
	proxy/*) echo 2 ;;
	internal/store | internal/store/*) echo 1 ;;
	api | api/* | enclave/wire | enclave/wire/* | policy | policy/* | chain/* | internal/auditchain | internal/obs | internal/outbox | internal/passhash | internal/egress) echo 0 ;;
	esac
}

is_std() {
	local first=${1%%/*}
	[[ $1 != C && $first != *.* ]]
}

while IFS='|' read -r pkg dir imports deps files; do
	[[ -n $pkg ]] || continue
	# Paths inside the module are made relative to it (no subshells: this loop is hot).
	p=${pkg#"$mod"/}
	read -r -a imps <<<"$imports"
	read -r -a dps <<<"$deps"

	# Rule 1.
	if under "$p" proxy || under "$p" api; then
		for d in "${dps[@]}"; do
			r=${d#"$mod"/}
			if under "$r" enclave && ! under "$r" enclave/wire && ! under "$r" enclave/client; then
				violation "$p" "depends on $r (only enclave/wire and enclave/client are allowed)"
			elif under "$r" keyvault/pkcs11; then
				violation "$p" "depends on $r (the HSM belongs to the enclave)"
			fi
		done
	fi

	# Rule 2.
	if under "$p" enclave; then
		for i in "${imps[@]}"; do
			if under "$i" net/http; then
				violation "$p" "imports $i (the enclave has no HTTP)"
			fi
		done
		for d in "${dps[@]}"; do
			r=${d#"$mod"/}
			case $r in
			github.com/caddyserver/certmagic | github.com/caddyserver/certmagic/* | \
				github.com/jackc/pgx | github.com/jackc/pgx/*)
				violation "$p" "depends on $r (edge-only module)"
				;;
			esac
			if under "$r" proxy || under "$r" api || under "$r" internal/store; then
				violation "$p" "depends on $r (untrusted edge code)"
			fi
		done
	fi

	# Rule 3.
	if [[ $p == keyvault || $p == attestation ]] || under "$p" enclave/wire || under "$p" policy; then
		for i in "${imps[@]}"; do
			is_std "$i" && continue
			r=${i#"$mod"/}
			if under "$i" golang.org/x/crypto || [[ $r == keyvault || $r == attestation ]] ||
				under "$r" enclave/wire || under "$r" policy; then
				continue
			fi
			violation "$p" "imports $r (contract packages use only the standard library, x/crypto and each other)"
		done
	fi
	if under "$p" chain; then
		for d in "${dps[@]}"; do
			r=${d#"$mod"/}
			if under "$r" keyvault/pkcs11 || under "$r" keyvault/memstore || under "$r" enclave ||
				under "$r" proxy || under "$r" api || under "$r" internal/store; then
				violation "$p" "depends on $r (chain code sees only a DigestSigner)"
			fi
		done
	fi

	# Rule 4.
	if ! under "$p" keyvault; then
		for i in "${imps[@]}"; do
			if under "${i#"$mod"/}" keyvault/memstore; then
				violation "$p" "imports keyvault/memstore outside a _test.go file"
			fi
		done
	fi
	# Test-only chains: the simulated EVM links a whole node into a binary.
	if [[ $p != test/evmnet ]]; then
		for d in "${dps[@]}"; do
			r=${d#"$mod"/}
			if [[ $r == test/evmnet || $r == github.com/ethereum/go-ethereum/ethclient/simulated ]]; then
				violation "$p" "depends on $r outside a _test.go file (test-only simulated chain)"
			fi
		done
	fi
	# Rule 5.
	lp=$(layer "$p")
	for i in "${imps[@]}"; do
		[[ $i == "$mod"/* ]] || continue
		r=${i#"$mod"/}
		lr=$(layer "$r")
		if [[ -n $lp && -n $lr ]] && ((lr > lp)); then
			violation "$p" "imports $r (layer $lr is above layer $lp: no arrow runs back up)"
		fi
		if under "$p" api && ! under "$r" api; then
			violation "$p" "imports $r (api is the contract: it imports nothing of OCV but api/...)"
		fi
		if { under "$p" internal/cli || under "$p" internal/mcpserver; } && under "$r" proxy; then
			violation "$p" "imports $r (a client of the API imports nothing of the proxy)"
		fi
	done
	if [[ $p == internal/egress ]]; then
		for i in "${imps[@]}"; do
			is_std "$i" || violation "$p" "imports $i (the outbound policy is a leaf: the standard library only)"
		done
	fi
	if [[ $p == api/problem ]]; then
		for i in "${imps[@]}"; do
			is_std "$i" || violation "$p" "imports $i (problem is a leaf: the standard library only)"
		done
	fi

	for f in $files; do
		if grep -Eq '^func init\(\)' "$dir/$f"; then
			violation "$p" "$f declares func init() (no init registration: use an explicit chooser)"
		fi
	done

	# Rule 5.
	if under "$p" internal/store; then
		for d in "${dps[@]}"; do
			r=${d#"$mod"/}
			if under "$r" proxy || under "$r" api; then
				violation "$p" "depends on $r (storage imports nothing from the edge above it)"
			fi
		done
	fi
done <<<"$listing"

# Rule 6.
for f in proxy/handlers/*.go; do
	[[ $f == *_test.go ]] && continue
	n=$(wc -l <"$f")
	if ((n > 200)); then
		violation "$f" "$n lines (a handler file stays under 200: move the logic to a service)"
	fi
done
while IFS=: read -r f name n; do
	violation "$f" "interface $name has $n methods (at most 20)"
done < <(git ls-files '*.go' ':!:*_test.go' | xargs awk '
	/^type [A-Za-z0-9_]+ interface \{$/ { name = $2; n = 0; next }
	name != "" && /^\}/ { if (n > 20) print FILENAME ":" name ":" n; name = ""; next }
	name != "" && /^\t[A-Z][A-Za-z0-9_]*\(/ { n++ }
')

if ((violations > 0)); then
	echo "depcheck: $violations violation(s) of DESIGN.md section 5" >&2
	exit 1
fi
echo "depcheck: ok"
