package browser

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEvaluateResults: what Playwright decodes becomes JSON (numbers JSON
// cannot hold as null, as JSON.stringify has them), and the JSON decodes
// into the caller's type. No browser needed.
func TestEvaluateResults(t *testing.T) {
	v := map[string]any{"n": 1, "f": 2.5, "nan": math.NaN(), "list": []any{"a", math.Inf(1), true}, "none": nil}
	raw, err := json.Marshal(jsonValue(v))
	require.NoError(t, err)
	assert.JSONEq(t, `{"n":1,"f":2.5,"nan":null,"list":["a",null,true],"none":null}`, string(raw))

	type shape struct {
		N int     `json:"n"`
		F float64 `json:"f"`
	}
	got, err := decodeResult[shape](raw, nil)
	require.NoError(t, err)
	assert.Equal(t, shape{N: 1, F: 2.5}, got)
	s, err := decodeResult[string](json.RawMessage(`null`), nil)
	require.NoError(t, err)
	assert.Equal(t, "", s, "null is the zero value")
	_, err = decodeResult[int](json.RawMessage(`"x"`), nil)
	assert.ErrorContains(t, err, `result "x" is not a int`)
	boom := errors.New("boom")
	_, err = decodeResult[int](nil, boom)
	assert.ErrorIs(t, err, boom)
}
