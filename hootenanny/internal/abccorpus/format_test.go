//go:build abc2midi

package abccorpus

import (
	"strconv"
	"strings"
)

func itoa(i int) string         { return strconv.Itoa(i) }
func strconvF(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}
