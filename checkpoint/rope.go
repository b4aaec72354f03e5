package checkpoint

import "sync"

// ropeSuffix is how many bytes at the end of a value a rope keeps apart
// from its shared buffer: a delta that keeps all but them (a JSON list
// dropping its closing ']') extends the buffer in place.
const ropeSuffix = 16

// ropeMin is the length from which Memory.Put keeps a list value as a rope.
const ropeMin = 4096

// appendBuf is a byte buffer shared by the ropes of one channel along a
// chain of checkpoints. Bytes below len(b) never change; appending never
// disturbs the ropes that use a prefix of it.
type appendBuf struct {
	mu sync.Mutex
	b  []byte
}

// rope is an immutable channel value grown by appends: the first n bytes
// of buf, then tail. Extending it costs the bytes added (amortised), not
// the value's length, while no other rope has extended the same buffer.
type rope struct {
	buf  *appendBuf
	n    int
	last [ropeSuffix]byte // the tail, held in the rope (one allocation)
	nl   int
}

// newTail returns a rope of buf's first n bytes followed by parts.
func newTail(buf *appendBuf, n int, parts ...[]byte) *rope {
	r := new(rope)
	*r = makeTail(buf, n, parts...)
	return r
}

// makeTail is newTail's value: a rope is immutable, so a copy of it is the
// same value (Memory keeps its ropes inside its channel records).
func makeTail(buf *appendBuf, n int, parts ...[]byte) rope {
	r := rope{buf: buf, n: n}
	for _, p := range parts {
		r.nl += copy(r.last[r.nl:], p)
	}
	return r
}

func (r *rope) tail() []byte { return r.last[:r.nl] }

func (r *rope) len() int { return r.n + r.nl }

// bytes returns a new copy of the value.
func (r *rope) bytes() []byte {
	out := make([]byte, r.len())
	r.buf.mu.Lock()
	copy(out, r.buf.b[:r.n])
	r.buf.mu.Unlock()
	copy(out[r.n:], r.tail())
	return out
}

// newRope makes a rope holding a copy of prefix followed by tail.
func newRope(prefix, tail []byte) *rope {
	r := new(rope)
	*r = makeRope(prefix, tail)
	return r
}

// makeRope is newRope's value.
func makeRope(prefix, tail []byte) rope {
	n := len(prefix) + len(tail)
	s := min(n, ropeSuffix)
	all := make([]byte, 0, 2*n)
	all = append(append(all, prefix...), tail...)
	return makeTail(&appendBuf{b: all[:n-s]}, n-s, all[n-s:])
}

// extend returns the rope of the first keep bytes of r followed by tail;
// ok is false when r is shorter than keep.
func (r *rope) extend(keep int, tail []byte) (out *rope, ok bool) {
	v, ok := r.extendVal(keep, tail)
	if !ok {
		return nil, false
	}
	return &v, true
}

// extendVal is extend's value.
func (r *rope) extendVal(keep int, tail []byte) (out rope, ok bool) {
	if keep < 0 || keep > r.len() {
		return rope{}, false
	}
	r.buf.mu.Lock()
	defer r.buf.mu.Unlock()
	total := keep + len(tail)
	s := min(total, ropeSuffix)
	into := total - s - r.n // bytes to add to the buffer
	if keep < r.n || len(r.buf.b) != r.n || into < 0 {
		prefix := r.buf.b[:min(keep, r.n)]
		if keep > r.n {
			prefix = append(append(make([]byte, 0, keep), prefix...), r.tail()[:keep-r.n]...)
		}
		return makeRope(prefix, tail), true
	}
	// the value is buf[:n] + r.tail[:keep-n] + tail; all but its last s
	// bytes go to the buffer.
	mid := r.tail()[:keep-r.n]
	if into <= len(mid) {
		r.buf.b = append(r.buf.b, mid[:into]...)
		return makeTail(r.buf, len(r.buf.b), mid[into:], tail), true
	}
	r.buf.b = append(append(r.buf.b, mid...), tail[:into-len(mid)]...)
	return makeTail(r.buf, len(r.buf.b), tail[into-len(mid):]), true
}
