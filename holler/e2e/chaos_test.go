package e2e

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// chaosFor is how long the faults go on; with setup and checks the test stays under a minute.
const chaosFor = 25 * time.Second

// callBound is the longest any call of the chaos run may take: one that takes longer hangs.
const callBound = 25 * time.Second

// A chaosGateway is a gateway process of the chaos run, with what its clients need to tell a
// call lost to its killing from any other failure.
type chaosGateway struct {
	*hollerProc

	mu    sync.Mutex
	epoch int  // how many times it has been killed
	down  bool // killed and not yet serving again
}

func (g *chaosGateway) state() (epoch int, down bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.epoch, g.down
}

// kill kills the gateway with SIGKILL; calls in flight through it, and sent to it until it
// serves again, may fail with transport errors.
func (g *chaosGateway) kill() {
	g.mu.Lock()
	g.epoch++
	g.down = true
	g.mu.Unlock()
	g.proc.kill()
}

// serve starts the gateway again on the same ports.
func (g *chaosGateway) serve() {
	g.t.Helper()
	g.startServing()
	g.mu.Lock()
	g.down = false
	g.mu.Unlock()
}

// chaosTally counts the outcomes of the chaos run's calls.
type chaosTally struct {
	mu        sync.Mutex
	calls     int
	succeeded int
	failed    map[string]int
	bad       []string // failures that are not allowed, with what they said
	// acked maps each acknowledged artifact's unique tag to its id and content hash.
	acked map[string][2]string
}

func (c *chaosTally) record(category, detail string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if category == "" {
		c.succeeded++
		return
	}
	c.failed[category]++
	if detail != "" && len(c.bad) < 50 {
		c.bad = append(c.bad, category+": "+detail)
	}
}

// TestChaos runs two gateways (processes) and three workers, each worker connected to both,
// on PostgreSQL and S3, under a steady load of artifact_create (each with a tag of its own, so
// that an artifact made twice shows), artifact_get and echo through both gateways. Every couple
// of seconds a worker or a gateway, chosen at random, is killed with SIGKILL and started again.
// At the end no acknowledged artifact is missing, none was made twice, and every failed call
// either said a retry may help or was lost with a gateway being killed; none hung.
//
// HOOT_CHAOS_SEED=N repeats the choices of a run (the moments still vary).
func TestChaos(t *testing.T) {
	f := newFleet(t)
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("HOOT_CHAOS_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("HOOT_CHAOS_SEED=%q: want a number", s)
		}
		seed = n
	}
	t.Logf("chaos seed %d (HOOT_CHAOS_SEED=%d repeats it)", seed, seed)
	rng := mrand.New(mrand.NewPCG(seed, 0x686f6f74))
	bin(t, "holler") // built before the clock starts
	began := time.Now()

	gateways := make([]*chaosGateway, 2)
	var endpoints []string
	for i := range gateways {
		gateways[i] = &chaosGateway{hollerProc: f.holler(fmt.Sprintf("chaos-g%d", i))}
		gateways[i].serve()
		endpoints = append(endpoints, gateways[i].workers)
	}
	workers := make([]*proc, 3)
	for i := range workers {
		workers[i] = f.worker(fmt.Sprintf("chaos-w%d", i), endpoints)
		workers[i].start()
	}
	for _, g := range gateways {
		s := connectHTTP(t, g.base+"/mcp")
		for _, w := range workers {
			waitForWorkerNamed(t, s, w.name)
		}
	}

	setUp := time.Now()
	tally := &chaosTally{failed: map[string]int{}, acked: map[string][2]string{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	const clientsPerGateway = 2
	for gi, g := range gateways {
		for ci := range clientsPerGateway {
			client := fmt.Sprintf("c%d%d", gi, ci)
			crng := mrand.New(mrand.NewPCG(seed, uint64(gi*10+ci)))
			wg.Go(func() { chaosClient(g, client, crng, tally, stop) })
		}
	}

	// The faults: every 1.5 to 2.5 s, a worker or a gateway, killed and started again.
	var faults []string
	deadline := time.Now().Add(chaosFor)
	for time.Now().Before(deadline) {
		time.Sleep(time.Duration(1500+rng.IntN(1000)) * time.Millisecond)
		if n := rng.IntN(len(workers) + len(gateways)); n < len(workers) {
			workers[n].restart()
			faults = append(faults, workers[n].name)
		} else {
			g := gateways[n-len(workers)]
			g.kill()
			time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond)
			g.serve()
			faults = append(faults, g.name)
		}
	}
	// Let the last restart settle under load, then stop the clients.
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()

	faulted := time.Now()
	// Count what is stored: every artifact of the run, by its own tag.
	s := connectHTTP(t, gateways[0].base+"/mcp")
	for _, w := range workers {
		waitForWorkerNamed(t, s, w.name)
	}
	c := newCaller(t, s)
	stored := map[string][]string{} // unique tag -> artifact ids
	hashes := map[string]string{}   // artifact id -> hash
	cursor := ""
	for page := 0; ; page++ {
		if page == 1000 {
			t.Fatal("artifact_list gave more than 1000 pages")
		}
		args := map[string]any{"tag": "chaos", "limit": 500}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res := c.call("artifact_list", args)
		for _, a := range list(res["artifacts"]) {
			art := obj(a)
			id := toString(art["id"])
			hashes[id] = toString(art["hash"])
			for _, tag := range list(art["tags"]) {
				if tag := toString(tag); tag != "chaos" {
					stored[tag] = append(stored[tag], id)
				}
			}
		}
		if cursor = toString(res["next_cursor"]); cursor == "" {
			break
		}
	}
	var lost, doubled []string
	for tag, ack := range tally.acked {
		ids := stored[tag]
		if !containsString(ids, ack[0]) || hashes[ack[0]] != ack[1] {
			lost = append(lost, fmt.Sprintf("%s (%s, stored as %v)", tag, ack[0], ids))
		}
	}
	for tag, ids := range stored {
		if len(ids) > 1 {
			doubled = append(doubled, fmt.Sprintf("%s: %v", tag, ids))
		}
	}
	sort.Strings(lost)
	sort.Strings(doubled)

	var byCategory []string
	for cat, n := range tally.failed {
		byCategory = append(byCategory, fmt.Sprintf("%s %d", cat, n))
	}
	sort.Strings(byCategory)
	t.Logf("chaos seed %d: %d faults in %v (%s)", seed, len(faults), chaosFor, strings.Join(faults, ", "))
	t.Logf("calls %d, succeeded %d, failed %d: %s", tally.calls, tally.succeeded, tally.calls-tally.succeeded, strings.Join(byCategory, ", "))
	t.Logf("acknowledged artifacts %d, stored with a tag of the run %d, lost %d, doubled %d", len(tally.acked), len(stored), len(lost), len(doubled))
	t.Logf("set up in %v, faults and load for %v, checked in %v", setUp.Sub(began).Round(time.Millisecond),
		faulted.Sub(setUp).Round(time.Millisecond), time.Since(faulted).Round(time.Millisecond))
	for _, l := range lost {
		t.Errorf("lost: acknowledged but missing: %s", l)
	}
	for _, d := range doubled {
		t.Errorf("doubled: one call, several artifacts: %s", d)
	}
	for _, b := range tally.bad {
		t.Errorf("a failure that is neither retryable nor a killed gateway's: %s", b)
	}
	if len(tally.acked) == 0 || tally.succeeded == 0 {
		t.Error("no call succeeded")
	}
}

// Categories of the chaos run's failed calls.
const (
	chaosUnavailable = "unavailable (retryable)"
	chaosRetryable   = "other retryable"
	chaosKilled      = "transport error of a killed gateway"
	chaosOther       = "other"
)

// chaosClient calls through g until stop is closed: artifact_create with a tag of its own,
// artifact_get of one it created, or echo. A session lost with its gateway is opened again once
// the gateway serves.
func chaosClient(g *chaosGateway, name string, rng *mrand.Rand, tally *chaosTally, stop <-chan struct{}) {
	var (
		session *mcp.ClientSession
		epoch   int
		mine    [][3]string // tag, id, hash
	)
	defer func() {
		if session != nil {
			session.Close()
		}
	}()
	for i := 0; i < 1_000_000; i++ { // bounded; stop ends it long before
		select {
		case <-stop:
			return
		default:
		}
		if session == nil {
			e, down := g.state()
			if down {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			s, err := dialMCP(g.base + "/mcp")
			if err != nil {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			session, epoch = s, e
		}

		var (
			tool string
			args map[string]any
			tag  string
			want string
		)
		switch op := rng.IntN(10); {
		case op < 5 || len(mine) == 0:
			tag = fmt.Sprintf("%s-%06d", name, i)
			content := fmt.Sprintf("%s %s", tag, randomText(32+rng.IntN(2048)))
			tool, args, want = "artifact_create", map[string]any{"content": content, "tags": []any{"chaos", tag}}, sha256Hex([]byte(content))
		case op < 8:
			m := mine[rng.IntN(len(mine))]
			tool, args, want = "artifact_get", map[string]any{"id": m[1]}, m[2]
		default:
			want = fmt.Sprintf("%s %d", name, i)
			tool, args = "echo", map[string]any{"message": want}
		}
		_, downAtStart := g.state()
		ctx, cancel := context.WithTimeout(context.Background(), callBound)
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		cancel()

		category, detail := "", ""
		switch why := classify(res, err); why {
		case "":
			out := obj(res.StructuredContent)
			switch tool {
			case "artifact_create":
				art := obj(out, "artifact")
				if art["hash"] != want {
					category, detail = chaosOther, fmt.Sprintf("artifact_create answered %v, want hash %s", art, want)
					break
				}
				mine = append(mine, [3]string{tag, toString(art["id"]), want})
				tally.mu.Lock()
				tally.acked[tag] = [2]string{toString(art["id"]), want}
				tally.mu.Unlock()
			case "artifact_get":
				if art := obj(out, "artifact"); art["hash"] != want {
					category, detail = chaosOther, fmt.Sprintf("artifact_get %v = %v, want hash %s", args["id"], art, want)
				}
			case "echo":
				if out["message"] != want {
					category, detail = chaosOther, fmt.Sprintf("echo %q = %v", want, out)
				}
			}
		case failUnavailable:
			category = chaosUnavailable
		case failRetryable:
			category = chaosRetryable
		case failTransport:
			// Allowed only for a call sent to a gateway that was down, was killed while the call
			// ran, or has been killed since the session began.
			if e, down := g.state(); downAtStart || down || e != epoch {
				category = chaosKilled
			} else {
				category, detail = chaosOther, fmt.Sprintf("%s through %s, not killed: %v", tool, g.name, err)
			}
			session.Close()
			session = nil
		default: // hung, or a tool error that says not to retry
			category, detail = chaosOther, fmt.Sprintf("%s (%s): %v %s", tool, why, err, resultText(res))
		}
		tally.record(category, detail)
		if category != "" {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// dialMCP opens an MCP session over HTTP.
func dialMCP(url string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-chaos", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
