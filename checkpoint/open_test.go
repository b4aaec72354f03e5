package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
)

// usedSize is how many bytes of path hold pages (bbolt may pre-size it).
func usedSize(t *testing.T, path string) int64 {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer db.Close()
	var used int64
	require.NoError(t, db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil }))
	return used
}

// damagedFiles writes one sound thread and derives damaged copies of it:
// truncated at many offsets, random bytes over the meta pages, zeros.
func damagedFiles(t *testing.T) map[string]func(path string) {
	src, _ := writeThread(t, 40, 20)
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	used := usedSize(t, src)
	const page = 4096
	cases := map[string]func(path string){}
	for _, n := range []int64{1, 100, page - 1, page, page + 1, 2 * page, 2*page + 17, 3 * page, used / 3, used / 2, used - page, used - 1} {
		cases[fmt.Sprintf("truncated at %d of %d", n, used)] = func(path string) {
			require.NoError(t, os.WriteFile(path, data[:n], 0o600))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range []struct {
		name     string
		from, to int
	}{
		{"random meta page 0", 0, page},
		{"random meta page 1", page, 2 * page},
		{"random meta pages 0 and 1", 0, 2 * page},
		{"random page headers 0 and 1", 0, page + 64},
		{"random page after the metas", 2 * page, 3 * page},
		{"random freelist and root area", 2 * page, 6 * page},
	} {
		cases[r.name] = func(path string) {
			b := append([]byte(nil), data...)
			for i := r.from; i < r.to && i < len(b); i++ {
				b[i] = byte(rng.Uint32())
			}
			require.NoError(t, os.WriteFile(path, b, 0o600))
		}
	}
	for _, n := range []int{page, 2 * page, 8 * page} {
		cases[fmt.Sprintf("%d zero bytes", n)] = func(path string) {
			require.NoError(t, os.WriteFile(path, make([]byte, n), 0o600))
		}
	}
	return cases
}

// TestOpenDamagedFile opens damaged files read-only and read-write: never
// a panic; an error wrapping ErrCorrupt, or an open file whose damage
// Check (or NewBolt) reports.
func TestOpenDamagedFile(t *testing.T) {
	cases := damagedFiles(t)
	require.Len(t, cases, 12+6+3)
	for name, damage := range cases {
		for _, readOnly := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/readonly=%v", name, readOnly), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "cp.db")
				damage(path)
				before, err := os.ReadFile(path)
				require.NoError(t, err)
				db, err := OpenBoltDB(path, &bolt.Options{ReadOnly: readOnly, Timeout: time.Second})
				if err != nil {
					require.ErrorIs(t, err, ErrCorrupt)
					assert.Contains(t, err.Error(), path)
					after, rerr := os.ReadFile(path)
					require.NoError(t, rerr)
					assert.Equal(t, before, after, "a failed open changes nothing")
					// The file and its lock were released: opening again
					// gives the same error, not a lock timeout.
					_, err2 := OpenBoltDB(path, &bolt.Options{ReadOnly: readOnly, Timeout: 200 * time.Millisecond})
					require.ErrorIs(t, err2, ErrCorrupt)
					return
				}
				defer db.Close()
				cp, err := NewBolt(db)
				if err != nil {
					require.ErrorIs(t, err, ErrCorrupt)
					return
				}
				// Opened: only a copy whose damage bbolt can route around
				// (one meta page, or pages it does not read to open).
				err = cp.Check(context.Background())
				if err != nil {
					require.ErrorIs(t, err, ErrCorrupt)
				}
				t.Logf("opened; Check: %v", err)
			})
		}
	}
}

// TestOpenDamagedFileReported pins the probes that must fail to open.
func TestOpenDamagedFileReported(t *testing.T) {
	cases := damagedFiles(t)
	used := usedSize(t, func() string { p, _ := writeThread(t, 40, 20); return p }())
	for _, name := range []string{
		"truncated at 1 of " + fmt.Sprint(used),
		fmt.Sprintf("truncated at %d of %d", 4096, used),
		fmt.Sprintf("truncated at %d of %d", used/2, used),
		fmt.Sprintf("truncated at %d of %d", used-1, used),
		"random meta pages 0 and 1",
		"8192 zero bytes",
	} {
		t.Run(name, func(t *testing.T) {
			damage, ok := cases[name]
			require.True(t, ok, "no case %q", name)
			path := filepath.Join(t.TempDir(), "cp.db")
			damage(path)
			_, err := OpenBoltDB(path, nil)
			require.ErrorIs(t, err, ErrCorrupt)
		})
	}
}

func TestOpenEmptyFileIsNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cp.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	db, err := OpenBoltDB(path, nil)
	require.NoError(t, err, "a zero-length file (a crash before bbolt wrote its first pages) holds nothing to lose")
	defer db.Close()
	cp, err := NewBolt(db)
	require.NoError(t, err)
	require.NoError(t, cp.Check(context.Background()))
}

func TestOpenLockTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cp.db")
	db, err := OpenBoltDB(path, nil)
	require.NoError(t, err)
	defer db.Close()
	start := time.Now()
	_, err = OpenBoltDB(path, &bolt.Options{Timeout: 150 * time.Millisecond})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	require.ErrorIs(t, err, bolterrors.ErrTimeout)
	assert.False(t, errors.Is(err, ErrCorrupt))
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "held by another process?")
	assert.Contains(t, err.Error(), "150ms")
}

// pointBranchesPastEnd makes the first child of every branch page of path
// a page id past the end of the mapped file (but within bbolt's address
// range), and returns how many it changed.
func pointBranchesPastEnd(t *testing.T, path string) int {
	t.Helper()
	return pointBranches(t, path, func(uint64) uint64 { return 1 << 20 })
}

// pointBranches sets the first child of every branch page of path to
// to(the page's own id) and returns how many it changed.
func pointBranches(t *testing.T, path string, to func(self uint64) uint64) int {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	const page = 4096
	n := 0
	for off := 2 * page; off+page <= len(data); off += page {
		le := binary.LittleEndian
		if le.Uint16(data[off+8:]) == branchPageFlag && le.Uint64(data[off:]) == uint64(off/page) {
			le.PutUint64(data[off+pageHeaderSize+8:], to(uint64(off/page))) // element: pos, ksize, pgid
			n++
		}
	}
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return n
}

// TestCheckWildPageID: a branch page pointing past the end of the file
// made Check die with a fatal fault in bbolt's own goroutine; now it is
// ErrCorrupt, and so are the reads through that page.
func TestCheckWildPageID(t *testing.T) {
	path, all := writeThread(t, 200, 20)
	require.Positive(t, pointBranchesPastEnd(t, path))
	cp := reopen(t, path)
	err := cp.Check(context.Background())
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "outside 2..")
	failures := 0
	for _, c := range all {
		if _, _, err := cp.Get(context.Background(), "thread-x", "", c.ID); err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			failures++
		}
	}
	assert.Positive(t, failures)
}

// TestOpenNoFreelistSyncWildPage: without a stored freelist bbolt rebuilds
// it while opening, walking the tree in a goroutine of its own; a wild
// page id there was a fatal fault, now it is ErrCorrupt.
func TestOpenNoFreelistSyncWildPage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cp.db")
	db, err := OpenBoltDB(path, &bolt.Options{NoFreelistSync: true})
	require.NoError(t, err)
	cp, err := NewBolt(db)
	require.NoError(t, err)
	_, all := writeThread(t, 200, 20) // its checkpoints, put again into this file
	for _, c := range all {
		require.NoError(t, cp.Put(ctx, c))
	}
	require.NoError(t, db.Close())
	db, err = OpenBoltDB(path, &bolt.Options{NoFreelistSync: true})
	require.NoError(t, err, "a sound file without a freelist opens")
	require.NoError(t, db.Close())

	require.Positive(t, pointBranchesPastEnd(t, path))
	for _, readOnly := range []bool{false, true} {
		_, err = OpenBoltDB(path, &bolt.Options{NoFreelistSync: true, ReadOnly: readOnly})
		require.ErrorIs(t, err, ErrCorrupt)
		assert.Contains(t, err.Error(), path)
	}
}

// FuzzOpenBoltDB opens arbitrary file contents, as mutations of a small
// sound file: an error must wrap ErrCorrupt; an open file must survive
// NewBolt, Check and reading every thread without a panic or a fault.
//
// The input is not the file itself but edits to the sound file (see
// editedFile): a few bytes written at any offset, the file cut short or
// grown. Any file is reachable that way, and the inputs stay small: the
// fuzzer minimises each new input by removing byte ranges, quadratic in
// its length, which on a 16–64 KiB file took all of its time.
func FuzzOpenBoltDB(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.db")
	db, err := OpenBoltDB(path, nil)
	require.NoError(f, err)
	cp, err := NewBolt(db, WithSnapshotEvery(2))
	require.NoError(f, err)
	for i := range 6 {
		require.NoError(f, cp.Put(context.Background(), checkpointtest.Sample("thread-x", "", i, i > 0)))
	}
	require.NoError(f, db.Close())
	sound, err := os.ReadFile(path)
	require.NoError(f, err)
	require.LessOrEqual(f, len(sound), 1<<16, "cut (a uint16) reaches every length but 0 (a new file)")
	f.Add([]byte(nil), uint16(0), false)
	f.Add([]byte(nil), uint16(len(sound)/2), true)
	f.Add([]byte(nil), uint16(len(sound)-3*4096), false)
	// A meta page's root and freelist page ids, a page header's count.
	f.Add([]byte{0, 0, 0x40, 8, 0xff, 0, 0, 0, 0, 0, 0, 0}, uint16(0), false)
	f.Add([]byte{0, 0x10, 0x38, 8, 0x7f, 0, 0, 0, 0, 0, 0, 0}, uint16(0), true)
	f.Add([]byte{0, 0x20, 0x0a, 2, 0xff, 0xff}, uint16(0), false)
	f.Fuzz(func(t *testing.T, edits []byte, cut uint16, readOnly bool) {
		openDamaged(t, editedFile(sound, edits, int(cut)), readOnly)
	})
}

// editedFile is sound cut short by cut bytes, then with edits applied:
// each edit is a 3-byte big-endian offset, a length n and n bytes written
// there (a truncated last edit writes what it has); an edit past the end
// grows the file with zeros, up to 1 MiB.
func editedFile(sound, edits []byte, cut int) []byte {
	data := bytes.Clone(sound[:len(sound)-min(cut, len(sound))])
	for len(edits) >= 4 {
		off := int(edits[0])<<16 | int(edits[1])<<8 | int(edits[2])
		n := min(int(edits[3]), len(edits)-4)
		patch := edits[4 : 4+n]
		edits = edits[4+n:]
		if end := off + len(patch); end > len(data) && end <= 1<<20 {
			data = append(data, make([]byte, end-len(data))...)
		}
		if off+len(patch) <= len(data) {
			copy(data[off:], patch)
		}
	}
	return data
}

// openDamaged is FuzzOpenBoltDB's check of one file.
func openDamaged(t *testing.T, data []byte, readOnly bool) {
	if len(data) == 0 {
		return // a new file
	}
	path := filepath.Join(t.TempDir(), "cp.db")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	db, err := OpenBoltDB(path, &bolt.Options{ReadOnly: readOnly, Timeout: time.Second})
	if err != nil {
		require.ErrorIs(t, err, ErrCorrupt)
		return
	}
	defer db.Close()
	cp, err := NewBolt(db)
	if err != nil {
		require.ErrorIs(t, err, ErrCorrupt)
		return
	}
	_ = cp.Check(context.Background())
	for _, id := range []string{"", "thread-x"} {
		_, _ = cp.List(context.Background(), id, "", graph.ListOptions{})
		_, _, _ = cp.Get(context.Background(), id, "", "")
	}
}

// TestOpenBoltDBFuzzFindings replays the files fuzzing found (stored
// whole in testdata/corrupt; the first, a key offset past its page that
// was a fatal fault in bbolt's goroutine, opened read-only).
func TestOpenBoltDBFuzzFindings(t *testing.T) {
	for name, readOnly := range map[string]bool{"fuzz-be9645dbd282da06.db": true} {
		data, err := os.ReadFile(filepath.Join("testdata", "corrupt", name))
		require.NoError(t, err)
		t.Run(name, func(t *testing.T) { openDamaged(t, data, readOnly) })
	}
}

// TestOpenPageCycle: a branch page whose child is itself made every read
// through it recurse until a fatal stack overflow; the file is refused.
func TestOpenPageCycle(t *testing.T) {
	path, _ := writeThread(t, 200, 20)
	require.Positive(t, pointBranches(t, path, func(self uint64) uint64 { return self }))
	for _, readOnly := range []bool{false, true} {
		_, err := OpenBoltDB(path, &bolt.Options{ReadOnly: readOnly})
		require.ErrorIs(t, err, ErrCorrupt)
		assert.Contains(t, err.Error(), "cycle")
	}
}
