package loglevel

import "testing"

func TestParse(t *testing.T) {
	for i, n := range Names {
		l, ok := Parse(n)
		if !ok || int(l) != i || l.String() != n {
			t.Errorf("Parse(%q) = %v, %v", n, l, ok)
		}
	}
	if _, ok := Parse("loud"); ok {
		t.Error(`Parse("loud") succeeded`)
	}
	if Silent.String() != "unknown" || !(Silent > Emergency) || Default != Info {
		t.Errorf("Silent %v, Default %v", Silent, Default)
	}
	if got := Listed(); got != "debug, info, notice, warning, error, critical, alert or emergency" {
		t.Errorf("Listed() = %q", got)
	}
}
