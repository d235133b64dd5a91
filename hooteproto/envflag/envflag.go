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
	})
	if err != nil {
		return err
	}
	return fs.Parse(args)
}
