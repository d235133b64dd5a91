package lines

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// readAll runs Read over in and collects what it sends.
func readAll(t *testing.T, in io.Reader, limit int64) []Line {
	t.Helper()
	ch := make(chan Line)
	go Read(context.Background(), in, limit, ch)
	var out []Line
	for l := range ch {
		out = append(out, l)
	}
	return out
}

func TestRead(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100<<10) // longer than the reader's buffer, so read in chunks
	in := "one\r\n\n  \ntwo\n" + long + "\n" + strings.Repeat("y", 11) + "\nlast"
	got := readAll(t, strings.NewReader(in), 100<<10)
	want := []Line{{Data: []byte("one")}, {Data: []byte("two")}, {Data: []byte(long)}, {Data: []byte(strings.Repeat("y", 11))}, {Data: []byte("last")}}
	if len(got) != len(want) {
		t.Fatalf("read %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if string(got[i].Data) != string(want[i].Data) || got[i].TooLong || got[i].Err != nil {
			t.Errorf("line %d: %.20q (too long %v, err %v), want %.20q", i, got[i].Data, got[i].TooLong, got[i].Err, want[i].Data)
		}
	}
	// With a limit of 10 bytes, the long lines are reported without their content, and
	// reading goes on after them.
	got = readAll(t, iotest.OneByteReader(strings.NewReader(in)), 10)
	if len(got) != 5 || !got[2].TooLong || !got[3].TooLong || got[2].Data != nil || string(got[4].Data) != "last" || got[0].TooLong {
		t.Fatalf("with a limit of 10: %+v", got)
	}
	// A line of exactly the limit is not too long; its line ending does not count.
	if got = readAll(t, strings.NewReader("0123456789\r\n"), 10); len(got) != 1 || got[0].TooLong {
		t.Fatalf("a line of exactly the limit: %+v", got)
	}
}

func TestReadReportsAnError(t *testing.T) {
	t.Parallel()
	broken := errors.New("pipe broke")
	got := readAll(t, io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(broken)), 100)
	if len(got) != 3 || string(got[1].Data) != "b" || !errors.Is(got[2].Err, broken) {
		t.Fatalf("got %+v, want a, b and then the error", got)
	}
}

func TestReadStopsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan Line)
	done := make(chan struct{})
	go func() {
		Read(ctx, strings.NewReader(strings.Repeat("x\n", 100)), 10, ch)
		close(done)
	}()
	<-ch
	cancel() // nobody reads the next line: Read must notice the context and close ch
	<-done
	for range ch {
	}
}

// failAfter is a writer that fails from its nth write on.
type failAfter struct {
	n      int
	writes []string
}

func (f *failAfter) Write(b []byte) (int, error) {
	if len(f.writes) >= f.n {
		return 0, errors.New("closed")
	}
	f.writes = append(f.writes, string(b))
	return len(b), nil
}

func TestWriter(t *testing.T) {
	t.Parallel()
	var sink strings.Builder
	w := NewWriter(&sink, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 50 {
				w.WriteLine([]byte(strings.Repeat(string(rune('a'+i)), 40)))
			}
		})
	}
	wg.Wait()
	out := strings.Split(strings.TrimSuffix(sink.String(), "\n"), "\n")
	if len(out) != 400 || w.Err() != nil {
		t.Fatalf("%d lines, err %v; want 400 lines", len(out), w.Err())
	}
	for _, l := range out {
		if len(l) != 40 || strings.Count(l, l[:1]) != 40 {
			t.Fatalf("lines mixed: %q", l)
		}
	}

	f := &failAfter{n: 1}
	var errs []error
	w = NewWriter(f, func(err error) { errs = append(errs, err) })
	w.WriteLine([]byte("a"))
	w.WriteLine([]byte("b"))
	w.WriteLine([]byte("c"))
	if len(f.writes) != 1 || f.writes[0] != "a\n" || len(errs) != 1 || w.Err() == nil {
		t.Fatalf("writes %q, errors %v, Err %v; want one line, then one error reported once", f.writes, errs, w.Err())
	}
}
