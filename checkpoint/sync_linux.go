package checkpoint

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data, and only the metadata needed to read it back.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }

// lockFile takes an exclusive advisory lock on f, failing at once when
// another open file (in this process or another) holds it.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }
