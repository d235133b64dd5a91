//go:build unix

package netlimit

import "syscall"

// OpenFileLimit returns the soft limit of open files of this process, or 0 when it cannot be
// read or is unlimited.
func OpenFileLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur > 1<<30 {
		return 0
	}
	return int(r.Cur)
}
