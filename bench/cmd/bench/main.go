// Command bench is the driver of `make bench`. In one run it
//
//  1. builds bin/holler and bin/hootenanny from the workspace, and the peer server of this
//     module;
//  2. runs the project's Go benchmarks of the wire (hooteproto), of bare ZeroMQ through the
//     same binding as the wire's floor (hooteproto/zmqtransport), of the MCP handler
//     (holler/internal/mcp), of the conversation trees at 10^5 nodes on both engines
//     (hootenanny/internal/arbor), and the ABC corpus converted in process against abc2midi
//     (hootenanny/internal/abccorpus, when abc2midi is installed);
//  3. starts four Streamable HTTP servers of the same echo tool on loopback: holler with one
//     hootenanny worker over ZeroMQ, mcp-go, the official go-sdk, and mcp-go+zeromq (mcp-go
//     whose tool makes a plain ZeroMQ round trip to an echo process: the hop without holler);
//  4. loads each at every concurrency, interleaved and repeated in rounds so that a noisy
//     moment of the shared machine hurts all of them alike; holler is loaded twice, by
//     clients of the legacy era (a session each) and, as holler-2026-07-28, by clients of
//     the MCP 2026-07-28 era (stateless requests, no session), on the same process;
//  5. stops everything it started, also on failure or Ctrl-C, and prints the table, the ratios
//     of holler's two eras, the ratios holler/peer and how they compare with the targets;
//  6. runs the storage benchmark (hootenanny/internal/storebench): the artifact and job stores
//     at 10^4, 10^5 and 10^6 artifacts on SQLite and PostgreSQL (artifact_create also by 16
//     callers at once), and PUT and GET of /cas through holler on a directory and on S3
//     against the stores' own speed, and prints the storage targets beside what it measured
//     (storebench.PrintTargets). PostgreSQL and S3
//     are the servers of tools/testservers.sh, which `make bench` runs this driver under;
//     without them (HOOT_TEST_POSTGRES, HOOT_TEST_S3) SQLite and the directory are measured
//     alone.
//
// Run it from the bench directory, outside the workspace:
//
//	cd bench && GOWORK=off go run ./cmd/bench
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hootenanny/hoot/bench/internal/load"
)

// hollerModern is holler loaded by clients of the MCP 2026-07-28 era: the same process as
// "holler", with stateless requests instead of sessions.
const hollerModern = "holler-" + load.ModernProtocolVersion

// The targets of the speed issues, measured in the same run: ratios against peers where a
// peer exists, so that a noisy machine moves both sides of a ratio alike.
const (
	targetVsMCPGo        = 1.0  // holler's throughput at c16 / mcp-go's
	targetVsGoSDK        = 3.0  // holler's throughput at c16 / go-sdk's
	targetHopCPUus       = 40   // the process hop's server CPU per call at c16 (holler minus holler-no-hop), µs
	targetWirePipeline   = 0.6  // the wire's pipelined round trips/s / bare ZeroMQ's
	targetWireSeqP50     = 1.25 // the wire's sequential p50 / bare ZeroMQ's
	targetModernVsLegacy = 1.1  // holler's 2026-07-28 throughput at c16 / its 2025-11-25 sessions'
	targetWireP50us      = 100  // p50 added by the wire hop at c1, µs: the wire benchmark's round trip, and holler's p50 minus holler-no-hop's
)

type config struct {
	root          string
	impls         []string
	concurrency   []int
	duration      time.Duration
	warmup        time.Duration
	rounds        int
	goBench       bool
	benchtime     string
	mcpgoStateful bool
	storage       bool
	storageFlags  string
}

func main() {
	var c config
	var impls, conc string
	flag.StringVar(&c.root, "root", "..", "the project's root `directory` (where go.work is)")
	flag.StringVar(&impls, "impls", "holler,"+hollerModern+",holler-no-hop,mcp-go,go-sdk,mcp-go+zeromq", "servers to load, comma-separated ("+hollerModern+" is holler in the stateless era)")
	flag.StringVar(&conc, "concurrency", "1,16", "concurrency levels, comma-separated")
	flag.DurationVar(&c.duration, "duration", 3*time.Second, "measured time of one load run")
	flag.DurationVar(&c.warmup, "warmup", 500*time.Millisecond, "unmeasured warm-up before each load run")
	flag.IntVar(&c.rounds, "rounds", 3, "rounds over all servers and concurrencies; results are pooled")
	flag.BoolVar(&c.goBench, "gobench", true, "also run the Go benchmarks of the wire and the MCP handler")
	flag.StringVar(&c.benchtime, "benchtime", "1s", "-benchtime of the Go benchmarks")
	flag.BoolVar(&c.mcpgoStateful, "mcpgo-stateful", false, "serve mcp-go with server.WithStateful instead of its default session handling")
	flag.BoolVar(&c.storage, "storage", true, "also run the storage benchmark (hootenanny/internal/storebench)")
	flag.StringVar(&c.storageFlags, "storage-flags", "", "flags for the storage benchmark, space-separated, such as \"-sizes 10000,100000 -duration 500ms\"")
	flag.Parse()
	c.impls = strings.Split(impls, ",")
	for _, f := range strings.Split(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "bench: bad --concurrency %q\n", conc)
			os.Exit(2)
		}
		c.concurrency = append(c.concurrency, n)
	}
	root, err := filepath.Abs(c.root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	c.root = root

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "bench: FAILED:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	tmp, err := os.MkdirTemp("", "hoot-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	benchDir, err := os.Getwd()
	if err != nil {
		return err
	}

	fmt.Println("== build")
	holler, hootenanny := filepath.Join(c.root, "bin", "holler"), filepath.Join(c.root, "bin", "hootenanny")
	peer, noHop := filepath.Join(tmp, "peer"), filepath.Join(tmp, "holler-no-hop.test")
	storebench := filepath.Join(tmp, "storebench")
	steps := []struct {
		dir, out, pkg string
		workspace     bool
	}{
		{c.root, holler, "./holler/cmd/holler", true},
		{c.root, hootenanny, "./hootenanny/cmd/hootenanny", true},
		{benchDir, peer, "./cmd/peer", false},
		{c.root, storebench, "./hootenanny/internal/storebench/cmd/storebench", true},
	}
	for _, s := range steps {
		if err := goCmd(ctx, s.dir, s.workspace, os.Stdout, "build", "-o", s.out, s.pkg); err != nil {
			return fmt.Errorf("go build %s: %w", s.pkg, err)
		}
	}
	// holler-no-hop is the gateway package's test binary in its server mode (see
	// holler/internal/gateway/nohop_test.go).
	if slices.Contains(c.impls, "holler-no-hop") {
		if err := goCmd(ctx, c.root, true, os.Stdout, "test", "-c", "-o", noHop, "./holler/internal/gateway"); err != nil {
			return fmt.Errorf("go test -c ./holler/internal/gateway: %w", err)
		}
	}

	var wire, bare, abcFigures benchFigures
	var goBenchErr error
	if c.goBench {
		var out bytes.Buffer
		for _, pkg := range []string{"./hooteproto/", "./hooteproto/zmqtransport/", "./holler/internal/mcp/", "./hootenanny/internal/arbor/"} {
			fmt.Printf("\n== Go benchmarks: go test -run '^$' -bench . -benchmem -benchtime %s %s\n", c.benchtime, pkg)
			err := goCmd(ctx, c.root, true, io.MultiWriter(os.Stdout, &out),
				"test", "-run", "^$", "-bench", ".", "-benchmem", "-benchtime", c.benchtime, pkg)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				// The HTTP comparison still runs; the run fails at the end.
				goBenchErr = errors.Join(goBenchErr, fmt.Errorf("the Go benchmarks of %s failed: %w", pkg, err))
				fmt.Printf("bench: the Go benchmarks of %s failed; going on\n", pkg)
			}
		}
		wire = parseBench(out.String(), "BenchmarkWireRoundTrip")
		bare = parseBench(out.String(), "BenchmarkBareZeroMQ")
		abcFigures, err = runABCBench(ctx, c)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			goBenchErr = errors.Join(goBenchErr, err)
			fmt.Printf("bench: %v; going on\n", err)
		}
	}

	fmt.Println("\n== servers")
	servers := map[string]*server{}
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	for _, impl := range c.impls {
		var s *server
		var err error
		shared := ""
		switch impl {
		case "holler", hollerModern:
			// Both eras are served by one holler, as they are in use: the same endpoint
			// answers either.
			other := map[string]string{"holler": hollerModern, hollerModern: "holler"}[impl]
			if s = servers[other]; s != nil {
				shared = " (the same process as " + other + ")"
			} else {
				s, err = startHoller(ctx, holler, hootenanny, tmp)
			}
		case "holler-no-hop":
			s, err = startPeer(ctx, impl, noHop, []string{"-no-hop-addr", "127.0.0.1:0"}, tmp)
		case "mcp-go", "go-sdk", "mcp-go+zeromq":
			args := []string{"--impl", impl, "--addr", "127.0.0.1:0"}
			if strings.HasPrefix(impl, "mcp-go") && c.mcpgoStateful {
				args = append(args, "--mcpgo-stateful")
			}
			s, err = startPeer(ctx, impl, peer, args, tmp)
		default:
			err = fmt.Errorf("unknown server %q: want holler, %s, holler-no-hop, mcp-go, go-sdk or mcp-go+zeromq", impl, hollerModern)
		}
		if s != nil {
			servers[impl] = s
		}
		if err != nil {
			return err
		}
		fmt.Printf("%-17s %s (pid %d)%s\n", impl, s.url, s.cmd.Process.Pid, shared)
	}

	fmt.Printf("\n== load: %d round(s) of %s (after %s of warm-up) per server and concurrency; load average before: %s\n", c.rounds, c.duration, c.warmup, loadAverage())
	runs := map[key][]*load.Result{}
	cpu := map[key]*cpuUse{}
	for round := 1; round <= c.rounds; round++ {
		for _, conc := range c.concurrency {
			for _, impl := range c.impls {
				srv := servers[impl]
				var srv0, kids0, self0 time.Duration
				var kids []int
				u := cpu[key{impl, conc}]
				if u == nil {
					u = &cpuUse{}
					cpu[key{impl, conc}] = u
				}
				r, err := load.Run(ctx, load.Options{URL: srv.url, Concurrency: conc, Warmup: c.warmup, Duration: c.duration, Modern: impl == hollerModern,
					MeasureStart: func() {
						kids = childrenOf(srv.cmd.Process.Pid)
						srv0, kids0, self0 = cpuTime([]int{srv.cmd.Process.Pid}), cpuTime(kids), selfCPU()
					},
					MeasureEnd: func() {
						u.server += cpuTime([]int{srv.cmd.Process.Pid}) - srv0
						u.children += cpuTime(kids) - kids0
						u.load += selfCPU() - self0
					},
				})
				if err != nil {
					return fmt.Errorf("%s at concurrency %d: %w%s", impl, conc, err, srv.tail())
				}
				fmt.Printf("round %d  %-17s %s\n", round, impl, r)
				if r.Failed() {
					return fmt.Errorf("%s at concurrency %d: %d calls went wrong, first: %v%s", impl, conc, r.Errors, r.FirstErrors, servers[impl].tail())
				}
				runs[key{impl, conc}] = append(runs[key{impl, conc}], r)
			}
		}
	}
	fmt.Printf("load average after: %s (other work on the machine during the run shows here and as low \"server cores\")\n", loadAverage())
	for _, s := range servers {
		s.stop()
	}

	merged := map[key]*load.Result{}
	for k, rs := range runs {
		merged[k] = load.Merge(rs...)
	}
	report(os.Stdout, c, merged, cpu, wire, bare, abcFigures)
	if c.storage {
		if err := runStorage(ctx, c, storebench, holler, hootenanny); err != nil {
			return errors.Join(goBenchErr, err)
		}
	}
	return goBenchErr
}

// runStorage runs the storage benchmark, which prints its own tables.
func runStorage(ctx context.Context, c config, storebench, holler, hootenanny string) error {
	fmt.Printf("\n== storage: %s (load average before: %s)\n", "hootenanny/internal/storebench", loadAverage())
	args := append([]string{"-holler", holler, "-hootenanny", hootenanny}, strings.Fields(c.storageFlags)...)
	cmd := exec.CommandContext(ctx, storebench, args...)
	cmd.Dir = c.root
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	// On Ctrl-C the storage benchmark gets SIGTERM rather than SIGKILL, so it stops the
	// gateway it started and drops its database.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the storage benchmark failed: %w", err)
	}
	fmt.Printf("storage benchmark: %s in all; load average after: %s\n", time.Since(start).Round(time.Second), loadAverage())
	return nil
}

// loadAverage returns the 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// cpuUse is the CPU time that the server's processes and this load generator used during the
// measured calls.
type cpuUse struct {
	server   time.Duration // the server's own process
	children time.Duration // the processes it started (holler's worker)
	load     time.Duration // this load generator
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times; 100 on every Linux port Go runs on
// but alpha and ia64.
const clockTicks = 100

// cpuTime returns the CPU time, user and system, that the processes have used so far.
func cpuTime(pids []int) time.Duration {
	var ticks int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// The command name, in parentheses, may hold spaces; the fields after it start at
		// the state (field 3), so utime (14) and stime (15) are the 12th and 13th.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += ut + st
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// selfCPU returns the CPU time this process has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type key struct {
	impl string
	conc int
}

// goCmd runs the go command in dir, inside the workspace or outside it (GOWORK=off).
func goCmd(ctx context.Context, dir string, workspace bool, out io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOWORK=") })
	if !workspace {
		env = append(env, "GOWORK=off")
	}
	cmd.Env = env
	return cmd.Run()
}

// benchFigures are a Go benchmark's results by sub-benchmark name, such as
// "worker=process/sequential" ("" for a benchmark without sub-benchmarks), each a map from
// unit to value.
type benchFigures map[string]map[string]float64

var benchLine = regexp.MustCompile(`^(Benchmark[^/\s]+?)(?:/(\S+?))?(?:-\d+)?\s+\d+\s+(.*)$`)

// parseBench reads the figures of the benchmark named name from go test's output.
func parseBench(out, name string) benchFigures {
	w := benchFigures{}
	for _, line := range strings.Split(out, "\n") {
		m := benchLine.FindStringSubmatch(line)
		if m == nil || m[1] != name {
			continue
		}
		metrics := map[string]float64{}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				metrics[f[i+1]] = v
			}
		}
		w[m[2]] = metrics
	}
	return w
}

// runABCBench converts the ABC corpus in process and, when abc2midi is installed, with
// abc2midi, one process per tune, and renders corpus tunes to audio when the General MIDI
// SoundFont is installed. The figures are keyed "convert", "abc2midi" and "render".
func runABCBench(ctx context.Context, c config) (benchFigures, error) {
	args := []string{"test", "-run", "^$", "-bench", "^BenchmarkCorpus", "-benchmem", "-benchtime", c.benchtime}
	if _, err := exec.LookPath("abc2midi"); err == nil {
		args = append(args, "-tags", "abc2midi")
	} else {
		fmt.Println("\nbench: abc2midi is not installed (apt-get install abcmidi); the ABC corpus is converted in process only")
	}
	args = append(args, "./hootenanny/internal/abccorpus/")
	// Rendering MIDI to audio (midi_render), with the General MIDI SoundFont when it is there.
	if _, err := os.Stat("/usr/share/sounds/sf2/TimGM6mb.sf2"); err == nil {
		args = append(args, "./hootenanny/internal/synth/")
	} else {
		fmt.Println("\nbench: the General MIDI SoundFont is not installed (apt-get install timgm6mb-soundfont); rendering is not measured")
	}
	fmt.Printf("\n== Go benchmarks: go %s\n", strings.Join(args, " "))
	var out bytes.Buffer
	if err := goCmd(ctx, c.root, true, io.MultiWriter(os.Stdout, &out), args...); err != nil {
		return nil, fmt.Errorf("the ABC corpus benchmarks failed: %w", err)
	}
	f := benchFigures{}
	if m := parseBench(out.String(), "BenchmarkCorpusConvert")[""]; m != nil {
		f["convert"] = m
	}
	if m := parseBench(out.String(), "BenchmarkCorpusABC2MIDI")[""]; m != nil {
		f["abc2midi"] = m
	}
	if m := parseBench(out.String(), "BenchmarkCorpusRender")[""]; m != nil {
		f["render"] = m
	}
	return f, nil
}

// report prints the table, the ratios and the targets.
func report(out io.Writer, c config, res map[key]*load.Result, cpu map[key]*cpuUse, wire, bare, abcFigures benchFigures) {
	cpuPerCall := func(k key) float64 {
		u, r := cpu[k], res[k]
		if u == nil || r == nil || r.Requests == 0 {
			return 0
		}
		return float64(u.server+u.children) / float64(r.Requests)
	}
	fmt.Fprintf(out, "\n== results (%d×%s per row, pooled; all on loopback, on %d cores shared with the load generator)\n", c.rounds, c.duration, runtime.NumCPU())
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "impl\tconcurrency\trequests\trps\tp50\tp99\terrors\tserver CPU/call\tserver cores\tload CPU/call\t")
	var split []string
	for _, conc := range c.concurrency {
		for _, impl := range c.impls {
			r := res[key{impl, conc}]
			if r == nil {
				continue
			}
			u := cpu[key{impl, conc}]
			perCall := func(d time.Duration) string {
				if r.Requests == 0 {
					return "-"
				}
				return load.Micros(d / time.Duration(r.Requests))
			}
			all := u.server + u.children
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%s\t%s\t%d\t%s\t%.2f\t%s\t\n", impl, conc, r.Requests, r.RPS, load.Micros(r.P50), load.Micros(r.P99), r.Errors,
				perCall(all), all.Seconds()/r.Elapsed.Seconds(), perCall(u.load))
			if u.children > 0 {
				parent, child := "the server", "its echo process"
				if impl == "holler" || impl == hollerModern {
					parent, child = "the gateway", "the worker"
				}
				split = append(split, fmt.Sprintf("%s c%d: %s in %s, %s in %s", impl, conc, perCall(u.server), parent, perCall(u.children), child))
			}
		}
	}
	tw.Flush()
	fmt.Fprintln(out, "(server CPU: user+system time of the server's processes, holler's worker and mcp-go+zeromq's echo process included, during the measured calls)")
	for _, l := range split {
		fmt.Fprintln(out, "  "+l)
	}

	h := func(conc int) *load.Result { return res[key{"holler", conc}] }
	reportEras(out, c.concurrency, res, cpuPerCall)
	var peers []string
	for _, impl := range c.impls {
		if impl != "holler" && impl != hollerModern {
			peers = append(peers, impl)
		}
	}
	if h(c.concurrency[0]) != nil && len(peers) > 0 {
		fmt.Fprintln(out, "\nratios holler/peer (throughput: higher is better for holler; p50 and server CPU per call: lower is better)")
		tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "\t%s\t\n", strings.Join(peers, "\t"))
		for _, conc := range slices.Backward(c.concurrency) {
			row, prow, crow := fmt.Sprintf("throughput c%d", conc), fmt.Sprintf("p50 c%d", conc), fmt.Sprintf("server CPU/call c%d", conc)
			for _, p := range peers {
				hr, pr := h(conc), res[key{p, conc}]
				if hr == nil || pr == nil {
					row, prow, crow = row+"\t-", prow+"\t-", crow+"\t-"
					continue
				}
				row += fmt.Sprintf("\t%.2fx", hr.RPS/pr.RPS)
				prow += fmt.Sprintf("\t%.2fx", float64(hr.P50)/float64(pr.P50))
				if hc, pc := cpuPerCall(key{"holler", conc}), cpuPerCall(key{p, conc}); hc > 0 && pc > 0 {
					crow += fmt.Sprintf("\t%.2fx", hc/pc)
				} else {
					crow += "\t-"
				}
			}
			fmt.Fprintln(tw, row+"\t")
			fmt.Fprintln(tw, prow+"\t")
			fmt.Fprintln(tw, crow+"\t")
		}
		tw.Flush()
	}

	hopCost := func(conc int) (cpu float64, p50 time.Duration, ok bool) {
		hr, nr := h(conc), res[key{"holler-no-hop", conc}]
		hc, nc := cpuPerCall(key{"holler", conc}), cpuPerCall(key{"holler-no-hop", conc})
		if hr == nil || nr == nil || hc == 0 || nc == 0 {
			return 0, 0, false
		}
		return hc - nc, hr.P50 - nr.P50, true
	}
	if _, _, ok := hopCost(c.concurrency[0]); ok {
		fmt.Fprintln(out, "\nthe process hop: holler minus holler-no-hop (the same gateway with echo answered in the gateway's process)")
		for _, conc := range c.concurrency {
			cpu, p50, ok := hopCost(conc)
			if !ok {
				continue
			}
			fmt.Fprintf(out, "  c%d: %s of server CPU per call, %s of p50, throughput %.2fx of holler-no-hop's\n", conc,
				load.Micros(time.Duration(cpu)), load.Micros(p50), h(conc).RPS/res[key{"holler-no-hop", conc}].RPS)
		}
		if cpu, _, ok := hopCost(16); ok {
			if mc, nc := cpuPerCall(key{"mcp-go", 16}), cpuPerCall(key{"holler-no-hop", 16}); mc > 0 {
				fmt.Fprintf(out, "  for holler's server CPU per call at c16 to equal mcp-go's, the hop may cost %s (mcp-go's %s minus holler-no-hop's %s); it costs %s\n",
					load.Micros(time.Duration(mc-nc)), load.Micros(time.Duration(mc)), load.Micros(time.Duration(nc)), load.Micros(time.Duration(cpu)))
			}
		}
	}

	fmt.Fprintln(out, "\nthe wire hop (broker -> worker -> broker over ZeroMQ on loopback; Go benchmark of this run)")
	if len(wire) == 0 {
		fmt.Fprintln(out, "  not measured")
	}
	for _, mode := range []string{"process", "inproc"} {
		seq, pipe := wire["worker="+mode+"/sequential"], wire["worker="+mode+"/pipelined"]
		if seq == nil {
			continue
		}
		fmt.Fprintf(out, "  worker in %-8s sequential: p50 %.0fµs, p99 %.0fµs, %.0f round trips/s; pipelined (32 in flight): %.0f round trips/s\n",
			map[string]string{"process": "its own process", "inproc": "the broker's process"}[mode], seq["p50-µs"], seq["p99-µs"], seq["rt/s"], pipe["rt/s"])
	}
	if seq, pipe := bare["sequential"], bare["pipelined"]; seq != nil && pipe != nil {
		fmt.Fprintf(out, "  bare ZeroMQ (same binding, echo in its own process, blocking receives) sequential: p50 %.0fµs, %.0f round trips/s; pipelined (32 in flight): %.0f round trips/s\n",
			seq["p50-µs"], seq["rt/s"], pipe["rt/s"])
		if w := wire["worker=process/sequential"]; w != nil {
			fmt.Fprintf(out, "  the wire's p50 over bare ZeroMQ's: %+.0fµs (the transport, the broker and the worker)\n", w["p50-µs"]-seq["p50-µs"])
		}
	}
	if hr, mr := h(1), res[key{"mcp-go", 1}]; hr != nil && mr != nil {
		fmt.Fprintf(out, "  for comparison, holler's c1 p50 minus mcp-go's: %s (the hop plus every other difference between the two servers)\n", load.Micros(hr.P50-mr.P50))
	}

	fmt.Fprintln(out, "\nABC to MIDI, the corpus of hootenanny/internal/abccorpus (Go benchmarks of this run)")
	conv, ref := abcFigures["convert"], abcFigures["abc2midi"]
	if conv == nil {
		fmt.Fprintln(out, "  not measured")
	} else {
		fmt.Fprintf(out, "  hootenanny, in process (parse, convert, encode): %.0f tunes/s, %.0fµs a tune\n", conv["tunes/s"], 1e6/conv["tunes/s"])
	}
	if ref != nil {
		fmt.Fprintf(out, "  abc2midi, a process per tune:                    %.0f tunes/s, %.0fµs a tune\n", ref["tunes/s"], 1e6/ref["tunes/s"])
	}

	if r := abcFigures["render"]; r != nil {
		fmt.Fprintln(out, "\nMIDI to audio (midi_render: go-meltysynth, the General MIDI SoundFont, 44.1 kHz with reverb and chorus)")
		fmt.Fprintf(out, "  %.0fx real time (%.0f s of audio rendered per pass)\n", r["x-realtime"], r["audio-s/op"])
	}

	fmt.Fprintln(out, "\n== targets (ratios of this run; printed, not asserted; the storage targets follow the storage part)")
	for _, t := range targets(res, wire, bare, abcFigures, cpuPerCall) {
		fmt.Fprintf(out, "  %-74s %9s  target %-9s %s\n", t.what, t.got, t.target, t.verdict)
	}
}

// A targetRow is one target of the speed issues as this run measured it.
type targetRow struct {
	what, got, target, verdict string
}

// targets computes the HTTP and wire targets from this run's figures, in the order the speed
// issue lists them; a figure this run did not measure is "not measured".
func targets(res map[key]*load.Result, wire, bare, abcFigures benchFigures, cpuPerCall func(key) float64) []targetRow {
	var rows []targetRow
	add := func(what, target string, got float64, format string, ok func(float64) bool, measured bool) {
		r := targetRow{what: what, target: target, got: "-", verdict: "not measured"}
		if measured {
			r.got = fmt.Sprintf(format, got)
			r.verdict = "MISSED"
			if ok(got) {
				r.verdict = "met"
			}
		}
		rows = append(rows, r)
	}
	atLeast := func(t float64) func(float64) bool { return func(x float64) bool { return x >= t } }
	atMost := func(t float64) func(float64) bool { return func(x float64) bool { return x <= t } }
	rps := func(impl string, conc int) float64 {
		if r := res[key{impl, conc}]; r != nil {
			return r.RPS
		}
		return 0
	}
	h16 := rps("holler", 16)

	m := rps("mcp-go", 16)
	add("holler (worker over TCP) throughput at c16 / mcp-go's", fmt.Sprintf(">= %.1fx", targetVsMCPGo), h16/m, "%.2fx", atLeast(targetVsMCPGo), h16 > 0 && m > 0)
	g := rps("go-sdk", 16)
	add("holler / go-sdk at c16", fmt.Sprintf(">= %.1fx", targetVsGoSDK), h16/g, "%.2fx", atLeast(targetVsGoSDK), h16 > 0 && g > 0)

	hc, nc := cpuPerCall(key{"holler", 16}), cpuPerCall(key{"holler-no-hop", 16})
	hop := (hc - nc) / float64(time.Microsecond)
	add("the process hop's server CPU per call at c16 (holler - holler-no-hop)", fmt.Sprintf("<= %dµs", targetHopCPUus), hop, "%.0fµs", atMost(targetHopCPUus), hc > 0 && nc > 0)

	wp, bp := wire["worker=process/pipelined"], bare["pipelined"]
	var wpr, bpr float64
	if wp != nil && bp != nil {
		wpr, bpr = wp["rt/s"], bp["rt/s"]
	}
	add(fmt.Sprintf("the wire pipelined / bare ZeroMQ pipelined (%.1fk / %.1fk rt/s)", wpr/1e3, bpr/1e3), fmt.Sprintf(">= %.1fx", targetWirePipeline),
		wpr/bpr, "%.2fx", atLeast(targetWirePipeline), wpr > 0 && bpr > 0)

	ws, bs := wire["worker=process/sequential"], bare["sequential"]
	var wsp, bsp float64
	if ws != nil && bs != nil {
		wsp, bsp = ws["p50-µs"], bs["p50-µs"]
	}
	add(fmt.Sprintf("the wire's sequential p50 / bare ZeroMQ's (%.0f / %.0f µs)", wsp, bsp), fmt.Sprintf("<= %.2fx", targetWireSeqP50),
		wsp/bsp, "%.2fx", atMost(targetWireSeqP50), wsp > 0 && bsp > 0)

	mo := rps(hollerModern, 16)
	add("2026-07-28 (stateless) / 2025-11-25 (sessions), throughput at c16", fmt.Sprintf(">= %.1fx", targetModernVsLegacy), mo/h16, "%.2fx", atLeast(targetModernVsLegacy), mo > 0 && h16 > 0)

	add("the wire hop's p50 at c1 (the wire benchmark's sequential round trip)", fmt.Sprintf("< %dµs", targetWireP50us), wsp, "%.0fµs",
		func(x float64) bool { return x < targetWireP50us }, wsp > 0)
	if hr, nr := res[key{"holler", 1}], res[key{"holler-no-hop", 1}]; hr != nil && nr != nil {
		us := float64(hr.P50-nr.P50) / float64(time.Microsecond)
		add("the hop's p50 at c1 through HTTP (holler - holler-no-hop)", fmt.Sprintf("< %dµs", targetWireP50us), us, "%.0fµs", func(x float64) bool { return x < targetWireP50us }, true)
	}
	if conv, ref := abcFigures["convert"], abcFigures["abc2midi"]; conv != nil && ref != nil {
		add("ABC to MIDI per tune, hootenanny in process / abc2midi", "> 1x", conv["tunes/s"]/ref["tunes/s"], "%.1fx", func(x float64) bool { return x > 1 }, true)
	}
	return rows
}

// reportEras prints holler's 2026-07-28 era against its legacy era, measured on the same
// process in the same run: throughput, p50, p99 and server CPU per call, modern/legacy.
func reportEras(out io.Writer, concurrency []int, res map[key]*load.Result, cpuPerCall func(key) float64) {
	rows := eraRatios(concurrency, res, cpuPerCall)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(out, "\nholler's eras: %s/holler, stateless %s requests against sessions of %s (throughput: higher is better for %s; p50, p99 and server CPU per call: lower is better)\n",
		hollerModern, load.ModernProtocolVersion, load.ProtocolVersion, load.ModernProtocolVersion)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "concurrency\tthroughput\tp50\tp99\tserver CPU/call\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "c%d\t%s\t%s\t%s\t%s\t\n", r.conc, ratio(r.rps), ratio(r.p50), ratio(r.p99), ratio(r.cpu))
	}
	tw.Flush()
}

// eraRow is one concurrency's ratios of holler's 2026-07-28 era over its legacy era; a ratio
// that could not be computed is 0.
type eraRow struct {
	conc               int
	rps, p50, p99, cpu float64
}

// eraRatios computes, for every concurrency at which both eras were measured, the ratios
// modern/legacy.
func eraRatios(concurrency []int, res map[key]*load.Result, cpuPerCall func(key) float64) []eraRow {
	var rows []eraRow
	for _, conc := range concurrency {
		l, m := res[key{"holler", conc}], res[key{hollerModern, conc}]
		if l == nil || m == nil {
			continue
		}
		row := eraRow{conc: conc}
		if l.RPS > 0 {
			row.rps = m.RPS / l.RPS
		}
		if l.P50 > 0 {
			row.p50 = float64(m.P50) / float64(l.P50)
		}
		if l.P99 > 0 {
			row.p99 = float64(m.P99) / float64(l.P99)
		}
		if lc, mc := cpuPerCall(key{"holler", conc}), cpuPerCall(key{hollerModern, conc}); lc > 0 && mc > 0 {
			row.cpu = mc / lc
		}
		rows = append(rows, row)
	}
	return rows
}

// ratio formats a ratio, or "-" for one that could not be computed.
func ratio(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", x)
}

// A server is a process this driver started and must stop.
type server struct {
	name string
	cmd  *exec.Cmd
	url  string
	log  string
	done chan struct{}
	// children are processes the server started (holler's worker), seen while it ran.
	children []int
	stopped  bool
}

// start starts a server process in a process group of its own, so that a Ctrl-C reaches
// this driver alone and the driver stops it in order; Pdeathsig stops it should the driver die.
func start(name string, args []string, logDir string, stdout io.Writer) (*server, error) {
	logPath := filepath.Join(logDir, name+".log")
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = lf
	cmd.Stdout = lf
	if stdout != nil {
		cmd.Stdout = stdout
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	s := &server{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); lf.Close(); close(s.done) }()
	return s, nil
}

// stop ends the server: SIGTERM, then SIGKILL after a grace period; and any child it left.
func (s *server) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	s.children = append(s.children, childrenOf(s.cmd.Process.Pid)...)
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	for _, pid := range s.children {
		// The child was started by the server from a binary of this run; if it outlived the
		// server, end it by its id.
		if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && bytes.Contains(cmdline, []byte("hootenanny")) {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	}
}

// tail returns the end of the server's log, for error messages.
func (s *server) tail() string {
	b, err := os.ReadFile(s.log)
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return "\n--- end of " + s.name + "'s log:\n" + string(b)
}

// childrenOf returns the ids of the processes whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startHoller starts holler with one hootenanny worker and waits until /healthz says ok.
func startHoller(ctx context.Context, holler, hootenanny, tmp string) (*server, error) {
	httpPort, err := freePort()
	if err != nil {
		return nil, err
	}
	zmqPort, err := freePort()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(tmp, "hootenanny-data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", httpPort)
	s, err := start("holler", []string{holler, "serve",
		"--http-addr", addr,
		"--worker-endpoint", fmt.Sprintf("tcp://127.0.0.1:%d", zmqPort),
		"--worker-command", hootenanny + " --data " + data + " --log-level warn",
		"--log-level", "warn",
	}, tmp, nil)
	if err != nil {
		return nil, err
	}
	s.url = "http://" + addr + "/mcp"
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-s.done:
			return s, fmt.Errorf("holler exited before it was ready%s", s.tail())
		case <-ctx.Done():
			return s, ctx.Err()
		default:
		}
		if resp, err := client.Get("http://" + addr + "/healthz"); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(`"status":"ok"`)) {
				s.children = childrenOf(s.cmd.Process.Pid)
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("holler's /healthz did not say ok within 30s%s", s.tail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startPeer starts the peer server and waits for its "ready URL" line.
func startPeer(ctx context.Context, name, peer string, args []string, tmp string) (*server, error) {
	pr, pw := io.Pipe()
	s, err := start(name, append([]string{peer}, args...), tmp, pw)
	if err != nil {
		return nil, err
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				select {
				case ready <- u:
				default:
				}
			}
		}
	}()
	go func() { <-s.done; pw.Close() }()
	select {
	case s.url = <-ready:
		return s, nil
	case <-s.done:
		return s, fmt.Errorf("%s exited before it was ready%s", name, s.tail())
	case <-ctx.Done():
		return s, ctx.Err()
	case <-time.After(30 * time.Second):
		return s, errors.New(name + " did not say it was ready within 30s" + s.tail())
	}
}
