// Command storebench measures how the worker's storage behaves as it grows; see package
// storebench. `make bench` runs it, with PostgreSQL and S3 test servers started by
// tools/testservers.sh (HOOT_TEST_POSTGRES, HOOT_TEST_S3 and the AWS_* variables); without
// them it measures SQLite and the directory store only, and says so.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/storebench"
)

type options struct {
	sizes, objectSizes []int
	duration           time.Duration
	durable            bool
	seed               uint64
	holler, hootenanny string
	stores, content    bool
}

func main() {
	var o options
	var sizes, objectSizes string
	flag.StringVar(&sizes, "sizes", "10000,100000,1000000", "numbers of artifacts to measure the stores at, comma-separated, growing")
	flag.StringVar(&objectSizes, "object-sizes", "65536,1048576,16777216", "sizes in bytes of the objects to PUT and GET, comma-separated")
	flag.DurationVar(&o.duration, "duration", time.Second, "how long each operation is measured at each size")
	flag.BoolVar(&o.durable, "pg-durable", true, "turn PostgreSQL's fsync and synchronous_commit on for the run, as SQLite keeps commits")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the stores' shape")
	flag.StringVar(&o.holler, "holler", "bin/holler", "the gateway's `binary`, for the content part")
	flag.StringVar(&o.hootenanny, "hootenanny", "bin/hootenanny", "the worker's `binary`, for the content part")
	flag.BoolVar(&o.stores, "stores", true, "measure the artifact and job stores")
	flag.BoolVar(&o.content, "content", true, "measure the content routes")
	flag.Parse()
	var err error
	if o.sizes, err = numbers(sizes, true); err != nil {
		fmt.Fprintln(os.Stderr, "storebench: --sizes:", err)
		os.Exit(2)
	}
	if o.objectSizes, err = numbers(objectSizes, false); err != nil {
		fmt.Fprintln(os.Stderr, "storebench: --object-sizes:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "storebench: FAILED:", err)
		os.Exit(1)
	}
}

// numbers parses a comma-separated list of positive numbers, growing when asked.
func numbers(list string, growing bool) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q: want positive numbers separated by commas", list)
		}
		if growing && len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("%q: want each number larger than the one before", list)
		}
		out = append(out, n)
	}
	return out, nil
}

func run(ctx context.Context, o options) error {
	dir, err := os.MkdirTemp("", "hoot-storebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	budget := storebench.Budget{Duration: o.duration, MinOps: 5, Warmup: 10}

	var table *storebench.Table
	var storesTook time.Duration
	if o.stores {
		pg := os.Getenv("HOOT_TEST_POSTGRES")
		if pg == "" {
			fmt.Println("storebench: no HOOT_TEST_POSTGRES, so SQLite alone (make bench starts a PostgreSQL server through tools/testservers.sh)")
		}
		start := time.Now()
		table, err = storebench.RunStores(ctx, storebench.StoreOptions{
			Sizes: o.sizes, Dir: dir, Postgres: pg, Durable: o.durable, Seed: o.seed, Out: os.Stdout, Budget: budget,
		})
		if err != nil {
			return err
		}
		storesTook = time.Since(start)
	}

	var content []storebench.ContentResult
	var contentTook time.Duration
	if o.content {
		s3 := os.Getenv("HOOT_TEST_S3")
		if s3 == "" {
			fmt.Println("storebench: no HOOT_TEST_S3, so the directory store alone (make bench starts an S3 server through tools/testservers.sh)")
		}
		fmt.Println("content through holler and plain:")
		start := time.Now()
		content, err = storebench.RunContent(ctx, storebench.ContentOptions{
			Holler: o.holler, Hootenanny: o.hootenanny, Dir: dir, S3: s3, Sizes: o.objectSizes, Budget: budget, Out: os.Stdout,
		})
		if err != nil {
			return err
		}
		contentTook = time.Since(start)
	}

	if table != nil {
		fmt.Printf("\n== the stores as they grow (seeded in bulk, then each operation one call at a time, the engines in turn, for %s each; %s in all)\n", o.duration, storesTook.Round(time.Second))
		table.Print(os.Stdout)
		fmt.Println("(vs 10^4: this size's figure over the smallest size's; ops/s below 1x and p50 above 1x mean slower as the store grows.")
		fmt.Println(" vs sqlite: PostgreSQL's figure over SQLite's at the same size; ops/s above 1x means PostgreSQL is faster.)")
		for _, l := range table.Summary() {
			fmt.Println("  " + l)
		}
	}
	if content != nil {
		fmt.Printf("\n== content: PUT /cas and GET /cas/{hash} through holler against the store's own speed (%s in all)\n", contentTook.Round(time.Second))
		storebench.PrintContent(os.Stdout, content)
		fmt.Println("(plain: for the directory, a file written, fsynced and closed, and read back; for S3, PutObject and GetObject")
		fmt.Println(" with the AWS SDK to the same server. holler/plain is MB/s through holler over MB/s plain: 1x is the store's own speed.")
		fmt.Println(" bare HTTP: a net/http server on loopback in this process that sends the plain file with http.ServeContent, or")
		fmt.Println(" writes a PUT's body to a file, fsyncs and closes it, or answers a GET from S3 with GetObject and io.Copy of its")
		fmt.Println(" body: the floor of any HTTP server on this machine.)")
	}
	storebench.PrintTargets(os.Stdout, table, content)
	return nil
}
