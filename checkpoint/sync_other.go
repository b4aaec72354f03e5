//go:build !linux

package checkpoint

import "os"

// fdatasync falls back to fsync where fdatasync is not available.
func fdatasync(f *os.File) error { return f.Sync() }

// lockFile does nothing here: bbolt's own lock on the DB file keeps a
// second process out.
func lockFile(*os.File) error { return nil }
