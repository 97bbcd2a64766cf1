# shellcheck shell=bash disable=SC2034
# scripts/lib.sh: helpers that prepare OCV's simulator stack (SoftHSM2 token and a private
# PostgreSQL cluster). Sourced by dev-env.sh, run.sh, test.sh and .ci/run; never executed.
#
# The functions are meant for scripts running with `set -euo pipefail`: a fatal problem
# calls ocv_die, which exits the calling script. Progress goes to stderr so that stdout
# stays free for `eval "$(scripts/dev-env.sh)"`.
#
# Layout (everything under the checkout's .ocv/, which .gitignore excludes):
#   .ocv/softhsm/softhsm2.conf   rendered from hsm-config/softhsm2.conf.tmpl
#   .ocv/softhsm/tokens/         SoftHSM token store (token label "ocv")
#   .ocv/softhsm/pin, so-pin     user and SO PIN, mode 0600, hex, no trailing newline
#   .ocv/pg/data/                PostgreSQL data directory      (.ocv/pg may be a symlink:
#   .ocv/pg/run/                 its Unix socket directory       see ocv_pg_locate)
#   .ocv/pg/postgres.log         its log
#   .ocv/database-url            URL of the private cluster's "ocv" database
#
# Knobs (environment): OCV_SOFTHSM_MODULE (default /usr/lib/softhsm/libsofthsm2.so),
# OCV_PG_LIBDIR (default /usr/lib/postgresql; the newest */bin is used), OCV_PG_PORT
# (default 54329; the cluster listens on a Unix socket only, so the number only names it).

OCV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
OCV_DIR="$OCV_ROOT/.ocv"
OCV_SOFTHSM_MODULE=${OCV_SOFTHSM_MODULE:-/usr/lib/softhsm/libsofthsm2.so}
OCV_PG_LIBDIR=${OCV_PG_LIBDIR:-/usr/lib/postgresql}
OCV_PG_PORT=${OCV_PG_PORT:-54329}
OCV_TOKEN_LABEL=ocv
OCV_APT_OPTS=(-o DPkg::Lock::Timeout=600)

# Set by ocv_pg_setup.
OCV_PG_BASE=""     # real directory holding data/, run/ and postgres.log
OCV_PG_SOCKDIR=""  # Unix socket directory
OCV_PG_STARTED=0   # 1 when this process started the cluster (run.sh/test.sh stop it again)
OCV_PG_AS=()       # command prefix that runs a program as the cluster's owner

ocv_log() { printf 'ocv: %s\n' "$*" >&2; }
ocv_die() {
	printf 'ocv: error: %s\n' "$*" >&2
	exit 1
}

# ocv_write_if_changed FILE MODE CONTENT: writes CONTENT to FILE (atomically, with MODE)
# only when it differs, so repeated runs touch nothing. Returns 0 when it wrote.
ocv_write_if_changed() {
	local file=$1 mode=$2 content=$3
	if [[ -f $file ]] && [[ $(<"$file") == "$content" ]]; then
		return 1
	fi
	(
		umask 077
		printf '%s\n' "$content" >"$file.tmp"
	)
	chmod "$mode" "$file.tmp"
	mv -f "$file.tmp" "$file"
}

# ocv_random_hex N: N random bytes as lowercase hex.
ocv_random_hex() {
	od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'
}

# ocv_clear_pg_env unsets every PG* variable, so a developer's PGHOST, PGPASSWORD or
# PGSSLMODE cannot leak into psql calls here, into pgx in the binaries, or into tests.
ocv_clear_pg_env() {
	local v
	for v in $(compgen -e PG || true); do
		unset "$v"
	done
}

# ---------------------------------------------------------------------------------------
# Packages

# ocv_pg_bindir prints the bin directory of the newest PostgreSQL under OCV_PG_LIBDIR
# (Debian keeps them off PATH), or nothing. The answer is cached once found.
ocv_pg_bindir() {
	if [[ -z ${OCV_PG_BINDIR:-} ]]; then
		local d
		OCV_PG_BINDIR=$(
			for d in "$OCV_PG_LIBDIR"/*/bin; do
				if [[ -x $d/initdb && -x $d/pg_ctl && -x $d/postgres && -x $d/psql ]]; then
					printf '%s %s\n' "$(basename "$(dirname "$d")")" "$d"
				fi
			done | sort -V -k1,1 | tail -n 1 | cut -d' ' -f2-
		)
	fi
	printf '%s' "$OCV_PG_BINDIR"
}

# ocv_pkg_present PKG succeeds when what the apt package PKG provides is usable here.
ocv_pkg_present() {
	case $1 in
	softhsm2) [[ -f $OCV_SOFTHSM_MODULE ]] && command -v softhsm2-util >/dev/null ;;
	postgresql) [[ -n $(ocv_pg_bindir) ]] ;;
	libc6-dev) [[ -f /usr/include/stdio.h ]] ;;
	ca-certificates) [[ -f /etc/ssl/certs/ca-certificates.crt ]] ;;
	make | gcc | npm | git | curl) command -v "$1" >/dev/null ;;
	*) dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q ' installed$' ;;
	esac
}

# ocv_ensure_packages PKG...: installs the missing ones with apt-get when root (one
# `apt-get update` per process); otherwise prints the exact command and exits 1.
# Runs nothing when everything is present.
ocv_ensure_packages() {
	local p missing=()
	for p in "$@"; do
		ocv_pkg_present "$p" || missing+=("$p")
	done
	((${#missing[@]} == 0)) && return 0

	local install="apt-get ${OCV_APT_OPTS[*]} install -y --no-install-recommends ${missing[*]}"
	if ! command -v apt-get >/dev/null; then
		ocv_die "missing packages: ${missing[*]} (no apt-get here; install them with your package manager)"
	fi
	if [[ $EUID -ne 0 ]]; then
		ocv_log "missing packages: ${missing[*]}"
		ocv_log "install them as root, then run this again:"
		printf '  sudo apt-get update && sudo %s\n' "$install" >&2
		exit 1
	fi
	ocv_log "installing: ${missing[*]}"
	if [[ -z ${OCV_APT_UPDATED:-} ]]; then
		apt-get "${OCV_APT_OPTS[@]}" update -q >&2 || ocv_die "apt-get update failed"
		OCV_APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get "${OCV_APT_OPTS[@]}" install -y \
		--no-install-recommends "${missing[@]}" >&2 || ocv_die "apt-get install failed: ${missing[*]}"
	for p in "${missing[@]}"; do
		ocv_pkg_present "$p" || ocv_die "package $p installed but still not usable (check OCV_SOFTHSM_MODULE / OCV_PG_LIBDIR)"
	done
}

# ---------------------------------------------------------------------------------------
# SoftHSM2

# ocv_softhsm_labels prints the label of every initialised token (SOFTHSM2_CONF must be set).
ocv_softhsm_labels() {
	local out line
	out=$(softhsm2-util --show-slots 2>/dev/null) || return 0
	while IFS= read -r line; do
		if [[ $line =~ ^[[:space:]]*Label:[[:space:]]*(.*[^[:space:]])[[:space:]]*$ ]]; then
			printf '%s\n' "${BASH_REMATCH[1]}"
		fi
	done <<<"$out"
}

# ocv_softhsm_setup renders .ocv/softhsm/softhsm2.conf, exports SOFTHSM2_CONF and creates
# the token labelled "ocv" when it does not exist yet. PINs are random hex written without
# a trailing newline (readers should still trim whitespace, for hand-made files).
ocv_softhsm_setup() {
	local dir="$OCV_DIR/softhsm" tmpl="$OCV_ROOT/hsm-config/softhsm2.conf.tmpl" conf
	[[ -f $tmpl ]] || ocv_die "missing $tmpl"
	install -d -m 0700 "$dir" "$dir/tokens"
	conf=$(<"$tmpl")
	ocv_write_if_changed "$dir/softhsm2.conf" 0600 "${conf//@OCV_TOKEN_DIR@/$dir/tokens}" || true
	export SOFTHSM2_CONF="$dir/softhsm2.conf"

	local labels
	labels=$(ocv_softhsm_labels)
	if grep -Fxq -- "$OCV_TOKEN_LABEL" <<<"$labels"; then
		[[ -s $dir/pin ]] || ocv_die "token '$OCV_TOKEN_LABEL' exists but $dir/pin is missing; remove $dir/tokens to start over (destroys the simulator's keys)"
		return 0
	fi
	local pin so_pin
	pin=$(ocv_random_hex 16)
	so_pin=$(ocv_random_hex 16)
	(
		umask 077
		printf '%s' "$pin" >"$dir/pin"
		printf '%s' "$so_pin" >"$dir/so-pin"
	)
	chmod 0600 "$dir/pin" "$dir/so-pin"
	# softhsm2-util reads PINs only from argv or a terminal; this is a local simulator token.
	softhsm2-util --init-token --free --label "$OCV_TOKEN_LABEL" \
		--pin "$pin" --so-pin "$so_pin" >/dev/null || ocv_die "initialising SoftHSM token '$OCV_TOKEN_LABEL'"
	ocv_log "created SoftHSM token '$OCV_TOKEN_LABEL' (PIN in $dir/pin)"
}

# ---------------------------------------------------------------------------------------
# PostgreSQL (private cluster)

# ocv_pg_run CMD...: runs CMD as the cluster's owner from /, without the lock descriptors
# (a postmaster started here must not inherit and hold them).
ocv_pg_run() {
	(cd / && "${OCV_PG_AS[@]}" "$@") 7>&- 8>&- 9>&-
}

# ocv_urlencode S: percent-encodes S for a URL query value (keeps / . _ ~ -).
ocv_urlencode() {
	local LC_ALL=C s=$1 out="" c i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		[A-Za-z0-9/._~-]) out+=$c ;;
		*) out+=$(printf '%%%02X' "'$c") ;;
		esac
	done
	printf '%s' "$out"
}

# ocv_pg_url DB: the libpq/pgx URL of database DB in the private cluster.
ocv_pg_url() {
	printf 'postgres://postgres@/%s?host=%s&port=%s&sslmode=disable' \
		"$1" "$(ocv_urlencode "$OCV_PG_SOCKDIR")" "$OCV_PG_PORT"
}

# ocv_pg_locate chooses OCV_PG_BASE, OCV_PG_SOCKDIR and the user that runs the cluster.
# The base is .ocv/pg unless, as root, the postgres user cannot reach .ocv (a checkout
# under /root): then it is ocv-<hash of the checkout path> in the postgres user's home
# (/var/lib/postgresql, not a temp dir: tmp cleaners would eat an idle cluster), and
# .ocv/pg is a symlink to it. The socket directory is <base>/run unless that path would
# exceed the 107-byte sun_path limit; then it is /tmp/ocv-pg-<hash> (recreated as needed).
ocv_pg_locate() {
	local link="$OCV_DIR/pg" user hash
	ocv_pg_bindir >/dev/null # fills the cache in this shell
	install -d -m 0755 "$OCV_DIR"
	hash=$(printf '%s' "$OCV_ROOT" | sha256sum | cut -c1-12)
	if [[ -L $link ]]; then
		OCV_PG_BASE=$(readlink "$link")
	else
		OCV_PG_BASE=$link
		if [[ ! -d $link && $EUID -eq 0 ]] && ! (cd / && runuser -u postgres -- test -x "$OCV_DIR") 2>/dev/null; then
			local home
			home=$(getent passwd postgres | cut -d: -f6)
			[[ -n $home && -d $home ]] || home=/var/tmp
			OCV_PG_BASE="$home/ocv-$hash"
			ocv_log "the postgres user cannot reach $OCV_DIR: the cluster lives in $OCV_PG_BASE (.ocv/pg links to it)"
		fi
	fi

	if [[ $EUID -eq 0 ]]; then
		user=postgres
		if [[ -d $OCV_PG_BASE/data ]]; then
			user=$(stat -c %U "$OCV_PG_BASE/data")
		fi
		[[ $user != root ]] || ocv_die "$OCV_PG_BASE/data is owned by root; remove it to recreate the cluster"
		id -u "$user" >/dev/null 2>&1 || ocv_die "user '$user' does not exist (it comes with the postgresql package)"
		OCV_PG_AS=(runuser -u "$user" --)
	else
		user=$(id -un)
		OCV_PG_AS=()
	fi

	OCV_PG_SOCKDIR="$OCV_PG_BASE/run"
	local sock="$OCV_PG_SOCKDIR/.s.PGSQL.$OCV_PG_PORT"
	if ((${#sock} > 107)); then
		OCV_PG_SOCKDIR="/tmp/ocv-pg-$hash"
	fi

	local d
	for d in "$OCV_PG_BASE" "$OCV_PG_SOCKDIR"; do
		if [[ ! -d $d ]]; then
			install -d -m 0755 "$d"
			[[ $EUID -ne 0 ]] || chown "$user:" "$d"
		fi
	done
	if [[ $OCV_PG_BASE != "$link" && ! -e $link ]]; then
		ln -sfn "$OCV_PG_BASE" "$link"
	fi
}

# ocv_pg_config_text prints the settings OCV manages (written to data/ocv.conf).
ocv_pg_config_text() {
	local sockdir=${OCV_PG_SOCKDIR//\'/\'\'}
	cat <<EOF
# Managed by scripts/lib.sh (ocv_pg_setup): rewritten on every run, edit that file instead.
listen_addresses = ''
unix_socket_directories = '$sockdir'
port = $OCV_PG_PORT
# Durability is a requirement: never turn these off, not even for speed in tests.
fsync = on
synchronous_commit = on
full_page_writes = on
shared_buffers = 128MB
max_connections = 200
EOF
}

# ocv_pg_running succeeds when the private cluster's postmaster is alive.
ocv_pg_running() {
	[[ -f $OCV_PG_BASE/data/PG_VERSION ]] || return 1
	ocv_pg_run "$(ocv_pg_bindir)/pg_ctl" -D "$OCV_PG_BASE/data" status >/dev/null 2>&1
}

# ocv_pg_setup creates (initdb), configures and starts the private cluster when needed,
# creates the database "ocv", and writes its URL to .ocv/database-url.
ocv_pg_setup() {
	local bindir data
	bindir=$(ocv_pg_bindir)
	[[ -n $bindir ]] || ocv_die "no PostgreSQL under $OCV_PG_LIBDIR"
	ocv_pg_locate
	data="$OCV_PG_BASE/data"

	if [[ ! -f $data/PG_VERSION ]]; then
		rm -rf "$data" # a partial directory from an interrupted initdb
		ocv_log "creating PostgreSQL cluster in $data"
		if ! ocv_pg_run "$bindir/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C \
			>"$OCV_PG_BASE/initdb.log" 2>&1; then
			cat "$OCV_PG_BASE/initdb.log" >&2
			ocv_die "initdb failed"
		fi
		# Appending as root keeps the file's owner; OCV's settings live in ocv.conf.
		printf "\ninclude_if_exists = 'ocv.conf'\n" >>"$data/postgresql.conf"
	fi

	local changed=0
	if ocv_write_if_changed "$data/ocv.conf" 0600 "$(ocv_pg_config_text)"; then
		changed=1
		[[ $EUID -ne 0 ]] || chown "$(stat -c %U "$data"):" "$data/ocv.conf"
	fi

	if ocv_pg_running; then
		if ((changed)); then
			ocv_log "PostgreSQL settings changed: restarting the cluster"
			ocv_pg_run "$bindir/pg_ctl" -D "$data" -l "$OCV_PG_BASE/postgres.log" -m fast -w -t 120 restart >/dev/null ||
				ocv_die "restarting PostgreSQL failed; see $OCV_PG_BASE/postgres.log"
		fi
	else
		if ! ocv_pg_run "$bindir/pg_ctl" -D "$data" -l "$OCV_PG_BASE/postgres.log" -w -t 120 start >/dev/null; then
			tail -n 20 "$OCV_PG_BASE/postgres.log" >&2 || true
			ocv_die "starting PostgreSQL failed; see $OCV_PG_BASE/postgres.log"
		fi
		OCV_PG_STARTED=1
		ocv_log "PostgreSQL started (socket in $OCV_PG_SOCKDIR, port $OCV_PG_PORT)"
	fi

	local psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$OCV_PG_SOCKDIR" -p "$OCV_PG_PORT" -U postgres)
	if [[ $("${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'ocv'") != 1 ]]; then
		"${psql[@]}" -d postgres -c 'CREATE DATABASE ocv' >/dev/null || ocv_die "creating database ocv"
		ocv_log "created database ocv"
	fi
	ocv_write_if_changed "$OCV_DIR/database-url" 0644 "$(ocv_pg_url ocv)" || true
}

# ocv_pg_stop stops the private cluster (fast shutdown: open sessions are closed, committed
# data is kept). A no-op when it is not running.
ocv_pg_stop() {
	[[ -n $OCV_PG_BASE ]] || ocv_pg_locate
	ocv_pg_running || return 0
	ocv_pg_run "$(ocv_pg_bindir)/pg_ctl" -D "$OCV_PG_BASE/data" -m fast -w -t 120 stop >/dev/null ||
		ocv_die "stopping PostgreSQL failed; see $OCV_PG_BASE/postgres.log"
	OCV_PG_STARTED=0
	ocv_log "PostgreSQL stopped"
}

# ocv_pg_hold takes a shared lock on .ocv/pg-users.lock for the life of this process and
# its children: the cluster is in use. Several make run / make test may share a cluster.
ocv_pg_hold() {
	install -d -m 0755 "$OCV_DIR"
	exec 7>"$OCV_DIR/pg-users.lock"
	flock -s -w 300 7 || ocv_die "the PostgreSQL cluster is being stopped by another script"
}

# ocv_pg_release drops this process's hold and stops the cluster when no other script
# holds one (their children, e.g. a running go test, keep the lock too).
ocv_pg_release() {
	exec 7>&-
	[[ -n $OCV_PG_BASE ]] || return 0
	exec 7>"$OCV_DIR/pg-users.lock"
	if flock -n -x 7; then
		ocv_pg_stop
	else
		ocv_log "PostgreSQL is still used by another make run/test: leaving it running"
	fi
	exec 7>&-
}

# ---------------------------------------------------------------------------------------
# Whole simulator environment

# ocv_lock / ocv_unlock serialise preparation between concurrent make run / make test.
ocv_lock() {
	install -d -m 0755 "$OCV_DIR"
	exec 9>"$OCV_DIR/dev-env.lock"
	flock -w 300 9 || ocv_die "another OCV script holds $OCV_DIR/dev-env.lock"
}
ocv_unlock() { exec 9>&-; }

# ocv_dev_env prepares everything make run needs and exports SOFTHSM2_CONF and
# OCV_DATABASE_URL. An OCV_DATABASE_URL set by the caller is used as is, unless it is the
# private cluster's own URL (from an earlier eval of dev-env.sh), which is then started.
ocv_dev_env() {
	ocv_ensure_packages softhsm2 postgresql
	ocv_clear_pg_env
	ocv_lock
	ocv_softhsm_setup
	local private=""
	[[ -f $OCV_DIR/database-url ]] && private=$(<"$OCV_DIR/database-url")
	if [[ -n ${OCV_DATABASE_URL:-} && $OCV_DATABASE_URL != "$private" ]]; then
		ocv_log "using OCV_DATABASE_URL from the environment (no private cluster)"
	else
		ocv_pg_hold
		ocv_pg_setup
		export OCV_DATABASE_URL
		OCV_DATABASE_URL=$(ocv_pg_url ocv)
	fi
	ocv_unlock
}

# ocv_shquote S prints S single-quoted for the shell.
ocv_shquote() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}

# ocv_print_env prints the exported environment as shell code for eval.
ocv_print_env() {
	printf 'export SOFTHSM2_CONF=%s\n' "$(ocv_shquote "$SOFTHSM2_CONF")"
	printf 'export OCV_DATABASE_URL=%s\n' "$(ocv_shquote "$OCV_DATABASE_URL")"
}
