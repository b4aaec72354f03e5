package personas

import (
	"slices"
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Built-in personas on the demo app (behind the collector) find its seeded bugs
// of their class; the seeded ids in the evidence say which.
func TestDemoAppSeededBugs(t *testing.T) {
	app, err := demoapp.New(demoapp.Options{})
	require.NoError(t, err)
	rig := newRig(t, app, true)
	email, pass := demoapp.DemoEmail, demoapp.DemoPassword
	signIn := scripted("sign_in",
		browser.Intent{Action: browser.ActFill, Target: "#email", Value: &email},
		browser.Intent{Action: browser.ActFill, Target: "#password", Value: &pass},
		browser.Intent{Action: browser.ActClick, Target: "testid=signin-submit"})
	rep := rig.run(t, signIn, "/signin", 3, 1, OracleConfig{})
	require.True(t, rep.Tape[len(rep.Tape)-1].OK)
	require.NotContains(t, rig.page.URL(), "/signin", "signed in")

	reg := NewRegistry()
	ids := func(rep Report) []demoapp.BugID {
		var out []demoapp.BugID
		for _, f := range rep.Findings {
			out = append(out, demoapp.FindIDs(f.Evidence+" "+f.Title)...)
		}
		return out
	}
	a11y, err := reg.Get(Accessibility)
	require.NoError(t, err)
	rep = rig.run(t, a11y, "/projects", 2, 1, OracleConfig{})
	assert.Contains(t, ids(rep), demoapp.BugA11yIconButton, "findings: %v", rep.Findings)

	adv, err := reg.Get(Adversarial)
	require.NoError(t, err)
	rep = rig.run(t, adv, "/search", 8, 1, OracleConfig{})
	assert.True(t, slices.ContainsFunc(rep.Findings, func(f Finding) bool {
		return f.Kind == KindXSS && pathQuery(f.URL) != "" && f.Payload != ""
	}), "findings: %v\ntape: %s", rep.Findings, tapeSummary(rep.Tape))
}
