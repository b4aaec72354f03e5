package explore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A value some page showed before anyone typed it (a record an earlier
// run left with the same drawn value) is nobody's marker; a value first
// seen after its typist typed it stays one, and typing it again keeps it.
func TestCrossUserMarkerAlreadyShown(t *testing.T) {
	xu := newCrossUser()
	xu.saw("alice", "/notes", "Your notes\nQA sample title 924\nWrite a note")
	assert.False(t, xu.fresh("QA sample title 924"), "on alice's list before bob typed it")
	assert.False(t, xu.fresh("QA sample title 924"), "and it stays so")
	assert.True(t, xu.fresh("QA sample title 536"))
	xu.typed["QA sample title 536"] = map[string]bool{"bob": true}
	xu.saw("bob", "/notes", "Your notes\nQA sample title 536")
	assert.True(t, xu.fresh("QA sample title 536"), "typed before it was shown")

	// The pages kept are bounded, and so is each text.
	for i := range maxSeen + 10 {
		xu.saw("alice", "/p/"+strings.Repeat("x", i), "t")
	}
	assert.Len(t, xu.seen, maxSeen)
	xu.saw("alice", "/notes", strings.Repeat("y", 2*maxSeenText))
	assert.Len(t, xu.seen["alice\x00/notes"], maxSeenText)
}
