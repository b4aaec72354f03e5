package state

import "maps"

// Append returns cur followed by upd. It is the usual reducer for lists that
// only grow, such as a log or a message history without removal.
func Append[T any](cur, upd []T) []T {
	if len(upd) == 0 {
		return cur
	}
	return append(cur, upd...)
}

// Replace returns upd: the last write wins. A field with no reducer already
// behaves like this except that two writes in one super-step are an error;
// with Replace the later task (in the step's order) wins instead.
func Replace[T any](_, upd T) T { return upd }

// Window returns a reducer that appends and keeps only the newest n elements
// (n <= 0 keeps nothing). Use it for bounded context such as an action tape.
func Window[T any](n int) func(cur, upd []T) []T {
	return func(cur, upd []T) []T {
		if n <= 0 {
			return nil
		}
		if len(upd) >= n {
			out := make([]T, n)
			copy(out, upd[len(upd)-n:])
			return out
		}
		out := append(cur, upd...)
		if len(out) > n {
			out = out[len(out)-n:]
		}
		return out
	}
}

// MergeMap returns a new map holding cur's entries overwritten by upd's.
// cur is never modified, so earlier views of the state keep their contents.
func MergeMap[K comparable, V any](cur, upd map[K]V) map[K]V {
	if len(upd) == 0 {
		return cur
	}
	out := make(map[K]V, len(cur)+len(upd))
	maps.Copy(out, cur)
	maps.Copy(out, upd)
	return out
}

// Sum adds upd to cur; handy for counters written by parallel tasks.
func Sum[T int | int8 | int16 | int32 | int64 | uint | uint8 | uint16 | uint32 | uint64 | float32 | float64](cur, upd T) T {
	return cur + upd
}

// MergeByID returns a reducer for lists of values with an identity: an update
// element whose id is already present replaces that element in place, an
// element for which remove reports true deletes the element with its id (and
// is not kept), and other elements are appended. remove may be nil.
// The result is a new slice; cur is not modified.
func MergeByID[T any, K comparable](id func(T) K, remove func(T) bool) func(cur, upd []T) []T {
	return func(cur, upd []T) []T {
		if len(upd) == 0 {
			return cur
		}
		out := make([]T, len(cur), len(cur)+len(upd))
		copy(out, cur)
		pos := make(map[K]int, len(out))
		for i, v := range out {
			pos[id(v)] = i
		}
		removed := false
		dead := make(map[int]bool)
		for _, v := range upd {
			k := id(v)
			i, ok := pos[k]
			if remove != nil && remove(v) {
				if ok && !dead[i] {
					dead[i] = true
					removed = true
					delete(pos, k)
				}
				continue
			}
			if ok {
				out[i] = v
				continue
			}
			pos[k] = len(out)
			out = append(out, v)
		}
		if !removed {
			return out
		}
		kept := out[:0]
		for i, v := range out {
			if !dead[i] {
				kept = append(kept, v)
			}
		}
		return kept
	}
}
