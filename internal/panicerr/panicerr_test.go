package panicerr

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestError(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		err  *Error
		want string
	}{
		{"node", New("node", "n1", "", "x"), `graph: panic in node "n1": x`},
		{"reducer", New("reducer", "n1", "Tape", "x"), `graph: panic in reducer of field "Tape" (write of node "n1"): x`},
		{"reducer without node", New("reducer", "", "Tape", "x"), `graph: panic in reducer of field "Tape": x`},
		{"router", New("router", "n1", "", "x"), `graph: panic in router of node "n1": x`},
		{"serializer", New("serializer", "", "", boom), `graph: panic in serializer: boom`},
		{"tool", NewTool("search", "kaboom"), `tool "search" crashed (panic: kaboom); this is a bug in the tool, not in your arguments`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.err.Error())
			assert.NotEmpty(t, tc.err.Stack)
		})
	}
	assert.ErrorIs(t, New("node", "n", "", boom), boom)
	assert.NoError(t, NewTool("t", "not an error").Unwrap())
}
