package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// openBolt is bolt.Open for OpenBoltDB, made safe for a damaged file.
//
// bbolt trusts its file: on a truncated or overwritten one, Open can panic
// ("invalid freelist page", an index out of range) or fault on a page past
// the end of the file. openBolt first checks what Open reads (corrupt.go)
// and reports damage there; a panic or fault Open still hits, and bbolt's
// own errors about the meta pages, become errors wrapping ErrCorrupt too.
// It never changes a damaged file. A lock timeout names the path and the
// likely cause.
func openBolt(path string, o bolt.Options) (*bolt.DB, error) {
	if err := validateBoltFile(path, o.Timeout); err != nil {
		return nil, classifyOpenError(path, o, err)
	}
	var file *os.File
	open := o.OpenFile
	if open == nil {
		open = os.OpenFile
	}
	o.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := open(name, flag, perm)
		file = f
		return f, err
	}
	db, err := openRecover(path, &o)
	if err != nil {
		var pe *openPanic
		if errors.As(err, &pe) && file != nil {
			// bbolt's memory map, which it keeps private, still holds the
			// file (and its lock) until the process exits.
			_ = file.Close()
		}
		return nil, classifyOpenError(path, o, err)
	}
	return db, nil
}

// openPanic is a panic or memory fault recovered from bolt.Open.
type openPanic struct{ v any }

func (p *openPanic) Error() string { return fmt.Sprintf("bbolt panicked: %v", p.v) }

func openRecover(path string, o *bolt.Options) (db *bolt.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, &openPanic{v: r}
		}
	}()
	return bolt.Open(path, 0o600, o)
}

func classifyOpenError(path string, o bolt.Options, err error) error {
	var pe *openPanic
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		mode := "read-write"
		if o.ReadOnly {
			mode = "read-only"
		}
		return fmt.Errorf("checkpoint: open bbolt file %s (%s): no lock after %s; is the file held by another process? %w", path, mode, o.Timeout, err)
	case errors.Is(err, ErrCorrupt):
		return fmt.Errorf("checkpoint: open bbolt file %s: %w", path, err)
	case errors.As(err, &pe),
		errors.Is(err, bolterrors.ErrInvalid),
		errors.Is(err, bolterrors.ErrChecksum),
		errors.Is(err, bolterrors.ErrVersionMismatch):
		return fmt.Errorf("checkpoint: open bbolt file %s: damaged or not a bbolt file: %w: %w", path, ErrCorrupt, err)
	}
	return fmt.Errorf("checkpoint: open bbolt file %s: %w", path, err)
}
