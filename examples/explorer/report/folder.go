package report

import (
	"fmt"
	"os"
)

// CheckWritable makes sure the reports folder dir exists (created 0700
// when missing) and takes a new file, before a run spends its time on
// missions whose reports could not be written. The error names the folder
// and the cause (read-only file system, permission denied, not a folder).
func CheckWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("reports folder %s cannot be created: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("reports folder %s is not writable: %w", dir, err)
	}
	name := f.Name()
	_, werr := f.Write([]byte("x"))
	cerr := f.Close()
	rerr := os.Remove(name)
	for _, err := range []error{werr, cerr, rerr} {
		if err != nil {
			return fmt.Errorf("reports folder %s is not writable: %w", dir, err)
		}
	}
	return nil
}
