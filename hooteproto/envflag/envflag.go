// Package envflag lets environment variables stand in for command-line flags, so that holler
// and hootenanny read their configuration the same way: a flag named "data-dir" of a program
// with prefix "HOOTENANNY_" falls back to HOOTENANNY_DATA_DIR.
package envflag

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// Key returns the environment variable that stands in for the flag name under prefix.
func Key(prefix, name string) string {
	return prefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// Parse sets every flag of fs whose environment variable is set, then parses args, so that the
// command line wins over the environment. A value that does not parse is an error naming the
// variable.
func Parse(fs *flag.FlagSet, prefix string, args []string) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		key := Key(prefix, f.Name)
		v, ok := os.LookupEnv(key)
		if !ok || err != nil {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("environment variable %s=%q: %v", key, v, e)
		}
		if l, ok := f.Value.(*List); ok {
			l.fromEnv = true
		}
	})
	if err != nil {
		return err
	}
	return fs.Parse(args)
}

// A List is a flag that may be given more than once; each value is kept, in order. Its
// environment variable holds the values separated by commas, and values given on the command
// line replace those of the environment rather than add to them.
type List struct {
	values  []string
	fromEnv bool // the values came from the environment; a command-line value replaces them
}

// NewList returns a List holding defaults until a value is given.
func NewList(defaults ...string) *List { return &List{values: defaults, fromEnv: true} }

// Values returns the list's values.
func (l *List) Values() []string { return l.values }

// String returns the values joined by commas.
func (l *List) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(l.values, ",")
}

// Set adds a value; a value with commas (as an environment variable holds) adds each part.
func (l *List) Set(v string) error {
	if l.fromEnv {
		l.values, l.fromEnv = nil, false
	}
	for part := range strings.SplitSeq(v, ",") {
		if part = strings.TrimSpace(part); part == "" {
			return fmt.Errorf("an empty value in %q", v)
		}
		l.values = append(l.values, part)
	}
	return nil
}
