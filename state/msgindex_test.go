package state

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refAddMessages is AddMessages as specified, without any index: ids
// filled in, RemoveAllMessages, then MergeByID.
func refAddMessages(cur, upd []Message) []Message {
	if len(upd) == 0 {
		return cur
	}
	for i := len(upd) - 1; i >= 0; i-- {
		if upd[i].Role == RoleRemove && upd[i].ID == removeAllID {
			cur, upd = nil, upd[i+1:]
			break
		}
	}
	return MergeByID(func(m Message) string { return m.ID }, func(m Message) bool { return m.Role == RoleRemove })(cur, upd)
}

// randomUpdate makes an update of mostly new messages, with replacements,
// removals (known and unknown ids), repeats within the update, messages
// without an id and now and then a RemoveAllMessages.
func randomUpdate(r *rand.Rand, cur []Message, next *int) []Message {
	k := 1 + r.IntN(4)
	if r.IntN(10) == 0 {
		k = 9 + r.IntN(12) // past the small-update path
	}
	var upd []Message
	for range k {
		switch p := r.IntN(100); {
		case p < 60:
			*next++
			upd = append(upd, Message{ID: fmt.Sprint("n", *next), Role: RoleAI, Content: "new"})
		case p < 68:
			upd = append(upd, Message{Role: RoleHuman, Content: "no id"})
		case p < 78 && len(cur) > 0:
			upd = append(upd, Message{ID: cur[r.IntN(len(cur))].ID, Role: RoleAI, Content: fmt.Sprint("edit ", *next)})
		case p < 86 && len(cur) > 0:
			upd = append(upd, RemoveMessage(cur[r.IntN(len(cur))].ID))
		case p < 90:
			upd = append(upd, RemoveMessage("unknown"))
		case p < 98 && len(upd) > 0:
			m := upd[r.IntN(len(upd))]
			if m.ID != "" {
				m.Content = "repeat"
				upd = append(upd, m)
			}
		default:
			if r.IntN(20) == 0 {
				upd = append(upd, RemoveAllMessages())
			}
		}
	}
	return upd
}

// fillIDs gives upd's id-less messages the random ids AddMessages gave
// them: the ids in got that neither base nor upd has, in order (such
// messages are new, so they are appended in update order).
func fillIDs(base, upd, got []Message) []Message {
	out := slices.Clone(upd)
	from := 0
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Role == RoleRemove && out[i].ID == removeAllID {
			from = i + 1
			break
		}
	}
	known := map[string]bool{}
	for _, m := range base {
		known[m.ID] = true
	}
	for _, m := range upd {
		known[m.ID] = true
	}
	var random []string
	for _, m := range got {
		if !known[m.ID] {
			random = append(random, m.ID)
		}
	}
	for i := from; i < len(out); i++ {
		if out[i].ID == "" && len(random) > 0 {
			out[i].ID, random = random[0], random[1:]
		}
	}
	return out
}

func sameMessage(a, b Message) bool {
	return a.ID == b.ID && a.Role == b.Role && a.Content == b.Content
}

func summary(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID + ":" + string(m.Role) + ":" + m.Content
	}
	return out
}

// TestAddMessagesMatchesMergeByID drives AddMessages through random
// updates on lists that cross the index threshold, with forks from older
// views of the same array, and compares every result with MergeByID.
func TestAddMessagesMatchesMergeByID(t *testing.T) {
	matchesMergeByID(t, 12)
}

// TestAddMessagesHashCollisions: with a hash under which many ids collide,
// AddMessages falls back to comparing ids and stays exact.
func TestAddMessagesHashCollisions(t *testing.T) {
	defer func(h func(string) uint64) { idHash = h }(idHash)
	idHash = func(id string) uint64 { return uint64(len(id) % 3) }
	matchesMergeByID(t, 3)
	idHash = func(id string) uint64 { return uint64(len(id)) } // only ids of equal length collide
	matchesMergeByID(t, 3)
	// Seed ids never collide, new ones of equal length do: indexes are
	// built, then a new id hits another's entry (in a lookup, an append,
	// a merge).
	seeded := func(id string) uint64 { return maphash.String(idSeed, id) }
	idHash = func(id string) uint64 {
		if strings.HasPrefix(id, "n") {
			return uint64(len(id))
		}
		return seeded(id)
	}
	matchesMergeByID(t, 6)
}

func matchesMergeByID(t *testing.T, seeds uint64) {
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 17))
		next := 0
		var seedList []Message
		for range r.IntN(80) {
			next++
			seedList = append(seedList, Message{ID: fmt.Sprint("s", next), Role: RoleHuman})
		}
		cur := AddMessages(nil, seedList)
		require.Equal(t, seedList, cur)
		var views [][]Message
		for step := range 300 {
			base := cur
			if len(views) > 3 && r.IntN(15) == 0 {
				// A fork from an older view: it may share cur's array, so
				// cur (which the contract says is not kept) is dropped.
				base = views[len(views)-1-r.IntN(3)]
				views = views[:0]
			}
			want := slices.Clone(base)
			upd := randomUpdate(r, base, &next)
			got := AddMessages(base, upd)
			if ref := refAddMessages(want, fillIDs(want, upd, got)); !slices.EqualFunc(ref, got, sameMessage) {
				require.Equal(t, summary(ref), summary(got), "seed %d step %d", seed, step)
			}
			if !slices.EqualFunc(want, base[:len(want)], sameMessage) {
				t.Fatalf("seed %d step %d: cur's elements changed", seed, step)
			}
			views = append(views, got[:len(got):len(got)])
			cur = got
		}
	}
}

func mapID(m map[uint64]int32) uintptr { return reflect.ValueOf(m).Pointer() }

// TestAddMessagesIndexFollowsAppends: a long list gets its index once; each
// update that only adds messages extends that index (the same map, moved
// with the list when an append reallocates it) and replacements hand it to
// the new list, so no step rebuilds it.
func TestAddMessagesIndexFollowsAppends(t *testing.T) {
	seed := make([]Message, 1000)
	for i := range seed {
		seed[i] = Message{ID: fmt.Sprint("s", i)}
	}
	cur := AddMessages(nil, seed) // an input: indexed with it
	ix := indexOf(cur)
	require.NotNil(t, ix, "a list made by one update is indexed")
	m := mapID(ix.pos)
	ix.mu.Unlock()
	moved := 0
	for i := range 300 {
		prev := cur
		upd := []Message{{ID: fmt.Sprint("m", i), Role: RoleAI}}
		if i%3 == 0 {
			upd = append(upd, Message{Content: "random id"})
		}
		cur = AddMessages(cur, upd)
		if &cur[0] != &prev[0] {
			moved++
			assert.Nil(t, indexOf(prev), "the old array keeps no index")
		}
		ix := indexOf(cur)
		require.NotNil(t, ix, "step %d", i)
		assert.Equal(t, len(cur), ix.n)
		assert.Len(t, ix.pos, len(cur))
		assert.Equal(t, m, mapID(ix.pos), "step %d: the index was rebuilt", i)
		ix.mu.Unlock()
	}
	assert.Positive(t, moved, "the list outgrew its array at least once")

	// A replacement copies the list and its index goes with it.
	rep := AddMessages(cur, []Message{{ID: "s5", Content: "edited"}})
	ix = indexOf(rep)
	require.NotNil(t, ix)
	assert.Equal(t, m, mapID(ix.pos))
	assert.Equal(t, int32(5), ix.pos[idHash("s5")])
	ix.mu.Unlock()
	assert.Nil(t, indexOf(cur), "cur's index moved to the replacement")
	again := AddMessages(cur, []Message{{ID: "x"}}) // cur again: rebuilt, still exact
	assert.Equal(t, "x", again[len(again)-1].ID)
	assert.Equal(t, "", again[5].Content)

	// A removal renumbers the index.
	del := AddMessages(rep, []Message{RemoveMessage("s0"), RemoveMessage("m7")})
	ix = indexOf(del)
	require.NotNil(t, ix)
	assert.Len(t, ix.pos, len(del))
	for i, msg := range del {
		if int(ix.pos[idHash(msg.ID)]) != i {
			t.Fatalf("index says %s at %d, it is at %d", msg.ID, ix.pos[idHash(msg.ID)], i)
		}
	}
	ix.mu.Unlock()
	assert.Equal(t, "edited", del[4].Content)
}

// TestAddMessagesIndexDetectsStaleLength: an index made for a longer view
// of the same array is not used for a shorter one.
func TestAddMessagesIndexDetectsStaleLength(t *testing.T) {
	list := make([]Message, 40, 100)
	for i := range list {
		list[i] = Message{ID: fmt.Sprint("s", i)}
	}
	a := AddMessages(list, []Message{{ID: "a"}}) // in place, indexed (41)
	require.Same(t, &list[0], &a[0])
	short := a[:40]
	// Replacing "a" would be wrong for short, which has no "a".
	got := AddMessages(short, []Message{{ID: "a", Content: "new"}})
	assert.Len(t, got, 41)
	assert.Equal(t, "new", got[40].Content)
	// An element written in place (against the contract) at the end is noticed.
	b := AddMessages(got, []Message{{ID: "b"}})
	b[len(b)-1].ID = "changed"
	c := AddMessages(b, []Message{{ID: "b"}})
	assert.Equal(t, "b", c[len(c)-1].ID)
	assert.Len(t, c, len(b)+1, "b is not in the list any more, so it is new")
}

// TestAddMessagesIndexDropped: the index of a list that is gone is dropped.
func TestAddMessagesIndexDropped(t *testing.T) {
	var keys []weak.Pointer[Message]
	for i := range 4 {
		list := make([]Message, 64)
		for j := range list {
			list[j] = Message{ID: fmt.Sprint(i, "-", j)}
		}
		out := AddMessages(nil, list)
		keys = append(keys, weak.Make(&out[0]))
		_, ok := msgIndexes.Load(keys[i])
		require.True(t, ok)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		left := 0
		for _, k := range keys {
			if _, ok := msgIndexes.Load(k); ok {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d indexes of dead lists kept", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
