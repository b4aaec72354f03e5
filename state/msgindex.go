package state

import (
	"hash/maphash"
	"math"
	"runtime"
	"sync"
	"weak"
)

// indexMin is the shortest list AddMessages keeps an id index for: below
// it, comparing an update's ids with each of the list's is cheaper.
const indexMin = 32

// msgIndex maps the ids of the first n messages of one backing array to
// their positions (the last position when an id repeats). AddMessages keeps
// it beside the list it made, so that the next update that only adds
// messages checks its ids against it in O(update) and extends it, instead
// of scanning the list.
//
// Ids are keyed by a seeded 64-bit hash, so the map holds no pointers and
// costs the garbage collector nothing to scan; every hit is checked against
// the list's message, and two ids of one hash (which a random seed makes
// all but impossible) turn the index off for that list.
type msgIndex struct {
	mu  sync.Mutex
	key weak.Pointer[Message] // the array's first element
	n   int
	pos map[uint64]int32
}

var idSeed = maphash.MakeSeed()

// idHash is the index's hash; a variable only so that tests can make ids
// collide.
var idHash = func(id string) uint64 { return maphash.String(idSeed, id) }

// msgIndexes holds the index of each indexed list, keyed weakly by its
// array's first element: an index neither keeps its list alive nor
// outlives it (a cleanup drops it), and an array allocated later at the
// same address gets a key of its own. It is a cache: results never depend
// on it, only their cost does.
var msgIndexes sync.Map // weak.Pointer[Message] → *msgIndex

// indexOf returns the index of cur, locked, when there is one that
// describes exactly cur (its array and length); else nil.
func indexOf(cur []Message) *msgIndex {
	if len(cur) < indexMin {
		return nil
	}
	k := weak.Make(&cur[0])
	v, ok := msgIndexes.Load(k)
	if !ok {
		return nil
	}
	ix := v.(*msgIndex)
	ix.mu.Lock()
	n := len(cur)
	if ix.key != k || ix.n != n || ix.pos == nil {
		ix.mu.Unlock()
		return nil
	}
	// The index was made for this array and length. Check its last entry
	// too: a list whose elements were written in place (which the reducer
	// contract forbids) most likely shows it there.
	if p, ok := ix.pos[idHash(cur[n-1].ID)]; !ok || int(p) != n-1 {
		ix.mu.Unlock()
		return nil
	}
	return ix
}

// buildIndex indexes the ids of list (not registered); nil when two of
// its ids share a hash or the list is too long for the index.
func buildIndex(list []Message) *msgIndex {
	if len(list) >= math.MaxInt32 {
		return nil
	}
	ix := &msgIndex{n: len(list), pos: make(map[uint64]int32, len(list)+len(list)/4)}
	if !ix.add(list, 0, list) {
		return nil
	}
	return ix
}

// add records that list[from:] holds added (list is the list being
// indexed, for checking hits). It reports false when an id shares a hash
// with another id: then ix must be dropped.
func (ix *msgIndex) add(list []Message, from int, added []Message) bool {
	if from+len(added) >= math.MaxInt32 {
		return false
	}
	for i := range added {
		h := idHash(added[i].ID)
		if p, ok := ix.pos[h]; ok && list[p].ID != added[i].ID {
			return false
		}
		ix.pos[h] = int32(from + i)
	}
	return true
}

// has reports whether id is in list, which ix indexes; sure is false
// when id shares a hash with another id of list (then the caller must
// look).
func (ix *msgIndex) has(list []Message, id string) (found, sure bool) {
	p, ok := ix.pos[idHash(id)]
	if !ok {
		return false, true
	}
	if list[p].ID == id {
		return true, true
	}
	return false, false
}

// publish registers ix, which is not registered and not locked, as the
// index of list (whose ids it holds).
func publish(ix *msgIndex, list []Message) {
	if ix == nil || len(list) < indexMin {
		return
	}
	k := weak.Make(&list[0])
	ix.key, ix.n = k, len(list)
	if v, loaded := msgIndexes.LoadOrStore(k, ix); loaded {
		// The array had an index already (for another length): replace
		// its contents, so that the array keeps one entry and one cleanup.
		old := v.(*msgIndex)
		old.mu.Lock()
		old.n, old.pos = ix.n, ix.pos
		old.mu.Unlock()
		return
	}
	runtime.AddCleanup(&list[0], dropIndex, k)
}

func dropIndex(k weak.Pointer[Message]) { msgIndexes.Delete(k) }

// extend records in ix, the locked index of cur, that out is cur followed
// by added (AddMessages' append). When the append moved the list to a new
// array, the index moves with it; cur's array keeps none.
func (ix *msgIndex) extend(cur, out, added []Message) {
	if !ix.add(out, len(cur), added) {
		ix.drop()
		return
	}
	ix.n = len(out)
	if &out[0] == &cur[0] {
		return
	}
	pos := ix.pos
	ix.drop()
	publish(&msgIndex{pos: pos}, out)
}

// drop unregisters ix, which is locked; a lookup that still holds it
// finds it empty.
func (ix *msgIndex) drop() {
	ix.pos = nil
	msgIndexes.CompareAndDelete(ix.key, ix)
}

// release takes the id map out of ix, the locked index of cur, drops ix
// and unlocks it: the caller builds a new list from the map.
func (ix *msgIndex) release() map[uint64]int32 {
	pos := ix.pos
	ix.drop()
	ix.mu.Unlock()
	return pos
}
