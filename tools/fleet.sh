#!/usr/bin/env bash
# tools/fleet.sh: a small fleet on this machine, to watch it at work: two holler gateways and
# three hootenanny workers, each worker with a data directory of its own (as on machines of its
# own) and connected to both gateways, all sharing one PostgreSQL database and one S3 prefix.
# `make run-fleet` runs it inside tools/testservers.sh, which starts the PostgreSQL and the
# object store and exports where they are (HOOT_TEST_POSTGRES, HOOT_TEST_S3 and the AWS_*
# variables). Ctrl-C stops everything.
#
#   HOOT_FLEET_HTTP   the first gateway's HTTP port (default 8080; the second takes the next)
#   HOOT_FLEET_ZMQ    the first gateway's worker port (default 5580; the second takes the next)
# shellcheck disable=SC2317
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
say() { echo "fleet: $*" >&2; }
[[ -n ${HOOT_TEST_POSTGRES:-} && -n ${HOOT_TEST_S3:-} ]] ||
	{ say "run me inside tools/testservers.sh (make run-fleet does), which starts PostgreSQL and the object store"; exit 1; }
[[ -x $ROOT/bin/holler && -x $ROOT/bin/hootenanny ]] || { say "build first: make build"; exit 1; }

http=${HOOT_FLEET_HTTP:-8080}
zmq=${HOOT_FLEET_ZMQ:-5580}
work=$(mktemp -d "${TMPDIR:-/tmp}/hoot-fleet.XXXXXX")
pids=()
stop() {
	trap - EXIT INT TERM
	say "stopping the fleet"
	for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	rm -rf "$work"
}
trap stop EXIT
trap 'exit 130' INT TERM

# One database for the fleet, in the throwaway cluster.
psql -q "$HOOT_TEST_POSTGRES" -c 'CREATE DATABASE hoot_fleet' >/dev/null
database=${HOOT_TEST_POSTGRES/\/postgres\?/\/hoot_fleet?}
cas=$HOOT_TEST_S3/fleet

gateways=()
for g in 0 1; do
	bin/holler serve --http-addr "127.0.0.1:$((http + g))" --worker-endpoint "tcp://127.0.0.1:$((zmq + g))" \
		--cas "$cas" --log-level "${HOOT_FLEET_LOG_LEVEL:-info}" 2> >(sed "s/^/gateway-$g: /" >&2) &
	pids+=($!)
	gateways+=(--gateway "tcp://127.0.0.1:$((zmq + g))")
done
for w in 1 2 3; do
	bin/hootenanny "${gateways[@]}" --name "worker-$w" --data "$work/worker-$w" --database "$database" --cas "$cas" \
		--log-level "${HOOT_FLEET_LOG_LEVEL:-info}" 2> >(sed "s/^/worker-$w: /" >&2) &
	pids+=($!)
done

cat >&2 <<EOF
fleet: two gateways, three workers, one PostgreSQL, one object store
fleet:   MCP at http://127.0.0.1:$http/mcp and http://127.0.0.1:$((http + 1))/mcp
fleet:   health at http://127.0.0.1:$http/healthz (the workers each gateway sees)
fleet:   database $database
fleet:   content  $cas (at $AWS_ENDPOINT_URL)
fleet: kill a worker (kill -9) and watch its calls and jobs go to the others; Ctrl-C stops all
EOF
# Wait until one of them ends (or Ctrl-C).
wait -n "${pids[@]}" || true
say "a process of the fleet exited"
