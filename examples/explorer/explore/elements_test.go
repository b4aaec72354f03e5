package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/personas"
)

const sampleSnap = `page: "Sign in · Acme Projects" http://127.0.0.1:43125/signin
- generic [ref=e1]:
  - link "Skip to content" [ref=e2]:
    - /url: "#main"
  - banner [ref=e3]:
    - navigation "Main" [ref=e5]:
      - list [ref=e6]:
        - listitem [ref=e7]:
          - link "Sign in" [ref=e8] → /signin
  - main [ref=e11]:
    - heading "Sign in" [level=1] [ref=e12]
    - complementary "Demo account" [ref=e13]:
      - paragraph [ref=e14]:
        - text: "Demo account: email"
        - code [ref=e15]: demo@example.com
        - text: ", password"
        - code [ref=e16]: demo1234
    - generic [ref=e18]: Email
    - textbox "Email" [ref=f1e19]: typed
    - textbox "Password" [ref=e21]
    - combobox "Sort" [ref=f2e34]:
      - option "Newest first" [selected]
      - option "Budget (low to high)"
    - button "Sign in" [ref=e22]
`

func TestParseElements(t *testing.T) {
	els := personas.ParseElements(browser.Snapshot{URL: "http://127.0.0.1:43125/signin", Text: sampleSnap})
	byName := map[string]personas.Element{}
	for _, e := range els {
		byName[e.Role+":"+e.Name] = e
	}
	require.Contains(t, byName, "link:Sign in")
	assert.Equal(t, "/signin", byName["link:Sign in"].URL)
	assert.False(t, byName["link:Sign in"].InMain)
	assert.Equal(t, "#main", byName["link:Skip to content"].URL)
	assert.Equal(t, "typed", byName["textbox:Email"].Value)
	assert.Equal(t, "f1e19", byName["textbox:Email"].Ref)
	assert.True(t, byName["textbox:Password"].InMain)
	assert.Equal(t, []string{"Newest first", "Budget (low to high)"}, byName["combobox:Sort"].Options)
	assert.True(t, byName["button:Sign in"].InMain)
	c := guessCredentials(sampleSnap, Credentials{})
	assert.Equal(t, Credentials{Email: "demo@example.com", Password: "demo1234"}, c)
}
