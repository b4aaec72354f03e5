package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
)

// abandon stops using b as a crash would: the log file is closed without
// applying its records to bbolt, and the bbolt DB is closed.
func abandon(t *testing.T, b *Bolt) {
	t.Helper()
	b.wmu.Lock()
	defer b.wmu.Unlock()
	b.closed = true
	b.wal.err = ErrClosed
	require.NoError(t, b.wal.f.Close())
	require.NoError(t, b.db.Close())
}

type logged struct {
	db, log string
	cps     []*graph.Checkpoint
	writes  [][]graph.PendingWrite // pending writes stored against cps[i]
}

// writeLogged puts n checkpoints, each followed by pending writes against
// it, through a log that is never applied (ApplyEvery is large), then
// abandons the checkpointer: 2n records wait in the log.
func writeLogged(t *testing.T, n int) logged {
	t.Helper()
	ctx := context.Background()
	l := logged{db: filepath.Join(t.TempDir(), "cp.db")}
	db, err := OpenBoltDB(l.db, nil)
	require.NoError(t, err)
	cp, err := NewBolt(db, WithWAL(WALOptions{ApplyEvery: 1 << 20}), WithSnapshotEvery(4))
	require.NoError(t, err)
	l.log = cp.Replayed().Path
	require.Equal(t, l.db+".wal", l.log)
	for i := range n {
		c := checkpointtest.Sample("thread-x", "", i, i > 0)
		ws := []graph.PendingWrite{{TaskID: "t", Node: "n", Channel: "c", Value: []byte(fmt.Sprintf(`"W-%02d"`, i))}}
		require.NoError(t, cp.Put(ctx, c))
		require.NoError(t, cp.PutWrites(ctx, "thread-x", "", c.ID, ws))
		l.cps = append(l.cps, c)
		l.writes = append(l.writes, ws)
	}
	require.Len(t, cp.wal.pending, 2*n, "nothing was applied to bbolt")
	abandon(t, cp)
	return l
}

func openWAL(t *testing.T, path string, opts ...Option) (*Bolt, error) {
	t.Helper()
	db, err := OpenBoltDB(path, nil)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	cp, err := NewBolt(db, append([]Option{WithWAL(WALOptions{}), WithSnapshotEvery(4)}, opts...)...)
	if err == nil {
		t.Cleanup(func() { cp.Close() })
	}
	return cp, err
}

// assertLogged checks that checkpoints [0, upto) and the writes of
// [0, writesUpto) are stored, and nothing after them.
func assertLogged(t *testing.T, cp *Bolt, l logged, upto, writesUpto int) {
	t.Helper()
	ctx := context.Background()
	for i, want := range l.cps {
		got, ws, err := cp.Get(ctx, "thread-x", "", want.ID)
		if i >= upto {
			require.ErrorIs(t, err, graph.ErrCheckpointNotFound, "checkpoint %d", i)
			continue
		}
		require.NoError(t, err, "checkpoint %d", i)
		checkpointtest.AssertEqual(t, want, got)
		if i < writesUpto {
			assert.Equal(t, l.writes[i], ws, "writes of %d", i)
		} else {
			assert.Empty(t, ws, "writes of %d", i)
		}
	}
	require.NoError(t, cp.Check(ctx))
}

// logRecords scans the log file at path.
func logRecords(t *testing.T, path string) walScan {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	s, err := scanLog(data)
	require.NoError(t, err)
	return s
}

// damageLog changes the log file's bytes with fn.
func damageLog(t *testing.T, path string, fn func(data []byte, s walScan)) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	s, err := scanLog(data)
	require.NoError(t, err)
	fn(data, s)
	require.NoError(t, os.WriteFile(path, data, 0o600))
}

func recordStart(s walScan, i int) int64 {
	if i == 0 {
		return walDataStart
	}
	return s.ends[i-1]
}

func TestWALReplay(t *testing.T) {
	l := writeLogged(t, 12)
	s := logRecords(t, l.log)
	require.Len(t, s.records, 24)
	require.Empty(t, s.tail)

	cp, err := openWAL(t, l.db)
	require.NoError(t, err)
	assert.Equal(t, WALReplay{Path: l.log, Records: 24}, cp.Replayed())
	assertLogged(t, cp, l, 12, 12)
	after := logRecords(t, l.log)
	assert.Empty(t, after.records, "the log was reset after the replay")
	assert.Equal(t, s.epoch+1, after.epoch)
	// Applied to bbolt with deltas: the chain holds delta records.
	require.NoError(t, cp.db.View(func(tx *bolt.Tx) error {
		n, err := cp.openNS(tx, "thread-x", "", false)
		require.NoError(t, err)
		d, err := cp.decodeRecord(l.cps[5].ID, n.cps.Get([]byte(l.cps[5].ID)))
		require.NoError(t, err)
		assert.Equal(t, l.cps[4].ID, d.hdr.Base)
		return nil
	}))
}

// TestWALStaleEpoch: after a reset, the records of the earlier epoch that
// remain in the file are not replayed again.
func TestWALStaleEpoch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cp.db")
	cp, err := openWAL(t, path)
	require.NoError(t, err)
	for i := range 5 {
		require.NoError(t, cp.Put(ctx, checkpointtest.Sample("thread-x", "", i, i > 0)))
	}
	require.NoError(t, cp.Flush(ctx))
	require.NoError(t, cp.DeleteThread(ctx, "thread-x"))
	last := checkpointtest.Sample("thread-x", "", 9, false)
	require.NoError(t, cp.Put(ctx, last))
	abandon(t, cp)

	cp, err = openWAL(t, path)
	require.NoError(t, err)
	assert.Equal(t, 1, cp.Replayed().Records)
	list, err := cp.List(ctx, "thread-x", "", graph.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list, 1)
	checkpointtest.AssertEqual(t, last, list[0])
}

func TestWALDamagedTail(t *testing.T) {
	cases := []struct {
		name   string
		damage func(data []byte, s walScan)
		// records expected to be replayed; tail text expected
		records int
		tail    string
	}{
		{"torn last record", func(data []byte, s walScan) {
			// The second half of the last record never reached the disk.
			start, end := recordStart(s, 23), s.ends[23]
			clear(data[(start+end)/2 : end])
		}, 23, "fails its checksum"},
		{"bad checksum in the middle", func(data []byte, s walScan) {
			data[recordStart(s, 7)+walFrameHeader+10] ^= 0x40
		}, 7, "fails its checksum"},
		{"length past the end of the file", func(data []byte, s walScan) {
			binary.BigEndian.PutUint32(data[recordStart(s, 20):], uint32(len(data)))
		}, 20, "cut short"},
		{"damaged header", func(data []byte, s walScan) {
			data[9] ^= 0xff // the header's epoch: its checksum fails
		}, 24, "log header damaged"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := writeLogged(t, 12)
			damageLog(t, l.log, tc.damage)
			cp, err := openWAL(t, l.db)
			require.NoError(t, err, "a damaged tail is reported, not an error")
			r := cp.Replayed()
			assert.Equal(t, tc.records, r.Records)
			assert.Contains(t, r.Tail, tc.tail)
			// Record 2i is Put i, record 2i+1 its writes.
			assertLogged(t, cp, l, (tc.records+1)/2, tc.records/2)
			assert.Empty(t, logRecords(t, l.log).records, "the log was reset")
		})
	}
}

func TestWALUnknownVersion(t *testing.T) {
	t.Run("log header", func(t *testing.T) {
		l := writeLogged(t, 3)
		damageLog(t, l.log, func(data []byte, s walScan) {
			data[4] = walVersion + 1
			binary.BigEndian.PutUint32(data[16:20], crc32.Checksum(data[:16], crcTable))
		})
		before, err := os.ReadFile(l.log)
		require.NoError(t, err)
		_, err = openWAL(t, l.db)
		require.ErrorIs(t, err, ErrUnknownVersion)
		assert.Contains(t, err.Error(), l.log)
		assert.Contains(t, err.Error(), "version 2")
		after, err := os.ReadFile(l.log)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(before, after), "a log this build cannot read is left as it is")
	})
	t.Run("record envelope", func(t *testing.T) {
		l := writeLogged(t, 3)
		damageLog(t, l.log, func(data []byte, s walScan) {
			start, end := recordStart(s, 2), s.ends[2]
			payload := data[start+walFrameHeader : end]
			payload[3] = MaxEnvelopeVersion + 1
			binary.BigEndian.PutUint32(payload[len(payload)-4:], crc32.Checksum(payload[:len(payload)-4], crcTable))
			binary.BigEndian.PutUint32(data[start+4:], frameSum(uint32(len(payload)), s.epoch, payload))
		})
		_, err := openWAL(t, l.db)
		require.ErrorIs(t, err, ErrUnknownVersion)
		assert.Contains(t, err.Error(), "record 3")
		assert.Len(t, logRecords(t, l.log).records, 6, "the log is kept")
	})
	t.Run("serializer", func(t *testing.T) {
		l := writeLogged(t, 2)
		_, err := openWAL(t, l.db, WithSerializer(renamedJSON{}))
		require.ErrorIs(t, err, ErrFormat)
	})
}

type renamedJSON struct{ graph.JSON }

func (renamedJSON) Format() string { return "json2" }

func TestWALReadOnlyAndInUse(t *testing.T) {
	ctx := context.Background()
	l := writeLogged(t, 2)
	db, err := OpenBoltDB(l.db, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	_, err = NewBolt(db, WithWAL(WALOptions{}))
	require.ErrorContains(t, err, "4 records not yet in the read-only bbolt file")
	require.NoError(t, db.Close())

	cp, err := openWAL(t, l.db)
	require.NoError(t, err)
	_, err = NewBolt(cp.db, WithWAL(WALOptions{}))
	require.ErrorContains(t, err, "in use")
	require.NoError(t, cp.Close())
	require.ErrorIs(t, cp.Put(ctx, checkpointtest.Sample("thread-x", "", 7, false)), ErrClosed)
	got, _, err := cp.Get(ctx, "thread-x", "", "")
	require.NoError(t, err, "reads still work after Close")
	checkpointtest.AssertEqual(t, l.cps[1], got)
	require.NoError(t, cp.db.Close())

	db, err = OpenBoltDB(l.db, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer db.Close()
	ro, err := NewBolt(db, WithWAL(WALOptions{}))
	require.NoError(t, err, "an empty log does not stop a read-only open")
	got, _, err = ro.Get(ctx, "thread-x", "", "")
	require.NoError(t, err)
	checkpointtest.AssertEqual(t, l.cps[1], got)
}

// TestWALLargeRecords: a record larger than the log goes straight to
// bbolt; records that fill the log make it apply and reset.
func TestWALLargeRecords(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cp.db")
	cp, err := openWAL(t, path, WithWAL(WALOptions{Size: 1}))
	require.NoError(t, err)
	assert.Equal(t, int64(walDataStart+64<<10), cp.wal.size, "the smallest log")
	var all []*graph.Checkpoint
	for i := range 8 {
		c := checkpointtest.Sample("big", "", i, i > 0)
		c.Values["blob"] = bytes.Repeat([]byte{'a' + byte(i)}, 20<<10*(i%5)) // 0 to 80 KiB
		require.NoError(t, cp.Put(ctx, c))
		assert.LessOrEqual(t, cp.wal.off, cp.wal.size)
		all = append(all, c)
	}
	for _, want := range all {
		got, _, err := cp.Get(ctx, "big", "", want.ID)
		require.NoError(t, err)
		checkpointtest.AssertEqual(t, want, got)
	}
}

func TestScanLog(t *testing.T) {
	rec := func(epoch uint64, payload string) []byte {
		f := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
		f = binary.BigEndian.AppendUint32(f, frameSum(uint32(len(payload)), epoch, []byte(payload)))
		f = binary.BigEndian.AppendUint64(f, epoch)
		return append(f, payload...)
	}
	file := func(epoch uint64, recs ...[]byte) []byte {
		data := make([]byte, walDataStart+256)
		copy(data, walHeader(epoch))
		off := walDataStart
		for _, r := range recs {
			off += copy(data[off:], r)
		}
		return data
	}
	cases := []struct {
		name string
		data []byte
		want []string
		tail string
	}{
		{"empty file", nil, nil, ""},
		{"short file", []byte("AGWL"), nil, "shorter than its header block"},
		{"no records", file(3), nil, ""},
		{"records", file(3, rec(3, "one"), rec(3, "two")), []string{"one", "two"}, ""},
		{"stale epoch ends the log", file(3, rec(3, "one"), rec(2, "old")), []string{"one"}, ""},
		{"newer epoch ends the log", file(3, rec(3, "one"), rec(4, "junk")), []string{"one"}, ""},
		{"bad checksum", file(3, rec(3, "one"), append(rec(3, "two")[:16], "twx"...)), []string{"one"}, "fails its checksum"},
		{"cut short", file(3, rec(3, "one"), binary.BigEndian.AppendUint32(nil, 1<<30)[:4], rec(3, "x")[4:]), []string{"one"}, "cut short"},
		{"ends exactly at the file's end", append(file(1)[:walDataStart], rec(1, "last")...), []string{"last"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := scanLog(tc.data)
			require.NoError(t, err)
			var got []string
			for _, r := range s.records {
				got = append(got, string(r))
			}
			assert.Equal(t, tc.want, got)
			if tc.tail == "" {
				assert.Empty(t, s.tail)
			} else {
				assert.Contains(t, s.tail, tc.tail)
			}
		})
	}
}

// FuzzScanLog scans arbitrary logs. A log's bytes between its header
// (walHeaderLength) and its first record (walDataStart) are never read, so
// the input is the parts that are: head (the header, or a whole short
// file) and body (the records), laid out at their offsets. Every log
// scanLog can see is reachable (head holds up to walDataStart bytes), and
// the inputs stay small: the fuzzer minimises each new input by removing
// byte ranges, quadratic in its length, which on a 4 KiB input took all of
// its time.
func FuzzScanLog(f *testing.F) {
	rec := func(epoch uint64, payload string) []byte {
		fr := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
		fr = binary.BigEndian.AppendUint32(fr, frameSum(uint32(len(payload)), epoch, []byte(payload)))
		fr = binary.BigEndian.AppendUint64(fr, epoch)
		return append(fr, payload...)
	}
	f.Add(walHeader(1), []byte(nil), false)
	f.Add(walHeader(1), []byte{0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'a', 'b', 'c'}, false)
	f.Add(walHeader(3), append(rec(3, "one"), rec(3, "two")...), false)
	f.Add(walHeader(3), append(rec(3, "one"), rec(2, "old")...), false)
	f.Add([]byte("AGWL"), []byte(nil), true)
	f.Fuzz(func(t *testing.T, head, body []byte, short bool) {
		var data []byte
		if short {
			data = head[:min(len(head), walDataStart-1)] // a file shorter than its header block
		} else {
			data = make([]byte, walDataStart+len(body))
			copy(data, head[:min(len(head), walDataStart)])
			copy(data[walDataStart:], body)
		}
		s, err := scanLog(data)
		if err != nil {
			require.ErrorIs(t, err, ErrUnknownVersion)
			return
		}
		require.Len(t, s.ends, len(s.records))
		for i, r := range s.records {
			require.LessOrEqual(t, s.ends[i], int64(len(data)))
			require.True(t, bytes.Equal(r, data[s.ends[i]-int64(len(r)):s.ends[i]]))
		}
	})
}

// TestWALDeltaRecords: a Put whose parent was logged before it in the same
// epoch is logged as a delta, so a growing state does not make every
// record as large as the state; replay rebuilds every state exactly.
func TestWALDeltaRecords(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cp.db")
	cp, err := openWAL(t, path, WithWAL(WALOptions{ApplyEvery: 1 << 20}))
	require.NoError(t, err)
	msg := bytes.Repeat([]byte("m"), 1024)
	list := []byte("[]")
	var all []*graph.Checkpoint
	for i := range 30 {
		c := checkpointtest.Sample("grow", "", i, i > 0)
		if i == 0 {
			list = []byte(`["` + string(msg) + `"]`)
		} else {
			list = append(list[:len(list)-1], []byte(`,"`+string(msg)+`"]`)...)
		}
		c.Values["messages"] = bytes.Clone(list)
		require.NoError(t, cp.Put(ctx, c))
		all = append(all, c)
	}
	// A replaced checkpoint whose parent is not the newest logged one is
	// logged in full.
	replaced := checkpointtest.Sample("grow", "", 17, true)
	replaced.Values["messages"] = []byte(`["replaced"]`)
	require.NoError(t, cp.Put(ctx, replaced))
	all[17] = replaced
	s := logRecords(t, cp.wal.path)
	require.Len(t, s.records, 31)
	base := func(i int) string {
		env, err := DecodeEnvelope(s.records[i])
		require.NoError(t, err)
		id := checkpointtest.ID(i)
		if i == 30 {
			id = replaced.ID
		}
		d, err := cp.decodeRecord(id, env.Blobs[0])
		require.NoError(t, err)
		return d.hdr.Base
	}
	assert.Empty(t, base(0))
	for i := 1; i < 30; i++ {
		assert.Equal(t, checkpointtest.ID(i-1), base(i), "record %d is a delta", i)
		assert.Less(t, len(s.records[i]), 2048, "record %d is small", i)
	}
	assert.Empty(t, base(30))
	abandon(t, cp)

	cp, err = openWAL(t, path)
	require.NoError(t, err)
	assert.Equal(t, 31, cp.Replayed().Records)
	for _, want := range all {
		got, _, err := cp.Get(ctx, "grow", "", want.ID)
		require.NoError(t, err)
		checkpointtest.AssertEqual(t, want, got)
	}
}

// TestWALReplayDropsRefused: at replay, a logged operation bbolt refuses is
// dropped and reported; the others are applied.
func TestWALReplayDropsRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cp.db")
	cp, err := openWAL(t, path, WithWAL(WALOptions{ApplyEvery: 1 << 20}))
	require.NoError(t, err)
	good, bad := checkpointtest.Sample("good", "", 0, false), checkpointtest.Sample("bad", "", 0, false)
	require.NoError(t, cp.Put(ctx, good))
	require.NoError(t, cp.Put(ctx, bad))
	abandon(t, cp)

	// Thread "bad" gets a namespace bucket whose "c" is a value, not a
	// bucket: bbolt refuses to create the checkpoints bucket there.
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		th, err := tx.Bucket([]byte(DefaultBucket)).CreateBucket(threadKey("bad"))
		require.NoError(t, err)
		nb, err := th.CreateBucket(nsKeyBytes(""))
		require.NoError(t, err)
		return nb.Put(bucketCheckpoints, []byte("not a bucket"))
	}))
	require.NoError(t, db.Close())

	cp, err = openWAL(t, path)
	require.NoError(t, err)
	r := cp.Replayed()
	assert.Equal(t, 2, r.Records)
	require.Len(t, r.Dropped, 1)
	assert.ErrorContains(t, r.Dropped[0], `thread "bad"`)
	got, _, err := cp.Get(ctx, "good", "", "")
	require.NoError(t, err)
	checkpointtest.AssertEqual(t, good, got)
	assert.Empty(t, logRecords(t, path+".wal").records, "the log was reset")
}

// TestWALPutDeltaRecords: PutDelta logs a record of what the deltas add
// against the checkpoint logged before it. A chain of them survives the
// log filling up between them (the record then goes in full), a plain Put
// on a base holding ropes, a crash (the log replayed), and a delta larger
// than the log (straight to bbolt).
func TestWALPutDeltaRecords(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cp.db")
	opts := WithWAL(WALOptions{Size: 256 << 10, ApplyEvery: 1 << 20})
	cp, err := openWAL(t, path, opts)
	require.NoError(t, err)
	first := checkpointtest.Sample("t", "", 0, false)
	first.Values["msgs"] = bigList(100) // ~8 KB
	first.Versions["msgs"] = 1
	require.NoError(t, cp.Put(ctx, first))
	all := []*graph.Checkpoint{first}
	step := func(cp *Bolt, i, size int, delta bool) {
		prev := all[len(all)-1]
		c := checkpointtest.Sample("t", "", i, true)
		pm := prev.Values["msgs"]
		tail := fmt.Appendf(nil, `,{"id":"m%d","content":"%s"}]`, i, bytes.Repeat([]byte{'a' + byte(i%26)}, size))
		c.Values["msgs"] = append(bytes.Clone(pm[:len(pm)-1]), tail...)
		c.Versions["msgs"] = int64(i + 1)
		if delta {
			c2 := *c
			c2.Values = map[string][]byte{}
			for k, v := range c.Values {
				if k != "msgs" {
					c2.Values[k] = v
				}
			}
			c2.Versions = maps.Clone(c.Versions)
			require.NoError(t, cp.PutDelta(ctx, &c2, []graph.ChannelDelta{{Channel: "msgs", Keep: len(pm) - 1, Tail: tail}}))
		} else {
			require.NoError(t, cp.Put(ctx, c))
		}
		all = append(all, c)
	}
	check := func(cp *Bolt) {
		for _, c := range all {
			got, _, err := cp.Get(ctx, "t", "", c.ID)
			require.NoError(t, err)
			checkpointtest.AssertEqual(t, c, got)
		}
		require.NoError(t, cp.Check(ctx))
	}
	resets, small := 0, 0
	for i := 1; i <= 30; i++ {
		step(cp, i, 1<<10, i != 20)
		if p := cp.wal.pending; len(p) > 0 && len(p[len(p)-1]) < 4<<10 {
			small++ // a delta record, not the whole ~10-40 KB state
		}
		// Another thread's writes fill the log every few steps.
		before := cp.wal.epoch
		require.NoError(t, cp.PutWrites(ctx, "other", "", "c", []graph.PendingWrite{{TaskID: "x", Node: "n", Channel: "c", Value: bytes.Repeat([]byte("w"), 20<<10)}}))
		if cp.wal.epoch != before {
			resets++
		}
	}
	assert.GreaterOrEqual(t, resets, 2, "the log filled up and was applied")
	assert.Greater(t, small, 20, "PutDelta logs delta records")
	require.NotEmpty(t, cp.wal.pending)
	abandon(t, cp)
	cp, err = openWAL(t, path, opts)
	require.NoError(t, err)
	assert.Positive(t, cp.Replayed().Records)
	assert.Empty(t, cp.Replayed().Tail)
	check(cp)
	step(cp, 31, 1<<10, true)   // no logged parent: loaded from bbolt, logged in full
	step(cp, 32, 300<<10, true) // larger than the log
	step(cp, 33, 1<<10, true)
	check(cp)
}
