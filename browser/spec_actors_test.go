package browser

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTranslateActors(t *testing.T) {
	v := func(s string) *string { return &s }
	owner := []Entry{
		{Seq: 1, Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "/notes/new"}, URL: "http://app.test/notes/new"},
		{Seq: 2, Action: ActFill, OK: true, Params: Intent{Action: ActFill, Target: "e1", Value: v("Note 42")}, Locator: "getByLabel('Title')", URL: "http://app.test/notes/new"},
		{Seq: 3, Action: ActFill, OK: true, Params: Intent{Action: ActFill, Target: "e2", Value: v("${SECRET_1}")}, Locator: "getByLabel('Password')", URL: "http://app.test/notes/new"},
		{Seq: 4, Action: ActClick, OK: true, Params: Intent{Action: ActClick, Target: "e3"}, Locator: "getByRole('button', { name: 'Create' })", URL: "http://app.test/notes/7"},
	}
	viewer := []Entry{{Seq: 9, Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "/notes/7"}, URL: "http://app.test/notes/7"}}
	spec, err := Translate([]Reproduction{{Name: "leak", Bug: true, Checks: []Check{NoText{Text: "Note 42"}},
		Actors: []Actor{{Name: "alice", Entries: owner}, {Name: "bob", StorageStateEnv: "AGENTGRAPH_STORAGE_STATE_BOB", Entries: viewer}}}},
		SpecOptions{BaseURL: "http://app.test"})
	require.NoError(t, err)
	t.Log(spec)
	assert.Contains(t, spec, "async ({ browser, baseURL }) => {")
	assert.Contains(t, spec, "const context1 = await browser.newContext({ baseURL });")
	assert.Contains(t, spec, "const context2 = await browser.newContext({ baseURL, storageState: stateOf('AGENTGRAPH_STORAGE_STATE_BOB') });")
	assert.Contains(t, spec, "function stateOf(name: string)")
	assert.Contains(t, spec, "function secret(name: string)")
	assert.Contains(t, spec, ".fill(secret('SECRET_1'))")
	assert.Contains(t, spec, "not.toContainText('Note 42'")
	// alice's steps run before the expected failure is declared, in a
	// block of their own; bob's page gets the checks.
	i1, i2, fail := strings.Index(spec, "context1.newPage()"), strings.Index(spec, "context2.newPage()"), strings.Index(spec, "test.fail();")
	assert.True(t, i1 < i2 && i2 < fail, "order: alice, bob, test.fail()")
	assert.Equal(t, 1, strings.Count(spec, "test.fail();"))

	_, err = Translate([]Reproduction{{Name: "x", Entries: viewer, Actors: []Actor{{Name: "a"}}}}, SpecOptions{})
	require.ErrorContains(t, err, "either Entries or Actors")
	_, err = Translate([]Reproduction{{Name: "x", Actors: []Actor{{Name: "a b"}}}}, SpecOptions{})
	require.ErrorContains(t, err, `name "a b"`)
	_, err = Translate([]Reproduction{{Name: "x", Actors: []Actor{{Name: "a", StorageStateEnv: "A-B"}}}}, SpecOptions{})
	require.ErrorContains(t, err, "no environment variable name")
	_, err = Translate([]Reproduction{{Name: "x", Bug: true, Checks: []Check{NoText{}}, Actors: []Actor{{Name: "a"}}}}, SpecOptions{})
	require.ErrorContains(t, err, "empty text")
}
