package checkpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// This file checks a bbolt file's structure before bbolt maps it: the
// meta pages, the file's length and the freelist page, which bolt.Open
// trusts (a damaged one makes it panic or fault, and a panic inside Open
// leaves the file mapped and locked until the process exits).

// bbolt's on-disk layout (go.etcd.io/bbolt/internal/common, format 2).
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	pageHeaderSize = 16
	metaChecksumAt = pageHeaderSize + 56 // the checksum covers the meta bytes before it
	metaSize       = metaChecksumAt + 8
	branchPageFlag = 0x01
	leafPageFlag   = 0x02
	freelistFlag   = 0x10
	noFreelist     = ^uint64(0)
)

// boltMeta is one parsed meta page.
type boltMeta struct {
	pageSize            int64
	root, freelist, hwm uint64 // hwm: pages in use (bbolt's pgid)
	txid                uint64
	err                 error
}

func parseMeta(b []byte) boltMeta {
	if len(b) < metaSize {
		return boltMeta{err: errors.New("short meta page")}
	}
	le := binary.LittleEndian
	m := boltMeta{
		pageSize: int64(le.Uint32(b[pageHeaderSize+8:])),
		root:     le.Uint64(b[pageHeaderSize+16:]),
		freelist: le.Uint64(b[pageHeaderSize+32:]),
		hwm:      le.Uint64(b[pageHeaderSize+40:]),
		txid:     le.Uint64(b[pageHeaderSize+48:]),
	}
	h := fnv.New64a()
	h.Write(b[pageHeaderSize:metaChecksumAt])
	switch {
	case le.Uint32(b[pageHeaderSize:]) != boltMagic:
		m.err = errors.New("bad magic")
	case le.Uint32(b[pageHeaderSize+4:]) != boltVersion:
		m.err = fmt.Errorf("format version %d, not %d", le.Uint32(b[pageHeaderSize+4:]), boltVersion)
	case le.Uint64(b[metaChecksumAt:]) != h.Sum64():
		m.err = errors.New("meta checksum mismatch")
	case m.pageSize < 512 || m.pageSize > 1<<24 || m.pageSize&(m.pageSize-1) != 0:
		m.err = fmt.Errorf("page size %d", m.pageSize)
	}
	return m
}

// validateBoltFile reports, wrapping ErrCorrupt, a file bolt.Open would
// panic or fault on. A missing or empty file is fine (bbolt creates it). It
// holds a shared lock on the file while it reads, so a writer in another
// process is not caught mid-commit; a lock not had within timeout gives
// bbolt's ErrTimeout.
func validateBoltFile(path string, timeout time.Duration) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lockShared(f, timeout); err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	size := info.Size()
	if size == 0 {
		return nil
	}
	read := func(off, n int64) ([]byte, error) {
		b := make([]byte, n)
		got, err := f.ReadAt(b, off)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return b[:got], nil
	}
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	// The page size: from meta page 0, else from meta page 1 wherever a
	// page size puts it (as bbolt finds it).
	first, err := read(0, metaSize)
	if err != nil {
		return err
	}
	m0 := parseMeta(first)
	pageSize := m0.pageSize
	if m0.err != nil {
		pageSize = 0
		for ps := int64(1024); ps <= 1<<24 && ps < size; ps <<= 1 {
			b, err := read(ps, metaSize)
			if err != nil {
				return err
			}
			if m := parseMeta(b); m.err == nil && m.pageSize == ps {
				pageSize = ps
				break
			}
		}
		if pageSize == 0 {
			return corrupt("no valid meta page (meta 0: %v)", m0.err)
		}
	}
	if size < 2*pageSize {
		return corrupt("%d bytes, less than the two meta pages of %d bytes", size, pageSize)
	}
	second, err := read(pageSize, metaSize)
	if err != nil {
		return err
	}
	m1 := parseMeta(second)
	if m0.err == nil && m0.pageSize != pageSize {
		m0.err = fmt.Errorf("page size %d, meta 1 says %d", m0.pageSize, pageSize)
	}
	if m1.err == nil && m1.pageSize != pageSize {
		m1.err = fmt.Errorf("page size %d, meta 0 says %d", m1.pageSize, pageSize)
	}
	// bbolt uses the valid meta page with the higher transaction id.
	m := m0
	if m0.err != nil || (m1.err == nil && m1.txid > m0.txid) {
		m = m1
	}
	if m.err != nil {
		return corrupt("no valid meta page (meta 0: %v; meta 1: %v)", m0.err, m1.err)
	}
	if m.hwm < 3 || m.hwm > uint64(size/pageSize) {
		return corrupt("%d bytes hold %d pages of %d bytes, the meta page (txid %d) counts %d: truncated?", size, size/pageSize, pageSize, m.txid, m.hwm)
	}
	page := func(id uint64, flags ...uint16) ([]byte, error) {
		b, err := read(int64(id)*pageSize, pageSize)
		if err != nil {
			return nil, err
		}
		le := binary.LittleEndian
		if int64(len(b)) < pageSize || le.Uint64(b) != id || !slices.Contains(flags, le.Uint16(b[8:])) {
			return nil, corrupt("page %d is not a %s page (meta txid %d)", id, pageKind(flags), m.txid)
		}
		return b, nil
	}
	if m.root < 2 || m.root >= m.hwm {
		return corrupt("root page %d outside 2..%d", m.root, m.hwm-1)
	}
	if _, err := page(m.root, leafPageFlag, branchPageFlag); err != nil {
		return err
	}
	if m.freelist == noFreelist {
		// bbolt rebuilds the freelist by walking the tree in a goroutine
		// of its own, where a wild page id is a fatal fault: walk it here
		// first.
		return walkFile(path, timeout)
	}
	if m.freelist < 2 || m.freelist >= m.hwm {
		return corrupt("freelist page %d outside 2..%d", m.freelist, m.hwm-1)
	}
	b, err := page(m.freelist, freelistFlag)
	if err != nil {
		return err
	}
	return checkFreelist(f, b, m.freelist, pageSize, m.hwm, corrupt)
}

// checkFreelist checks that the freelist page's ids fit its pages and lie
// between 2 and the high water mark, each once.
func checkFreelist(f *os.File, b []byte, id uint64, pageSize int64, hwm uint64, corrupt func(string, ...any) error) error {
	le := binary.LittleEndian
	overflow := uint64(le.Uint32(b[12:]))
	if id+overflow >= hwm {
		return corrupt("freelist page %d runs %d pages past the last page %d", id, overflow, hwm-1)
	}
	count, skip := uint64(le.Uint16(b[10:])), uint64(0)
	if count == 0xFFFF {
		count, skip = le.Uint64(b[pageHeaderSize:]), 1
	}
	room := (uint64(pageSize)*(overflow+1) - pageHeaderSize) / 8
	if count > room || count+skip > room {
		return corrupt("freelist page %d lists %d ids, room for %d", id, count, room)
	}
	data := make([]byte, (count+skip)*8)
	if _, err := f.ReadAt(data, int64(id)*pageSize+pageHeaderSize); err != nil {
		return corrupt("freelist page %d: %v", id, err)
	}
	ids := make([]uint64, count)
	for i := range ids {
		ids[i] = le.Uint64(data[(uint64(i)+skip)*8:])
	}
	slices.Sort(ids)
	for i, p := range ids {
		if p < 2 || p >= hwm || (i > 0 && ids[i-1] == p) {
			return corrupt("freelist page %d lists page %d (pages 2..%d, each once)", id, p, hwm-1)
		}
	}
	return nil
}

func pageKind(flags []uint16) string {
	switch {
	case slices.Contains(flags, freelistFlag):
		return "freelist"
	case slices.Contains(flags, leafPageFlag):
		return "leaf or branch"
	}
	return "known"
}

// txCheck is bbolt's tx.Check made safe for a damaged file. tx.Check reads
// pages in a goroutine of its own, where a page id past the end of the
// mapped file is a fatal fault, not a panic anyone can recover. So every
// page is first reached here, through cursors over every bucket, with
// faults turned into panics; tx.Check runs only when that walk succeeds.
func txCheck(tx *bolt.Tx) []error {
	if err := walkPages(tx); err != nil {
		return []error{err}
	}
	var errs []error
	for err := range tx.Check() {
		errs = append(errs, err)
	}
	return errs
}

func walkPages(tx *bolt.Tx) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("reading every page: %v", r)
		}
	}()
	var walk func(b *bolt.Bucket)
	walk = func(b *bolt.Bucket) {
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v == nil {
				if child := b.Bucket(k); child != nil {
					walk(child)
				}
			}
		}
	}
	return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		walk(b)
		return nil
	})
}

// walkFile opens path read-only (no freelist load) and reads every page.
func walkFile(path string, timeout time.Duration) error {
	db, err := openRecover(path, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	defer db.Close()
	err = viewRecover(db, walkPages)
	if err != nil && !errors.Is(err, ErrCorrupt) {
		err = fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return err
}

func viewRecover(db *bolt.DB, fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverCorrupt(&err)
	return db.View(fn)
}
