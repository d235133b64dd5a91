package cli

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// printPath prints the value at path in a structured result v (holler call --get): a string as
// it is, anything else as compact JSON, so that a script reads an id without a JSON tool.
func (c *client) printPath(v any, path string) error {
	got, err := pick(v, path)
	if err != nil {
		// The call was made, but what the script asked of it is not there: a usage error.
		fmt.Fprintln(c.env.Stderr, "holler call:", err)
		return &ExitError{Code: 2}
	}
	if s, ok := got.(string); ok {
		fmt.Fprintln(c.env.Stdout, s)
	} else {
		fmt.Fprintln(c.env.Stdout, string(mustJSON(got)))
	}
	return nil
}

// pick returns the value at path in v: object member names and list indexes joined by dots. Where
// the path goes astray, the error says what is there instead.
func pick(v any, path string) (any, error) {
	if v == nil {
		return nil, fmt.Errorf("--get %s: the tool gave no structured result; leave out --get to see what it printed", path)
	}
	cur, at := v, "the result"
	for step := range strings.SplitSeq(path, ".") {
		switch x := cur.(type) {
		case map[string]any:
			next, ok := x[step]
			if !ok {
				if len(x) == 0 {
					return nil, fmt.Errorf("--get %s: %s is an empty object, with no %q", path, at, step)
				}
				return nil, fmt.Errorf("--get %s: %s has no %q; it has %s", path, at, step, strings.Join(slices.Sorted(maps.Keys(x)), ", "))
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(x) {
				if len(x) == 0 {
					return nil, fmt.Errorf("--get %s: %s is an empty list, with no %q", path, at, step)
				}
				return nil, fmt.Errorf("--get %s: %s is a list of %d; name an index from 0 to %d, not %q", path, at, len(x), len(x)-1, step)
			}
			cur = x[i]
		default:
			return nil, fmt.Errorf("--get %s: %s is %s, which has no %q", path, at, string(mustJSON(x)), step)
		}
		if at == "the result" {
			at = step
		} else {
			at += "." + step
		}
	}
	return cur, nil
}
