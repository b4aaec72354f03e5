package mission

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is the share of a batch's missions one process runs: the
// missions whose thread id hashes to Index among Count shards. The zero
// value runs every mission.
type Shard struct {
	Index int // 1..Count
	Count int
}

// ParseShard parses "i/n" (1 ≤ i ≤ n); "" is the zero Shard.
func ParseShard(s string) (Shard, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Shard{}, nil
	}
	bad := func(why string) (Shard, error) {
		return Shard{}, fmt.Errorf("%q: %s (want i/n with 1 ≤ i ≤ n, e.g. 1/4)", s, why)
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return bad("no '/'")
	}
	i, err := strconv.Atoi(strings.TrimSpace(is))
	if err != nil {
		return bad("i is not a number")
	}
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil {
		return bad("n is not a number")
	}
	switch {
	case n < 1:
		return bad("n must be at least 1")
	case i < 1 || i > n:
		return bad(fmt.Sprintf("i must be between 1 and %d", n))
	}
	return Shard{Index: i, Count: n}, nil
}

// String is "i/n", or "" for the zero Shard.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Owns reports whether the mission with this thread id is the shard's.
// The zero Shard owns every mission.
func (s Shard) Owns(threadID string) bool {
	return s.Count <= 1 || ShardOf(threadID, s.Count) == s.Index
}

// ShardOf is the shard (1..n) that runs the mission with this thread id:
// the 32-bit FNV-1a hash of the id, modulo n, plus one. It depends on the
// id alone, so every process given the same missions file agrees on the
// split, and a mission keeps its shard when others are added or removed.
func ShardOf(threadID string, n int) int {
	if n <= 1 {
		return 1
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(threadID))
	return int(h.Sum32()%uint32(n)) + 1
}
