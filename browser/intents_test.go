package browser

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIntentConstructors(t *testing.T) {
	c := Click("e3")
	assert.Equal(t, Intent{Action: ActClick, Target: "e3"}, c)
	f := Fill("e4", "O'Brien")
	require.NotNil(t, f.Value)
	assert.Equal(t, "O'Brien", *f.Value)
	assert.Equal(t, ActFill, f.Action)
	assert.Equal(t, "e4", f.Target)
	n := Navigate("/items?page=2")
	assert.Equal(t, Intent{Action: ActNavigate, URL: "/items?page=2"}, n)
	// Each Fill owns its value.
	g := Fill("e4", "other")
	assert.NotSame(t, f.Value, g.Value)
}
