package checkpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
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
	var free []uint64
	if m.freelist != noFreelist {
		if m.freelist < 2 || m.freelist >= m.hwm {
			return corrupt("freelist page %d outside 2..%d", m.freelist, m.hwm-1)
		}
		b, err := page(m.freelist, freelistFlag)
		if err != nil {
			return err
		}
		if free, err = checkFreelist(f, b, m.freelist, pageSize, m.hwm, corrupt); err != nil {
			return err
		}
	}
	// bbolt follows page ids blindly. A cycle of pages makes any read
	// recurse until the stack overflows, a fatal error: refuse it. Without
	// a stored freelist, bbolt rebuilds it while opening by walking every
	// page in a goroutine of its own, where a bad page is fatal too: then
	// every page must be sound. Otherwise other damage is left to the
	// reads that meet it (each an ErrCorrupt) and to Check.
	strict := m.freelist == noFreelist
	t := &treeCheck{f: f, pageSize: pageSize, hwm: m.hwm, strict: strict,
		done: map[uint64]bool{}, onPath: map[uint64]bool{}, corrupt: corrupt}
	if err := t.page(m.root, 0); err != nil {
		return err
	}
	for _, id := range free {
		if t.done[id] {
			return corrupt("page %d is both in use and on the freelist", id)
		}
	}
	return nil
}

// treeCheck walks bbolt's page tree from the root bucket: every page id
// in range, of the right kind, reached once; every element inside its page.
type treeCheck struct {
	f        *os.File
	pageSize int64
	hwm      uint64
	strict   bool            // every anomaly is an error; else only cycles, and a bad page is not followed
	done     map[uint64]bool // pages checked
	onPath   map[uint64]bool // pages between the root and the current one
	corrupt  func(string, ...any) error
}

// bad reports an anomaly: an error when strict, else nil (the caller stops
// following that page).
func (t *treeCheck) bad(format string, args ...any) error {
	if t.strict {
		return t.corrupt(format, args...)
	}
	return nil
}

const maxTreeDepth = 128 // buckets nest, each a tree; far beyond real files

func (t *treeCheck) page(id uint64, depth int) error {
	if depth > maxTreeDepth {
		return t.corrupt("page tree deeper than %d at page %d", maxTreeDepth, id)
	}
	if t.onPath[id] {
		return t.corrupt("page %d refers back to itself through its children (a cycle)", id)
	}
	if id < 2 || id >= t.hwm {
		return t.bad("page id %d outside 2..%d", id, t.hwm-1)
	}
	if t.done[id] {
		return t.bad("page %d is reached twice", id)
	}
	hdr := make([]byte, pageHeaderSize)
	if _, err := t.f.ReadAt(hdr, int64(id)*t.pageSize); err != nil {
		return t.bad("page %d: %v", id, err)
	}
	le := binary.LittleEndian
	overflow := uint64(le.Uint32(hdr[12:]))
	if le.Uint64(hdr) != id || id+overflow >= t.hwm {
		return t.bad("page %d: header says page %d with %d overflow pages", id, le.Uint64(hdr), overflow)
	}
	for i := id; i <= id+overflow; i++ {
		t.done[i] = true
	}
	buf := make([]byte, int64(overflow+1)*t.pageSize)
	if _, err := t.f.ReadAt(buf, int64(id)*t.pageSize); err != nil {
		return t.bad("page %d: %v", id, err)
	}
	t.onPath[id] = true
	defer delete(t.onPath, id)
	return t.node(buf, id, depth)
}

// node checks the branch or leaf page in buf (a page, or an inline
// bucket's page inside a value).
func (t *treeCheck) node(buf []byte, id uint64, depth int) error {
	le := binary.LittleEndian
	if len(buf) < pageHeaderSize {
		return t.bad("page %d: %d bytes, short of a page header", id, len(buf))
	}
	flags, count := le.Uint16(buf[8:]), int(le.Uint16(buf[10:]))
	const elem = 16 // branch: pos, ksize, pgid; leaf: flags, pos, ksize, vsize
	if pageHeaderSize+count*elem > len(buf) {
		return t.bad("page %d: %d elements do not fit", id, count)
	}
	for i := range count {
		at := pageHeaderSize + i*elem
		e := buf[at : at+elem]
		switch flags {
		case branchPageFlag:
			pos, ksize := int(le.Uint32(e)), int(le.Uint32(e[4:]))
			if at+pos+ksize > len(buf) {
				return t.bad("page %d: element %d runs past the page", id, i)
			}
			if err := t.page(le.Uint64(e[8:]), depth+1); err != nil {
				return err
			}
		case leafPageFlag:
			eflags, pos, ksize, vsize := le.Uint32(e), int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
			end := at + pos + ksize + vsize
			if pos < 0 || ksize < 0 || vsize < 0 || end > len(buf) || end < at {
				return t.bad("page %d: element %d runs past the page", id, i)
			}
			if eflags&0x01 == 0 {
				continue
			}
			v := buf[at+pos+ksize : end] // a bucket: root page id, sequence, then an inline page
			if len(v) < 16 {
				return t.bad("page %d: element %d: short bucket header", id, i)
			}
			if root := le.Uint64(v); root != 0 {
				if err := t.page(root, depth+1); err != nil {
					return err
				}
			} else if err := t.node(v[16:], id, depth+1); err != nil {
				return err
			}
		default:
			return t.bad("page %d is not a branch or leaf page (flags %#x)", id, flags)
		}
	}
	return nil
}

// checkFreelist checks that the freelist page's ids fit its pages and lie
// between 2 and the high water mark, each once.
func checkFreelist(f *os.File, b []byte, id uint64, pageSize int64, hwm uint64, corrupt func(string, ...any) error) ([]uint64, error) {
	le := binary.LittleEndian
	overflow := uint64(le.Uint32(b[12:]))
	if id+overflow >= hwm {
		return nil, corrupt("freelist page %d runs %d pages past the last page %d", id, overflow, hwm-1)
	}
	count, skip := uint64(le.Uint16(b[10:])), uint64(0)
	if count == 0xFFFF {
		count, skip = le.Uint64(b[pageHeaderSize:]), 1
	}
	room := (uint64(pageSize)*(overflow+1) - pageHeaderSize) / 8
	if count > room || count+skip > room {
		return nil, corrupt("freelist page %d lists %d ids, room for %d", id, count, room)
	}
	data := make([]byte, (count+skip)*8)
	if _, err := f.ReadAt(data, int64(id)*pageSize+pageHeaderSize); err != nil {
		return nil, corrupt("freelist page %d: %v", id, err)
	}
	ids := make([]uint64, count)
	for i := range ids {
		ids[i] = le.Uint64(data[(uint64(i)+skip)*8:])
	}
	slices.Sort(ids)
	for i, p := range ids {
		if p < 2 || p >= hwm || (i > 0 && ids[i-1] == p) {
			return nil, corrupt("freelist page %d lists page %d (pages 2..%d, each once)", id, p, hwm-1)
		}
	}
	return ids, nil
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
// pages in a goroutine of its own, where reading past the end of the
// mapped file (a wild page id, a key offset past its page) is a fatal
// fault that no one can recover. So the tree of tx's meta page is first
// walked here, strictly, from the file; tx.Check runs only when the walk
// finds the tree sound. When tx's meta page was already overwritten by
// two later commits, the structure is not checked (nil).
func txCheck(tx *bolt.Tx) []error {
	checked, err := checkTxTree(tx)
	if err != nil {
		return []error{err}
	}
	if !checked {
		return nil
	}
	var errs []error
	for err := range tx.Check() {
		errs = append(errs, err)
	}
	return errs
}

// checkTxTree walks the page tree of tx's meta page in the file. The pages
// a read transaction sees are not reused while it is open.
func checkTxTree(tx *bolt.Tx) (checked bool, err error) {
	f, err := os.Open(tx.DB().Path())
	if err != nil {
		return false, err
	}
	defer f.Close()
	pageSize := int64(tx.DB().Info().PageSize)
	for _, off := range []int64{0, pageSize} {
		b := make([]byte, metaSize)
		if _, err := f.ReadAt(b, off); err != nil {
			continue
		}
		m := parseMeta(b)
		if m.err != nil || m.txid != uint64(tx.ID()) || m.pageSize != pageSize {
			continue
		}
		corrupt := func(format string, args ...any) error {
			return fmt.Errorf("%w: bbolt: %s", ErrCorrupt, fmt.Sprintf(format, args...))
		}
		t := &treeCheck{f: f, pageSize: pageSize, hwm: m.hwm, strict: true,
			done: map[uint64]bool{}, onPath: map[uint64]bool{}, corrupt: corrupt}
		return true, t.page(m.root, 0)
	}
	return false, nil
}
