package graph

import (
	"reflect"
	"unsafe"
)

// field is the precomputed accessor of one channel (one top-level field).
type field struct {
	name   string
	off    uintptr
	typ    reflect.Type
	isZero func(p unsafe.Pointer) bool
	assign func(dst, src unsafe.Pointer)
	merge  func(dst, upd unsafe.Pointer) // the reducer, or nil
	// splice: a JSON-encoded list whose encoding can be extended by the
	// encoding of appended elements (see run.encodeChannel).
	splice bool
	// fast, fastElem: the field's and its elements' encoders that write
	// what the JSON serializer would (nil: use the serializer).
	fast, fastElem jsonAppender
}

type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func newField(sf reflect.StructField) field {
	t := sf.Type
	f := field{name: sf.Name, off: sf.Offset, typ: t}
	switch t.Kind() {
	case reflect.String:
		f.isZero = func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
		f.assign = func(d, s unsafe.Pointer) { *(*string)(d) = *(*string)(s) }
	case reflect.Slice:
		f.isZero = func(p unsafe.Pointer) bool { return (*sliceHeader)(p).data == nil }
		f.assign = func(d, s unsafe.Pointer) { *(*sliceHeader)(d) = *(*sliceHeader)(s) }
	case reflect.Interface:
		f.isZero = func(p unsafe.Pointer) bool { return *(*[2]unsafe.Pointer)(p) == [2]unsafe.Pointer{} }
		f.assign = func(d, s unsafe.Pointer) { *(*any)(d) = *(*any)(s) }
	case reflect.Map, reflect.Pointer, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		f.isZero = func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
		f.assign = func(d, s unsafe.Pointer) { *(*unsafe.Pointer)(d) = *(*unsafe.Pointer)(s) }
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		size := t.Size()
		f.isZero = func(p unsafe.Pointer) bool {
			for _, b := range unsafe.Slice((*byte)(p), size) {
				if b != 0 {
					return false
				}
			}
			return true
		}
		f.assign = func(d, s unsafe.Pointer) {
			copy(unsafe.Slice((*byte)(d), size), unsafe.Slice((*byte)(s), size))
		}
	default:
		f.isZero = func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsZero() }
		f.assign = func(d, s unsafe.Pointer) { reflect.NewAt(t, d).Elem().Set(reflect.NewAt(t, s).Elem()) }
	}
	return f
}

// ptr returns a pointer to the field in *s.
func (f *field) ptr(s unsafe.Pointer) unsafe.Pointer { return unsafe.Add(s, f.off) }

// iface returns the field of *s as a pointer interface (for the serializer).
func (f *field) iface(s unsafe.Pointer) any { return reflect.NewAt(f.typ, f.ptr(s)).Interface() }

// fieldName returns the name of field fi, "" when fi is out of range.
func (c *CompiledGraph[S]) fieldName(fi int) string {
	if fi < 0 || fi >= len(c.fields) {
		return ""
	}
	return c.fields[fi].name
}

// writesNothing reports whether every field of upd is its zero value.
func (c *CompiledGraph[S]) writesNothing(upd *S) bool {
	p := unsafe.Pointer(upd)
	for i := range c.fields {
		if !c.fields[i].isZero(c.fields[i].ptr(p)) {
			return false
		}
	}
	return true
}
