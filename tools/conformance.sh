#!/usr/bin/env bash
# Runs the official MCP conformance suite (pinned in package.json) in server mode against the
# real stack: bin/holler on a free loopback port with a hootenanny worker that serves the
# conformance fixtures, once for each protocol version in CONFORMANCE_REQUIREMENTS (default:
# both eras, 2025-11-25 and 2026-07-28, against the same endpoint). Exits non-zero when any
# scored check of any version fails. Called by `make conformance`.
set -euo pipefail
cd "$(dirname "$0")/.."

requirements="${CONFORMANCE_REQUIREMENTS:-2025-11-25 2026-07-28}"
node=node_modules/.bin/node
suite=node_modules/@modelcontextprotocol/conformance/dist/index.js
[[ -x $node && -f $suite ]] || { echo "conformance: run 'npm ci' first (make conformance does)"; exit 1; }

# Two free loopback ports: HTTP and the worker endpoint.
read -r http_port worker_port < <("$node" -e '
const net = require("net");
const take = () => new Promise(r => { const s = net.createServer(); s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => r(p)); }); });
Promise.all([take(), take()]).then(ps => console.log(ps.join(" ")));')

work=$(mktemp -d)
log="$work/holler.log"
bin/holler serve \
	--conformance \
	--http-addr "127.0.0.1:$http_port" \
	--worker-endpoint "tcp://127.0.0.1:$worker_port" \
	--worker-command "bin/hootenanny --conformance --data $work/data" \
	--log-level warn >"$log" 2>&1 &
holler=$!
stop() {
	kill "$holler" 2>/dev/null || true
	wait "$holler" 2>/dev/null || true
	rm -rf "$work"
}
trap stop EXIT

# Wait for the gateway and for the fixture worker to be live.
live=
for _ in $(seq 1 150); do
	if "$node" -e '
fetch(process.argv[1]).then(r => r.text().then(t => process.exit(r.ok && t.includes(process.argv[2]) ? 0 : 1))).catch(() => process.exit(1));' \
		"http://127.0.0.1:$http_port/healthz" conformance; then
		live=1
		break
	fi
	kill -0 "$holler" 2>/dev/null || { cat "$log"; echo "conformance: holler exited"; exit 1; }
	sleep 0.1
done
[[ -n $live ]] || { cat "$log"; echo "conformance: no conformance worker became live"; exit 1; }

# --requirements runs the scenarios a protocol version requires, on that version's wire; it
# cannot be combined with --spec-version.
status=0
passed=0
failed=0
for req in $requirements; do
	echo "=== conformance for protocol $req"
	set +e
	# The suite's own "Total: N passed, M failed" and its lines per scenario count unscored
	# scenarios too (pending ones may fail by design); they are reworded on screen so that the
	# only closing line of the run is the scored count printed last.
	"$node" "$suite" server --url "http://127.0.0.1:$http_port/mcp" --requirements "$req" "$@" |
		tee "$work/out-$req" |
		sed -E -e 's/^Total: /every scenario run, scored or not, /' -e 's/^([^ ]+ [^ :]+): ([0-9]+ passed, [0-9]+ failed)$/\1, \2/'
	s=${PIPESTATUS[0]}
	set -e
	((s == 0)) || status=$s
	# The suite's total counts the scenarios that are not scored too (extensions, pending ones);
	# the scored counts are what conformance to the version means.
	read -r p q < <(awk -v req="$req" '
/^=== SUMMARY/ { summary = 1; next }
summary && /^[^ ]+ [^ :]+: [0-9]+ passed, [0-9]+ failed/ {
	split($0, f, /[ :,]+/); scen[f[2]] = 1; pass[f[2]] = f[3]; fail[f[2]] = f[5]
}
/^Not scored/ { notscored = 1; next }
notscored && /^  [^ ]+ [^ ]+ \(/ { split($0, f, / +/); skip[f[3]] = 1 }
END {
	for (s in scen) if (!(s in skip)) { n++; p += pass[s]; q += fail[s]; if (fail[s] == 0) ok++ }
	printf "scored for %s: %d of %d checks pass, %d of %d scenarios pass\n", req, p, p + q, ok, n > "/dev/stderr"
	print p + 0, q + 0
}' "$work/out-$req")
	passed=$((passed + p))
	failed=$((failed + q))
done
if ((status != 0)); then
	echo "--- holler log ---"
	tail -50 "$log"
fi
echo "conformance: $passed passed, $failed failed"
exit "$status"
