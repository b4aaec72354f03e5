//go:build !unix

package safefile

import "os"

// Without O_NOFOLLOW, OpenAppend checks the opened file against the path's
// own (Lstat) afterwards.
const (
	oNoFollow = 0
	oNonBlock = 0
)

func clearNonBlock(*os.File) error { return nil }
