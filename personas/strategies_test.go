package personas

import (
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each built-in strategy, on its own fixture, finds the bug class it
// exists for; with the same seed, twice, it finds the same things.
func TestStrategiesFindTheirBugClass(t *testing.T) {
	reg := NewRegistry()
	cases := []struct {
		persona string
		app     func() http.Handler
		start   string
		steps   int
		kind    browser.FindingKind
		page    string // path the finding must be on
		oracle  OracleConfig
		also    []string // substrings of other findings' titles the run must report
	}{
		{NewUser, onboardingApp, "/", 6, KindDeadControl, "/", OracleConfig{}, nil},
		{PowerUser, bulkApp, "/", 6, browser.FindServerError, "/", OracleConfig{}, nil},
		{Adversarial, commentApp, "/", 12, KindXSS, "/", OracleConfig{}, nil},
		{Accessibility, a11yApp, "/", 8, KindA11y, "/", OracleConfig{}, []string{"axe image-alt", "axe button-name", "axe label", collector.FocusInvisibleRule}},
		{DataHeavy, func() http.Handler { return listApp(4, 1200*time.Millisecond) }, "/items", 6, KindSlow, "/items?page=4", OracleConfig{SlowThreshold: 800 * time.Millisecond}, nil},
		{Impatient, orderApp, "/checkout", 4, browser.FindServerError, "/checkout", OracleConfig{}, nil},
		{ReturningUser, prefsApp, "/", 14, browser.FindPageError, "/dashboard", OracleConfig{}, nil},
		{Explorer, mazeApp, "/", 30, browser.FindNotFound, "/products/coffee/beans/origin/report", OracleConfig{}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.persona, func(t *testing.T) {
			p, err := reg.Get(tc.persona)
			require.NoError(t, err)
			var runs [2][]string
			for i := range runs {
				rig := newRig(t, tc.app(), true)
				rep := rig.run(t, p, tc.start, tc.steps, 7, tc.oracle)
				var hit *Finding
				for j, f := range rep.Findings {
					runs[i] = append(runs[i], f.Key())
					if f.Kind == tc.kind && pathQuery(f.URL) == tc.page && hit == nil {
						hit = &rep.Findings[j]
					}
				}
				for _, want := range tc.also {
					assert.True(t, slices.ContainsFunc(rep.Findings, func(f Finding) bool { return strings.Contains(f.Title, want) }), "run %d: no finding %q in %v", i, want, runs[i])
				}
				require.NotNil(t, hit, "run %d: %s found no %s on %s; findings: %v\ntape: %s", i, tc.persona, tc.kind, tc.page, runs[i], tapeSummary(rep.Tape))
				assert.Equal(t, tc.persona, hit.Persona)
				assert.NotEmpty(t, hit.Evidence)
				require.Less(t, hit.TapeIndex, len(rep.Tape))
				assert.Equal(t, hit.Seq, rep.Tape[hit.TapeIndex].Seq)
				assert.NotZero(t, hit.Seq)
				require.NotEmpty(t, hit.Screenshot)
				st, err := os.Stat(hit.Screenshot)
				require.NoError(t, err)
				assert.Positive(t, st.Size())
				t.Logf("run %d: %d steps, %d states, findings %v", i, rep.Steps, rep.States, runs[i])
			}
			slices.Sort(runs[0])
			slices.Sort(runs[1])
			assert.Equal(t, runs[0], runs[1], "same seed, same findings")
		})
	}
}

func tapeSummary(tape []browser.Entry) string {
	var b strings.Builder
	for i, e := range tape {
		b.WriteString("\n" + string(rune('0'+i%10)) + " " + e.Params.JSON() + " → " + pathQuery(e.URL))
		for _, f := range e.Findings {
			b.WriteString(" [" + string(f.Kind) + "]")
		}
		b.WriteString(" " + time.Duration(e.DurationMS*int64(time.Millisecond)).String())
		if e.Error != "" {
			b.WriteString(" ERR " + e.Error)
		}
	}
	return b.String()
}
