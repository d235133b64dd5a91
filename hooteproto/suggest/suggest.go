// Package suggest finds the names closest to a mistyped one, for the "did you mean" hints that
// the gateway and the workers give.
package suggest

// Distance returns the Levenshtein distance between a and b, counted in bytes. It takes time
// proportional to len(a)*len(b): callers compare short names.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
