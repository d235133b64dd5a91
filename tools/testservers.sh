#!/usr/bin/env bash
# tools/testservers.sh [CMD [ARGS...]]
#
# Starts a throwaway PostgreSQL cluster and an S3-compatible server (versitygw, posix backend)
# on 127.0.0.1 at random free ports, each in a temporary directory of its own, runs CMD with
# the variables below exported, then stops both servers by PID and removes their directories,
# however CMD ends: success, failure, Ctrl-C or SIGTERM. The exit status is CMD's.
#
#   HOOT_TEST_POSTGRES  postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable (superuser)
#   HOOT_TEST_S3        s3://hoot-test (the bucket exists and is empty)
#   AWS_ENDPOINT_URL    http://127.0.0.1:PORT (path-style addressing)
#   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY  random for each run
#   AWS_REGION          us-east-1
#   HOOT_FLEET_TESTS    required: tests that need these servers fail instead of skipping
#   HOOT_VERSITYGW      the versitygw binary, for tests that run an object store of their own
#   HOOT_TEST_GETH      http://127.0.0.1:PORT: a geth --dev node's JSON-RPC, with its funded
#                       development account (eth_accounts) unlocked; a chain of its own per run
#
# Without CMD it prints the exports and waits until Ctrl-C (this is `make testservers`).
#
# Needs PostgreSQL 14 or later (initdb, pg_ctl, pg_isready; apt-get install postgresql), curl
# and Go: versitygw and geth are installed into bin/ with `go install` when bin/ lacks that
# version (geth takes minutes to build the first time).
# bin/ also keeps a copy of what initdb makes, to start faster. Run as root, PostgreSQL runs as
# the postgres user. HOOT_PG_BINDIR overrides the directory in which initdb is looked for.

# Functions that only traps call look unreachable to shellcheck (SC2317).
# shellcheck disable=SC2317
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
VERSITYGW_MODULE=github.com/versity/versitygw
VERSITYGW_VERSION=v1.8.0
VERSITYGW=$ROOT/bin/versitygw
GETH_MODULE=github.com/ethereum/go-ethereum
GETH_VERSION=v1.17.10
GETH=$ROOT/bin/geth
BUCKET=hoot-test
REGION=us-east-1
# Each server gets this many random ports to try before the script gives up.
PORT_ATTEMPTS=10
# Seconds a server may take to start, and to stop before it is killed.
START_TIMEOUT=30
STOP_TIMEOUT=10

say() { echo "testservers: $*" >&2; }
die() {
	say "error: $*"
	exit 1
}

# tail_log FILE: the end of a server's log, for a failure message.
tail_log() {
	if [[ -s $1 ]]; then
		say "last lines of $1:"
		tail -n 20 "$1" | sed 's/^/    /' >&2
	fi
}

# running PID: whether the process is alive. A zombie is not: the server's parent may be a
# PID 1 that reaps nobody. /proc/PID/stat reads "PID (NAME) STATE ..."; ps is not on every
# machine.
running() {
	local stat
	if [[ -d /proc/self ]]; then
		# read, not $(<file): under set -e a missing file would end the script.
		{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
		stat=${stat##*) }
		[[ ${stat%% *} != Z ]]
	else
		kill -0 "$1" 2>/dev/null
	fi
}

# stop_pid PID SIGNAL: sends SIGNAL, waits up to STOP_TIMEOUT seconds, then sends SIGKILL.
stop_pid() {
	local pid=$1 sig=$2 i
	running "$pid" || return 0
	kill -s "$sig" "$pid" 2>/dev/null || return 0
	for ((i = 0; i < STOP_TIMEOUT * 50; i++)); do
		running "$pid" || return 0
		sleep 0.02
	done
	say "pid $pid did not stop after $STOP_TIMEOUT s; killing it"
	kill -s KILL "$pid" 2>/dev/null || true
}

# random_port: a port on 127.0.0.1 that nothing listens on now. It is below Linux's ephemeral
# range (32768 and up), where outgoing connections take theirs. Whoever starts a server on it
# still retries on failure: another process may take the port in between.
random_port() {
	local port i
	for ((i = 0; i < 100; i++)); do
		port=$((20000 + RANDOM % 12000))
		# A connection that succeeds means somebody listens there.
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	die "found no free port on 127.0.0.1"
}

# random_hex N: N random bytes as hexadecimal.
random_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

# --- PostgreSQL ---------------------------------------------------------------------------------

# pg_bindir: the directory that holds initdb, pg_ctl and pg_isready. Debian keeps one per major
# version under /usr/lib/postgresql and does not put initdb on PATH; the newest one wins.
pg_bindir() {
	local dir
	if [[ -n ${HOOT_PG_BINDIR:-} ]]; then
		echo "$HOOT_PG_BINDIR"
		return
	fi
	dir=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1)
	if [[ -n $dir && -x $dir/initdb ]]; then
		echo "$dir"
		return
	fi
	# pg_config comes with libpq, whose version may differ from the server's: check for initdb.
	if command -v pg_config >/dev/null && dir=$(pg_config --bindir) && [[ -x $dir/initdb ]]; then
		echo "$dir"
		return
	fi
	if dir=$(command -v initdb); then
		dirname "$(readlink -f "$dir")"
		return
	fi
	die "PostgreSQL 14 or later is needed (initdb, pg_ctl): apt-get install postgresql"
}

# as_postgres CMD...: PostgreSQL refuses to run as root; root runs it as the postgres user.
# setpriv execs CMD, where runuser would wait for it in a process of its own that survives a
# Ctrl-C, which would make this shell think CMD had handled the signal and go on.
as_postgres() {
	if ((EUID == 0)); then
		setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"
	else
		"$@"
	fi
}

pg_dir=
pg_pid=
pg_port=
pg_version=
template_tmp=

start_postgres() {
	local bin tool major owner template attempt log
	bin=$(pg_bindir)
	for tool in initdb pg_ctl pg_isready postgres; do
		[[ -x $bin/$tool ]] || die "$bin/$tool is missing: apt-get install postgresql"
	done
	# "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
	pg_version=$("$bin/postgres" --version | awk '{ print $3 }')
	major=${pg_version%%[!0-9]*}
	if [[ -z $major ]] || ((major < 14)); then
		die "PostgreSQL 14 or later is needed, $bin has $("$bin/postgres" --version)"
	fi

	pg_dir=$work/postgres
	mkdir "$pg_dir"
	if ((EUID == 0)); then
		id postgres >/dev/null 2>&1 || die "run as root, PostgreSQL needs a postgres user to run as: apt-get install postgresql creates it"
		chown postgres: "$pg_dir"
	fi
	chmod 700 "$pg_dir"

	# initdb takes a second or more, several on a busy machine. What it makes depends only on the
	# major version, the options below and the owner, so the first run keeps a copy in bin/ (git
	# ignores it, make clean removes it) and later runs copy that, in a few tenths of a second.
	owner=$(id -un)
	((EUID != 0)) || owner=postgres
	template=$ROOT/bin/postgres-template-$major-$owner-1
	if ! [[ -f $template/PG_VERSION ]] || ! cp -a "$template" "$pg_dir/data" 2>/dev/null; then
		rm -rf "$pg_dir/data"
		# initdb must not start in a directory the postgres user cannot read (root's cwd, say).
		if ! (cd "$pg_dir" && as_postgres "$bin/initdb" -D "$pg_dir/data" -U postgres \
			--auth=trust -E UTF8 --locale=C --no-sync --no-instructions) >"$work/initdb.log" 2>&1; then
			tail_log "$work/initdb.log"
			die "initdb failed (PostgreSQL 14 or later is needed: apt-get install postgresql)"
		fi
		# Copied aside first, then renamed, so that no run ever copies half a template.
		template_tmp=$ROOT/bin/.postgres-template.$$
		if mkdir -p "$ROOT/bin" && cp -a "$pg_dir/data" "$template_tmp" 2>/dev/null; then
			mv -T "$template_tmp" "$template" 2>/dev/null || true
		fi
		rm -rf "$template_tmp"
		template_tmp=
	fi
	# A throwaway cluster: trust authentication (initdb --auth=trust above) on loopback only, and
	# no durability. fsync, synchronous_commit and full_page_writes off make commits cheap; a
	# crash loses the cluster, which is removed on exit anyway.
	cat >>"$pg_dir/data/postgresql.conf" <<-EOF

		# tools/testservers.sh
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$pg_dir'
		max_connections = 200
		fsync = off
		synchronous_commit = off
		full_page_writes = off
	EOF

	log=$pg_dir/postgres.log
	for ((attempt = 1; attempt <= PORT_ATTEMPTS; attempt++)); do
		pg_port=$(random_port)
		rm -f "$log"
		# pg_ctl -w returns once the server accepts connections, or at once when it has died.
		if (cd "$pg_dir" && as_postgres "$bin/pg_ctl" -D "$pg_dir/data" -l "$log" \
			-o "-p $pg_port" -w -t "$START_TIMEOUT" start) >"$work/pg_ctl.log" 2>&1; then
			read -r pg_pid <"$pg_dir/data/postmaster.pid"
			# The check over TCP, the way the tests connect.
			if "$bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -t 10; then
				return
			fi
			tail_log "$log"
			die "PostgreSQL started but does not answer on 127.0.0.1:$pg_port"
		fi
		grep -q 'Address already in use' "$log" 2>/dev/null || break
	done
	tail_log "$work/pg_ctl.log"
	tail_log "$log"
	die "PostgreSQL did not start (PostgreSQL 14 or later is needed: apt-get install postgresql)"
}

stop_postgres() {
	[[ -n $pg_dir ]] || return 0
	# Interrupted while pg_ctl waited, the script has not read the PID yet.
	if [[ -z $pg_pid && -f $pg_dir/data/postmaster.pid ]]; then
		read -r pg_pid <"$pg_dir/data/postmaster.pid" || true
	fi
	# SIGINT is PostgreSQL's fast shutdown: it ends the sessions and stops.
	[[ -z $pg_pid ]] || stop_pid "$pg_pid" INT
}

# --- versitygw ----------------------------------------------------------------------------------

# install_versitygw: puts versitygw VERSITYGW_VERSION into bin/ unless it is there already. The
# version is read from the module information Go puts in the binary.
versitygw_version() {
	go version -m "$VERSITYGW" 2>/dev/null | awk -v m="$VERSITYGW_MODULE" '$1 == "mod" && $2 == m { print $3 }'
}

install_versitygw() {
	[[ -x $VERSITYGW && $(versitygw_version) == "$VERSITYGW_VERSION" ]] && return
	command -v go >/dev/null || die "Go is needed to install versitygw into bin/"
	mkdir -p "$ROOT/bin"
	# Two copies of the script may get here at once: one installs, the other waits.
	exec 9>"$ROOT/bin/.versitygw.lock"
	command -v flock >/dev/null && flock 9
	if ! [[ -x $VERSITYGW && $(versitygw_version) == "$VERSITYGW_VERSION" ]]; then
		say "installing versitygw $VERSITYGW_VERSION into bin/ (once; a few minutes)"
		# go install will not replace a file it cannot tell is a Go binary.
		rm -f "$VERSITYGW"
		GOBIN="$ROOT/bin" GOWORK=off go install "$VERSITYGW_MODULE/cmd/versitygw@$VERSITYGW_VERSION" ||
			die "go install $VERSITYGW_MODULE/cmd/versitygw@$VERSITYGW_VERSION failed"
	fi
	exec 9>&-
}

s3_dir=
s3_pid=
s3_port=

# s3 CURL_ARGS...: a request signed with the run's keys; prints the HTTP status.
s3() {
	curl -sS -o "$work/s3-response" -w '%{http_code}' --max-time 10 \
		--aws-sigv4 "aws:amz:$REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" "$@"
}

start_s3() {
	local attempt i log status meta=()
	command -v curl >/dev/null || die "curl is needed: apt-get install curl"
	install_versitygw

	s3_dir=$work/s3
	mkdir -p "$s3_dir/data"
	AWS_ACCESS_KEY_ID=$(random_hex 10)
	AWS_SECRET_ACCESS_KEY=$(random_hex 20)
	log=$s3_dir/versitygw.log
	for ((attempt = 1; attempt <= PORT_ATTEMPTS; attempt++)); do
		s3_port=$(random_port)
		# setsid: in a session of its own, a Ctrl-C on the terminal reaches CMD, not the server,
		# which stops only after CMD has finished.
		setsid "$VERSITYGW" --port "127.0.0.1:$s3_port" --region "$REGION" --quiet \
			--access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" \
			posix "${meta[@]}" "$s3_dir/data" </dev/null >"$log" 2>&1 &
		s3_pid=$!
		for ((i = 0; i < START_TIMEOUT * 50; i++)); do
			running "$s3_pid" || break
			# Any HTTP answer, even an error, means it listens.
			status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$s3_port/") || true
			[[ $status == 000 ]] || break
			sleep 0.02
		done
		if running "$s3_pid"; then
			[[ $status != 000 ]] || die "versitygw did not answer on 127.0.0.1:$s3_port within $START_TIMEOUT s"
			break
		fi
		s3_pid=
		if grep -q 'address already in use' "$log"; then
			continue
		fi
		# The posix backend keeps object metadata in extended attributes, which some file systems
		# (tmpfs before Linux 6.6) lack; a sidecar directory holds it on any file system.
		if grep -q 'xattr check failed' "$log" && ((${#meta[@]} == 0)); then
			mkdir -p "$s3_dir/meta"
			meta=(--sidecar "$s3_dir/meta")
			continue
		fi
		tail_log "$log"
		die "versitygw did not start"
	done
	[[ -n $s3_pid ]] || die "versitygw found no free port in $PORT_ATTEMPTS attempts"

	# The bucket, made through the S3 API so that the gateway records its owner. The request is
	# signed with the run's keys: a 200 also proves that the server on the port is this one.
	# curl signs no payload hash by itself; this one is the SHA-256 of the empty body.
	status=$(s3 -X PUT -H 'x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' \
		"http://127.0.0.1:$s3_port/$BUCKET") || true
	if [[ $status != 200 ]]; then
		tail_log "$work/s3-response"
		tail_log "$log"
		die "versitygw did not create bucket $BUCKET (HTTP $status)"
	fi
}

stop_s3() {
	[[ -z $s3_pid ]] || stop_pid "$s3_pid" TERM
}

# --- geth ---------------------------------------------------------------------------------------

geth_version() {
	go version -m "$GETH" 2>/dev/null | awk -v m="$GETH_MODULE" '$1 == "mod" && $2 == m { print $3 }'
}

install_geth() {
	[[ -x $GETH && $(geth_version) == "$GETH_VERSION" ]] && return
	command -v go >/dev/null || die "Go is needed to install geth into bin/"
	mkdir -p "$ROOT/bin"
	exec 8>"$ROOT/bin/.geth.lock"
	command -v flock >/dev/null && flock 8
	if ! [[ -x $GETH && $(geth_version) == "$GETH_VERSION" ]]; then
		say "installing geth $GETH_VERSION into bin/ (once; several minutes)"
		rm -f "$GETH"
		GOBIN="$ROOT/bin" GOWORK=off go install "$GETH_MODULE/cmd/geth@$GETH_VERSION" ||
			die "go install $GETH_MODULE/cmd/geth@$GETH_VERSION failed"
	fi
	exec 8>&-
}

geth_dir=
geth_pid=
geth_port=

# rpc METHOD: the result of a JSON-RPC call without parameters to the geth on geth_port.
geth_rpc() {
	curl -s --max-time 1 -H 'Content-Type: application/json' \
		--data '{"jsonrpc":"2.0","id":1,"method":"'"$1"'","params":[]}' "http://127.0.0.1:$geth_port/"
}

start_geth() {
	local attempt i log answer
	install_geth
	geth_dir=$work/geth
	mkdir -p "$geth_dir"
	log=$geth_dir/geth.log
	for ((attempt = 1; attempt <= PORT_ATTEMPTS; attempt++)); do
		geth_port=$(random_port)
		# --dev: a chain of one's own that seals a block as soon as a transaction arrives, with
		# one funded account, unlocked. Networking is off (no peers, no discovery, no listener);
		# only the HTTP JSON-RPC listens, on loopback.
		setsid "$GETH" --dev --datadir "$geth_dir/data" --ipcdisable --nodiscover --maxpeers 0 --port 0 \
			--http --http.addr 127.0.0.1 --http.port "$geth_port" --http.api eth,net,web3,debug,txpool \
			--authrpc.addr 127.0.0.1 --authrpc.port "$(random_port)" --verbosity 2 </dev/null >"$log" 2>&1 &
		geth_pid=$!
		answer=
		for ((i = 0; i < START_TIMEOUT * 50; i++)); do
			running "$geth_pid" || break
			answer=$(geth_rpc eth_accounts) || true
			[[ $answer != *'"result":["0x'* ]] || break
			sleep 0.02
		done
		if running "$geth_pid"; then
			[[ $answer == *'"result":["0x'* ]] || die "geth did not answer on 127.0.0.1:$geth_port within $START_TIMEOUT s"
			return
		fi
		geth_pid=
		grep -qi 'address already in use' "$log" && continue
		tail_log "$log"
		die "geth did not start"
	done
	die "geth found no free port in $PORT_ATTEMPTS attempts"
}

stop_geth() {
	[[ -z $geth_pid ]] || stop_pid "$geth_pid" TERM
}

# --- the run ------------------------------------------------------------------------------------

work=
wrapper_pid=
signalled=
# The signal CMD gets for a SIGINT; see where CMD starts.
sigint_as=INT

cleanup() {
	local status=$?
	set +e
	trap - INT TERM HUP
	stop_geth
	stop_s3
	stop_postgres
	[[ -z $work ]] || rm -rf "$work"
	[[ -z $template_tmp ]] || rm -rf "$template_tmp"
	exit "$status"
}
trap cleanup EXIT

# exit_status SIG: the status of a process that a signal ended.
exit_status() { case $1 in INT) echo 130 ;; HUP) echo 129 ;; *) echo 143 ;; esac; }

# on_signal SIG: while CMD runs, passes SIG on to it and lets it end as it would in a terminal;
# before CMD runs, exits (cleanup stops what has started).
on_signal() {
	local pid sig=$1
	signalled=$1
	[[ -n $wrapper_pid ]] || exit "$(exit_status "$sig")"
	[[ $sig != INT ]] || sig=$sigint_as
	{ read -r pid <"$work/cmd.pid"; } 2>/dev/null || pid=$wrapper_pid
	kill -s "$sig" "$pid" 2>/dev/null || true
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

started=$EPOCHREALTIME
work=$(mktemp -d "${TMPDIR:-/tmp}/hoot-testservers.XXXXXX")
# Run as root, the postgres user must reach its directory inside this one.
chmod 711 "$work"

start_postgres
start_s3
start_geth

# Variables a developer's environment may hold that would send the tests elsewhere or add to
# the run's credentials.
unset AWS_ENDPOINT_URL_S3 AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_PROFILE
export HOOT_TEST_POSTGRES="postgres://postgres@127.0.0.1:$pg_port/postgres?sslmode=disable"
export HOOT_TEST_S3="s3://$BUCKET"
export AWS_ENDPOINT_URL="http://127.0.0.1:$s3_port"
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
export AWS_REGION=$REGION
export HOOT_FLEET_TESTS=required
# Tests that stop and start an object store of their own run this binary.
export HOOT_VERSITYGW=$VERSITYGW
export HOOT_TEST_GETH="http://127.0.0.1:$geth_port"

elapsed=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
say "PostgreSQL $pg_version on 127.0.0.1:$pg_port, versitygw $VERSITYGW_VERSION on 127.0.0.1:$s3_port, geth $GETH_VERSION on 127.0.0.1:$geth_port (started in ${elapsed}s)"

idle=
if (($# == 0)); then
	idle=1
	for name in HOOT_TEST_POSTGRES HOOT_TEST_S3 AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION HOOT_FLEET_TESTS HOOT_VERSITYGW HOOT_TEST_GETH; do
		printf 'export %s=%q\n' "$name" "${!name}"
	done
	say "running until Ctrl-C; in another terminal paste the exports above, then e.g. go test ./hootenanny/..."
	set -- sleep infinity
fi

# CMD runs in the background so that this shell can act on signals while it runs (a shell
# waiting for a foreground command acts only once the command has ended). A command started
# with & from a script ignores SIGINT; env --default-signal (coreutils 8.31 and later) restores
# it, so that CMD sees Ctrl-C and a forwarded SIGINT as it would in the foreground. Without it
# SIGINT is passed on as SIGTERM. stdin stays CMD's.
reset=()
if env --default-signal=INT true 2>/dev/null; then
	reset=(env --default-signal='INT,QUIT')
else
	sigint_as=TERM
fi
# A subshell starts CMD, writes its PID for on_signal and, when it ends, its exit status. This
# shell never waits for CMD itself: after a trap has interrupted a wait for a child, bash (5.2)
# may lose the child's status, and a second wait for it then hangs.
(
	"${reset[@]}" "$@" <&0 &
	echo "$!" >"$work/cmd.pid"
	wait "$!" && status=0 || status=$?
	echo "$status" >"$work/cmd.status"
) <&0 &
wrapper_pid=$!
# A trap interrupts the wait for the sleep, never one for CMD.
while running "$wrapper_pid"; do
	sleep 0.1 &
	wait "$!" || true
done
status=
{ read -r status <"$work/cmd.status"; } 2>/dev/null || true
if [[ -z $status ]]; then
	# The subshell was killed before CMD ended, by a signal sent to the whole process group.
	status=$(exit_status "${signalled:-TERM}")
fi
# Ended by a signal while idle is how `make testservers` is meant to end.
if [[ -n $idle && -n $signalled ]]; then
	status=0
fi
exit "$status"
