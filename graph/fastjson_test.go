package graph

import (
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fastText string

func (t fastText) MarshalText() ([]byte, error) { return []byte("x" + string(t)), nil }

type fastInt int

// TestFastJSONMatchesMarshal checks that the fast encoders write what
// encoding/json.Marshal writes, or decline.
func TestFastJSONMatchesMarshal(t *testing.T) {
	safe := []string{"", "a", "hello world", "ünïcödé ✓ 😀", "~!@#$%^*()_+{}|:?[];',./`"}
	unsafe_ := []string{"quote\"", "back\\slash", "<tag>", "a&b", "ctl\x01", "nl\n", "tab\t", "del\x7f", "bad\xff", "sep\u2028", "para\u2029"}
	strs := append(append([]string{}, safe...), unsafe_...)
	values := []any{0, 1, -1, 1 << 62, -(1 << 62), int8(-128), int16(300), int32(-7), int64(9e18),
		uint(7), uint16(65535), uint32(1 << 31), uint64(1 << 63), true, false, fastInt(42),
		[]int(nil), []int{}, []int{1, -2, 3}, []bool{true}, []string(nil), []string{}, safe, strs,
		[]fastInt{1, 2}, fastText("t"), []fastText{"a"}, []byte("bytes"), [][]string{{"a"}},
		1.5, []float64{1}, map[string]int{"a": 1}}
	for _, s := range strs {
		values = append(values, s)
	}
	for _, v := range values {
		rv := reflect.ValueOf(v)
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		want, err := json.Marshal(p.Interface())
		require.NoError(t, err)
		enc := fastJSON(rv.Type())
		switch rv.Type() {
		case reflect.TypeFor[fastText](), reflect.TypeFor[[]fastText](), reflect.TypeFor[[]byte](),
			reflect.TypeFor[[][]string](), reflect.TypeFor[float64](), reflect.TypeFor[[]float64](),
			reflect.TypeFor[map[string]int]():
			assert.Nil(t, enc, "%T has no fast encoder", v)
			continue
		}
		require.NotNil(t, enc, "%T", v)
		got, ok := enc([]byte("prefix"), unsafe.Pointer(p.Pointer()))
		if !ok {
			// Only strings it cannot tell Marshal's output of are declined.
			if l, isList := v.([]string); isList {
				assert.Equal(t, strs, l, "declined %#v", v)
			} else {
				assert.Contains(t, unsafe_, v, "declined %#v", v)
			}
			continue
		}
		assert.Equal(t, "prefix"+string(want), string(got), "%T %#v", v, v)
	}
}
