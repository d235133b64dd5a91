//go:build !unix

package netlimit

// OpenFileLimit returns 0: the limit of open files is not known on this system.
func OpenFileLimit() int { return 0 }
