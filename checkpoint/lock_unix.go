//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package checkpoint

import (
	"errors"
	"os"
	"syscall"
	"time"

	bolterrors "go.etcd.io/bbolt/errors"
)

// lockShared takes a shared flock on f (as a read-only bbolt open does),
// retrying until timeout (0: forever); it gives bbolt's ErrTimeout.
func lockShared(f *os.File, timeout time.Duration) error {
	start := time.Now()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if timeout != 0 && time.Since(start) > timeout {
			return bolterrors.ErrTimeout
		}
		time.Sleep(50 * time.Millisecond)
	}
}
