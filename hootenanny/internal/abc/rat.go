package abc

import (
	"math/bits"
	"strconv"
)

// Rat is an exact fraction Num/Den with Den > 0, kept in lowest terms. Durations and onsets are
// Rats of a whole note. The zero value is 0.
//
// Arithmetic never panics: in the unlikely case that an exact result does not fit in int64
// (only adversarial input with huge, coprime tuplet ratios gets there) the result is rounded to
// the nearest multiple of 1/2^20 of a whole note.
type Rat struct {
	Num, Den int64
}

// R returns n/d in lowest terms; d == 0 gives 0.
func R(n, d int64) Rat {
	if d == 0 {
		return Rat{0, 1}
	}
	if d < 0 {
		n, d = -n, -d
	}
	g := gcd(abs64(n), d)
	if g > 1 {
		n /= g
		d /= g
	}
	return Rat{n, d}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	if a == 0 {
		return 1
	}
	return a
}

func (a Rat) norm() Rat {
	if a.Den == 0 {
		return Rat{0, 1}
	}
	return a
}

// mul returns x*y and whether it fit.
func mul(x, y int64) (int64, bool) {
	neg := (x < 0) != (y < 0)
	hi, lo := bits.Mul64(uint64(abs64(x)), uint64(abs64(y)))
	if hi != 0 || lo > 1<<62 {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

const approxDen = 1 << 20

func approx(f float64) Rat {
	if f > 1<<40 {
		f = 1 << 40
	}
	if f < -(1 << 40) {
		f = -(1 << 40)
	}
	return R(int64(f*approxDen+0.5), approxDen)
}

// Add returns a+b.
func (a Rat) Add(b Rat) Rat {
	a, b = a.norm(), b.norm()
	g := gcd(a.Den, b.Den)
	x, ok1 := mul(a.Num, b.Den/g)
	y, ok2 := mul(b.Num, a.Den/g)
	d, ok3 := mul(a.Den/g, b.Den)
	if !ok1 || !ok2 || !ok3 || abs64(x) > 1<<61 || abs64(y) > 1<<61 {
		return approx(a.Float64() + b.Float64())
	}
	return R(x+y, d)
}

// Sub returns a-b.
func (a Rat) Sub(b Rat) Rat { b = b.norm(); return a.Add(Rat{-b.Num, b.Den}) }

// Mul returns a*b.
func (a Rat) Mul(b Rat) Rat {
	a, b = a.norm(), b.norm()
	g1 := gcd(abs64(a.Num), b.Den)
	g2 := gcd(abs64(b.Num), a.Den)
	n, ok1 := mul(a.Num/g1, b.Num/g2)
	d, ok2 := mul(a.Den/g2, b.Den/g1)
	if !ok1 || !ok2 {
		return approx(a.Float64() * b.Float64())
	}
	return R(n, d)
}

// MulInt returns a*n.
func (a Rat) MulInt(n int64) Rat { return a.Mul(Rat{n, 1}) }

// Div returns a/b; dividing by zero gives 0.
func (a Rat) Div(b Rat) Rat {
	b = b.norm()
	if b.Num == 0 {
		return Rat{0, 1}
	}
	return a.Mul(R(b.Den, b.Num))
}

// Cmp returns -1, 0 or +1 as a <, == or > b.
func (a Rat) Cmp(b Rat) int {
	d := a.Sub(b)
	switch {
	case d.Num < 0:
		return -1
	case d.Num > 0:
		return 1
	}
	return 0
}

// IsZero reports whether a == 0.
func (a Rat) IsZero() bool { return a.Num == 0 }

// Float64 returns a as a float.
func (a Rat) Float64() float64 {
	a = a.norm()
	return float64(a.Num) / float64(a.Den)
}

// String writes a as "n/d", or "n" when the denominator is 1.
func (a Rat) String() string {
	a = a.norm()
	if a.Den == 1 {
		return strconv.FormatInt(a.Num, 10)
	}
	return strconv.FormatInt(a.Num, 10) + "/" + strconv.FormatInt(a.Den, 10)
}
