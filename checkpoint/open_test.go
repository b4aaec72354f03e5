package checkpoint

import (
	"context"
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
