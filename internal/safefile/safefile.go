// Package safefile writes a program's artifacts (reports, specs,
// screenshots, logs) without following links: a symlink planted where an
// artifact goes is replaced or refused, never written through.
//
//   - WriteFile writes a whole file through a temporary file in the same
//     folder, renamed over the target: the rename replaces whatever name was
//     there (a planted symlink included) and a reader never sees half a file.
//   - OpenAppend opens a log-like file (an action tape, a trace, a journal)
//     for appending with O_NOFOLLOW: a symlink there is refused; fresh
//     removes what was there first, so a new run replaces a planted link.
//   - MkdirUnder creates the folders of a path below a root the user chose,
//     refusing a component that is a symlink or not a folder.
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes data to path with mode perm, through a temporary file in
// path's folder renamed over path. Whatever was at path (a file, a planted
// symlink) is replaced, not written through; a folder there is an error.
func WriteFile(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return &fs.PathError{Op: "write", Path: path, Err: errors.New("is a folder")}
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Chmod(perm); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// OpenAppend opens path for appending, creating it with perm. With fresh,
// whatever was at path is removed first (a new file starts empty and a
// planted symlink is replaced); without, an existing symlink, folder or
// other non-regular file at path is refused (the open never follows a link
// and never blocks on a FIFO).
func OpenAppend(path string, perm fs.FileMode, fresh bool) (*os.File, error) {
	if fresh {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND|oNoFollow|oNonBlock, perm)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("is a symlink: refusing to write through it")}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file (%s)", fi.Mode().Type())}
	}
	if err == nil {
		err = clearNonBlock(f)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	// A file opened through a symlink on a system without O_NOFOLLOW.
	if lfi, lerr := os.Lstat(path); lerr != nil || !os.SameFile(fi, lfi) {
		_ = f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("is a symlink: refusing to write through it")}
	}
	return f, nil
}

// MkdirUnder creates root/rel and the folders between with mode perm. root
// is the user's choice and may be or sit behind a symlink; every component
// of rel must be a real folder: an existing symlink or file there is an
// error, so nothing under it is written elsewhere.
func MkdirUnder(root, rel string, perm fs.FileMode) error {
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("safefile: %q is not a path below %s", rel, root)
	}
	if err := os.MkdirAll(root, perm); err != nil {
		return err
	}
	cur := root
	for _, c := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		if c == "" || c == "." {
			continue
		}
		cur = filepath.Join(cur, c)
		err := os.Mkdir(cur, perm)
		if err == nil {
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err := os.Lstat(cur)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: "mkdir", Path: cur, Err: errors.New("is a symlink: refusing to write through it")}
		}
		if !fi.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: cur, Err: errors.New("not a folder")}
		}
	}
	return nil
}
