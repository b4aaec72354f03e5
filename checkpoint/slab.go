package checkpoint

// slab hands out short slices cut from larger chunks, so that storing a
// step's checkpoint does not cost one allocation per slice. A chunk is
// freed when no slice cut from it is referenced any more. Chunks grow from
// slabMin to slabMax elements with the number of slices cut, so a thread
// that stores few checkpoints keeps little memory.
type slab[T any] struct {
	buf  []T
	size int // the next chunk's size
}

const (
	slabMin = 4
	slabMax = 64
)

// take returns a slice of n zero elements whose capacity is n (appending
// to it never writes into a neighbour). It is never nil.
func (s *slab[T]) take(n int) []T {
	if n > cap(s.buf)-len(s.buf) || s.buf == nil {
		if n > slabMax/2 {
			return make([]T, n)
		}
		s.size = min(max(2*s.size, slabMin), slabMax)
		s.buf = make([]T, 0, max(s.size, n))
	}
	i := len(s.buf)
	s.buf = s.buf[:i+n]
	return s.buf[i : i+n : i+n]
}

// byteSlab hands out copies of byte slices cut from larger chunks (the
// stored values, write values and arguments of a thread's checkpoints).
type byteSlab struct {
	buf  []byte
	size int
}

const (
	byteSlabMin = 256
	byteSlabMax = 8 << 10
)

// copy returns a copy of b with capacity len(b), keeping the difference
// between nil and empty.
func (s *byteSlab) copy(b []byte) []byte {
	if b == nil {
		return nil
	}
	n := len(b)
	if n > cap(s.buf)-len(s.buf) || s.buf == nil {
		if n > byteSlabMax/4 {
			return append(make([]byte, 0, n), b...)
		}
		s.size = min(max(2*s.size, byteSlabMin), byteSlabMax)
		s.buf = make([]byte, 0, max(s.size, n))
	}
	i := len(s.buf)
	s.buf = append(s.buf, b...)
	return s.buf[i : i+n : i+n]
}

// concat returns a copy of a followed by b (never nil).
func (s *byteSlab) concat(a, b []byte) []byte {
	n := len(a) + len(b)
	if n > cap(s.buf)-len(s.buf) || s.buf == nil {
		if n > byteSlabMax/4 {
			return append(append(make([]byte, 0, n), a...), b...)
		}
		s.size = min(max(2*s.size, byteSlabMin), byteSlabMax)
		s.buf = make([]byte, 0, max(s.size, n))
	}
	i := len(s.buf)
	s.buf = append(append(s.buf, a...), b...)
	return s.buf[i : i+n : i+n]
}
