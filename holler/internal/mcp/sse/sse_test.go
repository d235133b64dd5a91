package sse

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestIDRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]uint64{{0, 0}, {0, 7}, {3, 1}, {1<<64 - 1, 1<<64 - 1}} {
		id := ID(c[0], c[1])
		s, n, ok := ParseID(id)
		if !ok || s != c[0] || n != c[1] {
			t.Errorf("ParseID(%q) = %d, %d, %v", id, s, n, ok)
		}
	}
	for _, bad := range []string{"", "1", "a-1", "1-", "-1", "1-2-3", "+1-2", "1 -2", "18446744073709551616-1"} {
		if _, _, ok := ParseID(bad); ok {
			t.Errorf("ParseID(%q) took it", bad)
		}
	}
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"0-1", "12-345", "-", "1-x", "99999999999999999999-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		s, n, ok := ParseID(id)
		if !ok {
			return
		}
		// Whatever is taken names an event that ID writes back the same way.
		if s2, n2, ok2 := ParseID(ID(s, n)); !ok2 || s2 != s || n2 != n {
			t.Fatalf("%q read as %d-%d, which does not read back", id, s, n)
		}
	})
}

func TestLogNumbersAndBounds(t *testing.T) {
	t.Parallel()
	l := NewLog(3, 100)
	a, b := l.NewStream(), l.NewStream()
	if a != 1 || b != 2 {
		t.Fatalf("POST streams numbered %d, %d; want 1, 2", a, b)
	}
	if n := l.Append(a, []byte("x")); n != 1 {
		t.Fatalf("first event of a stream is %d", n)
	}
	l.Append(GetStream, []byte("g"))
	if n := l.Append(a, []byte("y")); n != 2 {
		t.Fatalf("second event of stream %d is %d", a, n)
	}
	// A fourth event drops the oldest: stream a's first.
	l.Append(b, []byte("z"))
	if l.Resumable(a, 0) {
		t.Error("stream 1 resumes from its start after its first event was dropped")
	}
	if !l.Resumable(a, 1) || !l.Resumable(a, 2) || l.Resumable(a, 3) || l.Resumable(9, 0) {
		t.Error("Resumable: want after 1 and 2 yes, after 3 (not yet sent) and an unknown stream no")
	}
	events, complete, _ := l.Since(a, 1)
	if len(events) != 1 || string(events[0].Data) != "y" || events[0].N != 2 || events[0].Stream != a || complete {
		t.Fatalf("Since(1, 1) = %+v, %v", events, complete)
	}
	// The byte bound drops the old, but the newest stays even when it alone is too big.
	l.Append(GetStream, []byte(strings.Repeat("big", 50)))
	events, _, _ = l.Since(a, 0)
	if len(events) != 0 {
		t.Errorf("a 150-byte event left %d older events under a 100-byte bound", len(events))
	}
	if events, _, _ = l.Since(GetStream, 1); len(events) != 1 || len(events[0].Data) != 150 {
		t.Errorf("the newest event was not kept: %+v", events)
	}
}

func TestLogWakesAndCompletes(t *testing.T) {
	t.Parallel()
	l := NewLog(10, 1<<20)
	s := l.NewStream()
	_, complete, wake := l.Since(s, 0)
	if complete {
		t.Fatal("a new stream is complete")
	}
	l.Append(s, []byte("{}"))
	select {
	case <-wake:
	default:
		t.Fatal("Append did not wake the stream's writer")
	}
	_, _, wake = l.Since(s, 0)
	l.Finish(s)
	if _, complete, _ := l.Since(s, 1); !complete {
		t.Error("a finished POST stream is not complete")
	}
	select {
	case <-wake:
	default:
		t.Fatal("Finish did not wake the stream's writer")
	}
	if _, complete, _ := l.Since(GetStream, 0); complete {
		t.Error("the GET stream is complete before the session ends")
	}
	l.End()
	l.End() // a second End is harmless
	if _, complete, _ := l.Since(GetStream, 0); !complete {
		t.Error("the GET stream is not complete after End")
	}
}

func TestLogGetOwner(t *testing.T) {
	t.Parallel()
	l := NewLog(10, 1<<20)
	first, second := new(int), new(int)
	if !l.OwnsGet(nil) {
		t.Fatal("a new log's GET stream is held")
	}
	if start, ok := l.ClaimGet(first, false); !ok || start != 0 {
		t.Fatalf("first claim: %d, %v", start, ok)
	}
	if _, ok := l.ClaimGet(second, false); ok {
		t.Fatal("a second GET took a held stream without resuming")
	}
	n := l.Append(GetStream, []byte("{}"))
	l.Delivered(second, n) // not the owner: ignored
	l.Delivered(first, n)
	_, _, wake := l.Since(GetStream, n)
	start, ok := l.ClaimGet(second, true)
	if !ok || start != n || !l.OwnsGet(second) || l.OwnsGet(first) {
		t.Fatalf("a resuming GET: start %d, ok %v; want %d and the stream", start, ok, n)
	}
	select {
	case <-wake:
	default:
		t.Fatal("the writer that lost the stream was not woken")
	}
	l.ReleaseGet(first) // no longer the owner: ignored
	if !l.OwnsGet(second) {
		t.Fatal("a former owner released the stream")
	}
	l.ReleaseGet(second)
	if !l.OwnsGet(nil) {
		t.Fatal("the stream is held after its owner released it")
	}
}

func TestWriter(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	sw := NewWriter(rec)
	sw.Start()
	sw.Event(ID(1, 0), nil)
	sw.Event(ID(1, 1), []byte(`{"jsonrpc":"2.0"}`))
	sw.Event("", []byte(`{}`))
	sw.KeepAlive()
	if sw.Err() != nil {
		t.Fatal(sw.Err())
	}
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/event-stream" || rec.Header().Get("Cache-Control") != "no-cache" || !rec.Flushed {
		t.Fatalf("status %d, headers %v, flushed %v", rec.Code, rec.Header(), rec.Flushed)
	}
	want := "id: 1-0\ndata: \n\n" +
		"id: 1-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\"}\n\n" +
		"event: message\ndata: {}\n\n" +
		": keep-alive\n\n"
	if got := rec.Body.String(); got != want {
		t.Fatalf("wrote %q, want %q", got, want)
	}
}

// brokenWriter fails every write.
type brokenWriter struct {
	httptest.ResponseRecorder
	writes int
}

func (b *brokenWriter) Write([]byte) (int, error) {
	b.writes++
	return 0, errors.New("connection gone")
}

func TestWriterStopsAfterAnError(t *testing.T) {
	t.Parallel()
	bw := &brokenWriter{ResponseRecorder: *httptest.NewRecorder()}
	sw := NewWriter(bw)
	sw.Event("", []byte("{}"))
	sw.Event("", []byte("{}"))
	sw.KeepAlive()
	if sw.Err() == nil || bw.writes != 1 {
		t.Fatalf("err %v after %d writes; want an error after one", sw.Err(), bw.writes)
	}
}

func TestBudgetDropsTheOldestOfAnyLog(t *testing.T) {
	t.Parallel()
	type drop struct {
		tag, why      string
		events, bytes int
	}
	var drops []drop
	b := NewBudget(100, func(tag, why string, events, bytes int) { drops = append(drops, drop{tag, why, events, bytes}) })
	a, c := NewLogIn(100, 1000, b, "a"), NewLogIn(100, 1000, b, "c")
	sa, sc := a.NewStream(), c.NewStream()
	a.Append(sa, make([]byte, 40)) // a1: the oldest of all
	c.Append(sc, make([]byte, 40)) // c1
	if b.Bytes() != 80 {
		t.Fatalf("budget holds %d bytes, want 80", b.Bytes())
	}
	a.Append(sa, make([]byte, 40)) // 120 > 100: a1 goes, though c is the one that is not appending
	if b.Bytes() != 80 || a.Bytes() != 40 || c.Bytes() != 40 {
		t.Fatalf("after the bound: budget %d, a %d, c %d; want 80, 40, 40", b.Bytes(), a.Bytes(), c.Bytes())
	}
	if a.Resumable(sa, 0) || !a.Resumable(sa, 1) {
		t.Error("stream a resumes from before its dropped event, or not after it")
	}
	c.Append(sc, make([]byte, 40)) // c1 is now the oldest of all
	if c.Resumable(sc, 0) || !a.Resumable(sa, 1) {
		t.Error("the budget dropped another event than the oldest of all")
	}
	if len(drops) != 2 || drops[0] != (drop{"a", DropTotal, 1, 40}) || drops[1] != (drop{"c", DropTotal, 1, 40}) {
		t.Fatalf("drops heard: %+v", drops)
	}
	if ev, by := b.Dropped(DropTotal); ev != 2 || by != 80 {
		t.Errorf("Dropped(total) = %d, %d", ev, by)
	}
	// A log's own bound drops count as its own, and free the budget too.
	small := NewLogIn(1, 1000, b, "s")
	ss := small.NewStream()
	small.Append(ss, make([]byte, 5))
	small.Append(ss, make([]byte, 5))
	if ev, by := b.Dropped(DropSession); ev != 1 || by != 5 {
		t.Errorf("Dropped(session) = %d, %d", ev, by)
	}
	// An ended log gives all its bytes back, and takes no more.
	before := b.Bytes()
	small.End()
	small.Append(ss, make([]byte, 7))
	if b.Bytes() != before-5 {
		t.Errorf("after End the budget holds %d, want %d", b.Bytes(), before-5)
	}
}

// TestBudgetConcurrent appends from many logs at once (run with -race): the budget ends
// within its bound and agrees with its logs.
func TestBudgetConcurrent(t *testing.T) {
	t.Parallel()
	b := NewBudget(10_000, nil)
	logs := make([]*Log, 16)
	done := make(chan struct{})
	for i := range logs {
		logs[i] = NewLogIn(50, 4000, b, "")
		go func(l *Log) {
			defer func() { done <- struct{}{} }()
			s := l.NewStream()
			for j := range 500 {
				l.Append(s, make([]byte, 10+j%90))
				if j%100 == 99 {
					l.Since(s, 0)
				}
			}
		}(logs[i])
	}
	for range logs {
		<-done
	}
	sum := 0
	for _, l := range logs {
		sum += l.Bytes()
	}
	if int64(sum) != b.Bytes() || b.Bytes() > 10_000 {
		t.Fatalf("logs hold %d bytes, the budget counts %d (bound 10000)", sum, b.Bytes())
	}
}
