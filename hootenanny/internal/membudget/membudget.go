// Package membudget admits the worker's heavy calls by the memory they will need. A count of
// calls bounds nothing when one call may need a few kilobytes and the next a gigabyte: each
// heavy handler estimates what it will hold (from the size of the stored object it reads and
// its request's parameters) and reserves that much of the worker's budget before it starts. A
// call that does not fit now is refused at once with a retryable "busy" error that says what it
// needs and what the worker has; one that could never fit is refused for good, saying what to
// change.
package membudget

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hooteproto"
)

// RetryAfter is how long a call refused as busy is told to wait.
const RetryAfter = 2 * time.Second

// MinBudget is the smallest budget New takes: less would refuse every heavy call.
const MinBudget = 64 << 20

// A Budget is the memory the worker's heavy calls may hold at once. Its methods are safe for
// concurrent use. A nil *Budget admits everything.
type Budget struct {
	total int64

	mu   sync.Mutex
	used int64
	// busy counts the calls refused because they did not fit beside the others.
	busy atomic.Int64
}

// New returns a budget of total bytes.
func New(total int64) *Budget {
	return &Budget{total: max(total, MinBudget)}
}

// Total returns the budget's size in bytes (0 for a nil Budget).
func (b *Budget) Total() int64 {
	if b == nil {
		return 0
	}
	return b.total
}

// InUse returns the bytes reserved now.
func (b *Budget) InUse() int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Busy returns how many calls were refused as busy.
func (b *Budget) Busy() int64 {
	if b == nil {
		return 0
	}
	return b.busy.Load()
}

// Acquire reserves need bytes for tool and returns the function that gives them back (call it
// once, when the call no longer holds the memory). When need does not fit beside what runs now
// it returns a retryable CodeOverloaded error; when need is more than the whole budget, a
// CodeInvalidArgument error whose hint is tooLarge: what the caller can change so that the call
// needs less.
func (b *Budget) Acquire(tool string, need int64, tooLarge string) (release func(), err error) {
	if b == nil || need <= 0 {
		return func() {}, nil
	}
	if need > b.total {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s would need about %s of memory, more than this worker's whole budget of %s", tool, cas.FormatSize(need), cas.FormatSize(b.total))).
			WithHint(tooLarge)
	}
	b.mu.Lock()
	if b.used+need > b.total {
		free := b.total - b.used
		b.mu.Unlock()
		b.busy.Add(1)
		return nil, hooteproto.NewError(hooteproto.CodeOverloaded,
			fmt.Sprintf("the worker is busy: %s needs about %s of memory and the worker has %s free of its %s budget now, held by other calls",
				tool, cas.FormatSize(need), cas.FormatSize(max(free, 0)), cas.FormatSize(b.total))).
			WithRetryAfter(RetryAfter).
			WithHint(fmt.Sprintf("retry in a few seconds, when other calls have finished; %s", tooLarge))
	}
	b.used += need
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.used -= need
			b.mu.Unlock()
		})
	}, nil
}

// DefaultTotal returns the budget a worker takes unless told otherwise: half the memory it may
// use, the smaller of the machine's memory and its cgroup's limit. It returns 1 GiB when neither
// can be read.
func DefaultTotal() int64 {
	limit := memTotal()
	if c := cgroupLimit(); c > 0 && (limit == 0 || c < limit) {
		limit = c
	}
	if limit <= 0 {
		return 1 << 30
	}
	return max(limit/2, MinBudget)
}

// memTotal reads MemTotal from /proc/meminfo, in bytes, or 0.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupLimit reads the memory limit of this process's cgroup (v2, else v1), in bytes, or 0
// for none.
func cgroupLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || v <= 0 || v >= 1<<60 { // "max", or v1's way of saying none
			return 0
		}
		return v
	}
	return 0
}

// ParseSize reads a size as an operator writes it: bytes, or a number with the suffix K, M, G
// or T (powers of 1024; KiB, MiB, GiB, TiB and KB, MB, GB, TB mean the same).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	upper := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TIB", 1 << 40}, {"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10},
		{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10},
		{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(upper, u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*float64(mult) > float64(1<<62) {
		return 0, fmt.Errorf("%q is not a size: give bytes, or a number with K, M, G or T, such as 4G or 512M", s)
	}
	return int64(v * float64(mult)), nil
}
