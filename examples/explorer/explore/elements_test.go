package explore

import (
	"testing"

	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/stretchr/testify/assert"
)

const sampleSnap = `page: "Sign in · Acme Projects" http://127.0.0.1:43125/signin
- generic [ref=e1]:
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

// The demo account a sign-in page shows is taken when none is given.
func TestGuessCredentials(t *testing.T) {
	c := session.GuessCredentials(sampleSnap, session.Credentials{})
	assert.Equal(t, session.Credentials{Email: "demo@example.com", Password: "demo1234"}, c)
	given := session.Credentials{Email: "me@example.com", Password: "secret"}
	assert.Equal(t, given, session.GuessCredentials(sampleSnap, given), "given credentials win")
}
