package bytesx

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCommonPrefix(t *testing.T) {
	long := bytes.Repeat([]byte("ab"), 5000)
	changed := bytes.Clone(long)
	changed[9000] = 'x'
	for _, tc := range []struct {
		name string
		a, b []byte
		want int
	}{
		{"both nil", nil, nil, 0},
		{"one empty", []byte("abc"), nil, 0},
		{"equal", []byte("abc"), []byte("abc"), 3},
		{"prefix", []byte("abc"), []byte("abcdef"), 3},
		{"differ at first", []byte("xbc"), []byte("abc"), 0},
		{"differ inside", []byte("abXd"), []byte("abYd"), 2},
		{"long equal", long, long, len(long)},
		{"long differ after blocks", long, changed, 9000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, CommonPrefix(tc.a, tc.b))
			assert.Equal(t, tc.want, CommonPrefix(tc.b, tc.a))
		})
	}
}
