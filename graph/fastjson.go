package graph

import (
	"reflect"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// jsonAppender appends the encoding/json encoding of the value at p to b.
// ok is false when it cannot tell that its output would be Marshal's
// (the caller then uses the serializer); b's bytes past its length may
// then have been written.
type jsonAppender func(b []byte, p unsafe.Pointer) (out []byte, ok bool)

// fastJSON returns an appender for values of t that encodes them as
// encoding/json.Marshal does, without reflection or an allocation, for
// the kinds a state's channels often have: integers, booleans, strings
// and slices of them. It returns nil for other types, and for types with
// their own MarshalJSON or MarshalText.
func fastJSON(t reflect.Type) jsonAppender {
	if customJSON(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Int:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
			return strconv.AppendInt(b, int64(*(*int)(p)), 10), true
		}
	case reflect.Int8:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
			return strconv.AppendInt(b, int64(*(*int8)(p)), 10), true
		}
	case reflect.Int16:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
			return strconv.AppendInt(b, int64(*(*int16)(p)), 10), true
		}
	case reflect.Int32:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
			return strconv.AppendInt(b, int64(*(*int32)(p)), 10), true
		}
	case reflect.Int64:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) { return strconv.AppendInt(b, *(*int64)(p), 10), true }
	case reflect.Uint:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
			return strconv.AppendUint(b, uint64(*(*uint)(p)), 10), true
		}
	case reflect.Uint16:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
			return strconv.AppendUint(b, uint64(*(*uint16)(p)), 10), true
		}
	case reflect.Uint32:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
			return strconv.AppendUint(b, uint64(*(*uint32)(p)), 10), true
		}
	case reflect.Uint64:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) { return strconv.AppendUint(b, *(*uint64)(p), 10), true }
	case reflect.Bool:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) { return strconv.AppendBool(b, *(*bool)(p)), true }
	case reflect.String:
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) { return appendJSONString(b, *(*string)(p)) }
	case reflect.Slice:
		elem := fastJSONElem(t)
		if elem == nil {
			return nil
		}
		size := t.Elem().Size()
		return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
			h := (*sliceHeader)(p)
			if h.data == nil {
				return append(b, "null"...), true
			}
			b = append(b, '[')
			b, ok := appendJSONElems(b, elem, h.data, h.len, size)
			return append(b, ']'), ok
		}
	}
	return nil
}

// fastJSONElem returns the appender of the elements of slice type t, nil
// when they have none (or t is []byte, which encoding/json writes in
// base64).
func fastJSONElem(t reflect.Type) jsonAppender {
	e := t.Elem()
	if e.Kind() == reflect.Uint8 || e.Kind() == reflect.Slice {
		return nil
	}
	return fastJSON(e)
}

// appendJSONElems appends the n elements at data, comma-separated.
func appendJSONElems(b []byte, elem jsonAppender, data unsafe.Pointer, n int, size uintptr) ([]byte, bool) {
	ok := true
	for i := 0; i < n && ok; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b, ok = elem(b, unsafe.Add(data, uintptr(i)*size))
	}
	return b, ok
}

// customJSON reports whether t (or *t) encodes itself.
func customJSON(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

// appendJSONString appends s quoted as encoding/json does (with its HTML
// escaping). It handles the characters encoding/json writes unchanged:
// printable ASCII other than '"', '\\', '<', '>', '&', and valid UTF-8
// other than U+2028 and U+2029; for any other, ok is false.
func appendJSONString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return b, false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
			return b, false
		}
		i += n
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}
