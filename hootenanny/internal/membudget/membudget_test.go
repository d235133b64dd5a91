package membudget

import (
	"errors"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hooteproto"
)

func TestAcquire(t *testing.T) {
	b := New(100 << 20)
	r1, err := b.Acquire("midi_info", 60<<20, "name a smaller file")
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Acquire("audio_info", 50<<20, "name a smaller file")
	var he *hooteproto.Error
	if !errors.As(err, &he) || he.Code() != hooteproto.CodeOverloaded || he.RetryAfter() <= 0 ||
		!strings.Contains(he.Message(), "needs about 50 MiB") || !strings.Contains(he.Message(), "has 40 MiB") || !strings.Contains(he.Message(), "of its 100 MiB") {
		t.Fatalf("a call over what is free: %v", err)
	}
	r1()
	r1() // a second release gives nothing back twice
	if b.InUse() != 0 {
		t.Fatalf("in use after release: %d", b.InUse())
	}
	r2, err := b.Acquire("audio_info", 50<<20, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r2()
	_, err = b.Acquire("midi_render", 200<<20, "render a shorter piece")
	if !errors.As(err, &he) || he.Code() != hooteproto.CodeInvalidArgument || he.Hint() != "render a shorter piece" || !strings.Contains(he.Message(), "whole budget") {
		t.Fatalf("a call over the whole budget: %v", err)
	}
	var nilBudget *Budget
	if r, err := nilBudget.Acquire("x", 1<<40, ""); err != nil {
		t.Fatal(err)
	} else {
		r()
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1024": 1024, "4G": 4 << 30, "512MiB": 512 << 20, "1.5g": 3 << 29, "2 GB": 2 << 30, "10k": 10 << 10} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1G", "4Q", "1e30T"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) took it", in)
		}
	}
	if d := DefaultTotal(); d < MinBudget {
		t.Errorf("DefaultTotal = %d", d)
	}
}
