//go:build !linux

package postgres_test

import "os"

func fdatasync(f *os.File) error { return f.Sync() }
