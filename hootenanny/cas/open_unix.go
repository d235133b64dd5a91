//go:build unix

package cas

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openReadOnly opens the regular file at path for reading. os.Open offers every file it opens
// to the runtime's poller, which on Linux costs a regular file four fcntl calls and an
// epoll_ctl that fails; a GET of an object opens two files (the object and its sidecar), so
// that was ten system calls of each GET. A file from os.NewFile is not offered to the poller
// (one fcntl reads its flags): a regular file never waits there anyway.
func openReadOnly(path string) (*os.File, error) {
	fd, err := openFD(path)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// readSmallFile returns the contents of the file at path, or its first limit+1 bytes when it
// is longer than limit, without an os.File.
func readSmallFile(path string, limit int) ([]byte, error) {
	fd, err := openFD(path)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	buf := make([]byte, limit+1)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	return buf[:n], nil
}

func openFD(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}
