package drive

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

func fixtureSubject() Subject {
	return Subject{Seed: 9, Bugs: fixtureBugs(),
		Buggy: func() http.Handler { return fixtureApp(false) },
		Fixed: func() http.Handler { return fixtureApp(true) }}
}

// TestVerifyFixture plays every signal's bug of the hand-made app on the
// buggy build (it fires, with evidence naming the id) and on the fixed
// build (it does not, and the page stays clean), three bugs at a time.
func TestVerifyFixture(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var progress bytes.Buffer
	d := New(Options{Progress: &progress})
	rep, err := d.VerifyApps(ctx, testBrowser, []Subject{fixtureSubject()}, 3)
	require.NoError(t, err)
	t.Logf("%s\n%s", progress.String(), rep.Total())

	bugs := fixtureBugs()
	require.Len(t, rep.Results, len(bugs))
	signals := map[bugfarm.Signal]bool{}
	for i, r := range rep.Results {
		t.Run(r.ID, func(t *testing.T) {
			assert.Equal(t, bugs[i].ID, r.ID, "results keep the bugs' order")
			signals[r.Signal] = true
			assert.True(t, r.OK, "%v", r.Problems)
			assert.True(t, r.Buggy.Fired, "fires on the buggy build: %s", r.BuggyErr)
			assert.Empty(t, r.BuggyErr)
			assert.Equal(t, len(bugs[i].Trigger), r.Buggy.Steps)
			if r.Signal != bugfarm.SignalDead {
				assert.Regexp(t, `(?i)`+r.ID, r.Buggy.Evidence, "the evidence names the bug")
			} else {
				assert.Contains(t, r.Buggy.Evidence, "no DOM mutation")
				assert.Contains(t, r.Buggy.Evidence, r.ID, "the control's html")
			}
			assert.False(t, r.Fixed.Fired, "silent on the fixed build: %s", r.Fixed.Evidence)
			assert.Empty(t, r.FixedErr)
			assert.True(t, r.Fixed.Clean(), "fixed build clean: %v", r.Fixed.Problems())
			assert.Contains(t, progress.String(), "seed 9 "+r.ID+" ")
		})
	}
	for _, s := range []bugfarm.Signal{bugfarm.SignalPageError, bugfarm.SignalConsole, bugfarm.SignalResponse, bugfarm.SignalSlow,
		bugfarm.SignalScript, bugfarm.SignalAxe, bugfarm.SignalDOM, bugfarm.SignalDead} {
		assert.True(t, signals[s], "the fixture covers %s", s)
	}
	assert.Zero(t, rep.Failed)
	assert.Contains(t, rep.Total(), "12 bugs, 12 ok, 0 failed")

	// The buggy build's errors are in the observation whatever the signal.
	byID := map[string]Result{}
	for _, r := range rep.Results {
		byID[r.ID] = r
	}
	assert.Contains(t, strings.Join(byID["bf9-01"].Buggy.PageErrors, "\n"), "bf9-01: cannot parse notes.csv")
	assert.Contains(t, strings.Join(byID["bf9-03"].Buggy.PageErrors, "\n"), "bf9-03", "an unhandled rejection is a page error")
	assert.Contains(t, strings.Join(byID["bf9-02"].Buggy.ConsoleErrors, "\n"), "bf9-02")
	assert.Contains(t, strings.Join(byID["bf9-04"].Buggy.ServerErrors, "\n"), "→ 500: bf9-04: SQL syntax error")
	assert.Empty(t, byID["bf9-05"].Buggy.ConsoleErrors, "Chromium's own 'Failed to load resource' lines are left out")
}

// TestVerifyReportsFailures: a bug whose trigger fires on both builds, one
// that never fires and one whose trigger cannot be played are failures with
// a reason, not errors.
func TestVerifyReportsFailures(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	always := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>x</title><p>hi</p><script>console.error('bf8-01 always')</script>`))
	})
	sub := Subject{Seed: 8, Buggy: func() http.Handler { return always }, Fixed: func() http.Handler { return always },
		Bugs: []bugfarm.Bug{
			{ID: "bf8-01", Trigger: []bugfarm.Step{{Op: bugfarm.OpGoto, Path: "/"}}, Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}},
			{ID: "bf8-02", Trigger: []bugfarm.Step{{Op: bugfarm.OpGoto, Path: "/"}}, Expect: bugfarm.Expect{Signal: bugfarm.SignalPageError}},
			{ID: "bf8-03", Trigger: []bugfarm.Step{{Op: bugfarm.OpGoto, Path: "/"}, {Op: bugfarm.OpClick, Selector: "#missing"}},
				Expect: bugfarm.Expect{Signal: bugfarm.SignalPageError}},
		}}
	// A step timeout that a loaded machine's page load stays under (the
	// good bug must need no retry), short enough for the missing element.
	d := New(Options{StepTimeout: 2 * time.Second, Settle: 200 * time.Millisecond, Retries: 2})
	rep, err := d.VerifyApps(ctx, testBrowser, []Subject{sub}, 2)
	require.NoError(t, err)
	require.Len(t, rep.Results, 3)
	assert.Equal(t, 3, rep.Failed)

	r := rep.Results[0]
	assert.True(t, r.Buggy.Fired)
	assert.True(t, r.Fixed.Fired)
	assert.Contains(t, strings.Join(r.Problems, ";"), "fixed build: the signal fired")
	assert.Contains(t, r.Line(), "FAIL")

	r = rep.Results[1]
	assert.False(t, r.Buggy.Fired)
	assert.Contains(t, strings.Join(r.Problems, ";"), "buggy build: the signal did not fire")
	assert.Contains(t, strings.Join(r.Problems, ";"), "fixed build not clean: console error: bf8-01 always")

	r = rep.Results[2]
	assert.Contains(t, r.BuggyErr, `step 2 (click selector="#missing")`)
	assert.Contains(t, r.FixedErr, "step 2")
	assert.Equal(t, 1, r.Buggy.Steps, "the first step was played")
	assert.Equal(t, 4, r.Retries, "a failed step is played again, twice per build")
	assert.Zero(t, rep.Results[0].Retries, "no retry without a step failure")
}

func TestReproduceStepErrorIsBounded(t *testing.T) {
	url, stop, err := Serve(fixtureApp(false))
	require.NoError(t, err)
	defer stop()
	const step = 2 * time.Second // the goto must fit in it on a loaded machine
	d := New(Options{StepTimeout: step})
	t0 := time.Now()
	_, err = d.Reproduce(context.Background(), testBrowser, url, bugfarm.Bug{ID: "bf9-99",
		Trigger: []bugfarm.Step{{Op: bugfarm.OpGoto, Path: "/upload"}, {Op: bugfarm.OpClick, Frame: "#picker", Selector: "#nothing"}},
		Expect:  bugfarm.Expect{Signal: bugfarm.SignalPageError}})
	var se *StepError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, se.Index)
	assert.Contains(t, err.Error(), `frame="#picker"`)
	// Bounded by the step's timeout (plus the goto and the browser's
	// overhead on a loaded machine: 6.5 s was seen in the suite), well
	// under the 30 s an unbounded click would wait.
	assert.Less(t, time.Since(t0), 8*step, "one step's timeout, not a hang")
}

func TestReproduceCancel(t *testing.T) {
	url, stop, err := Serve(fixtureApp(false))
	require.NoError(t, err)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err = Reproduce(ctx, testBrowser, url, bugfarm.Bug{ID: "bf9-98",
		Trigger: []bugfarm.Step{{Op: bugfarm.OpGoto, Path: "/"}, {Op: bugfarm.OpWait, Value: "20000"}},
		Expect:  bugfarm.Expect{Signal: bugfarm.SignalConsole}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	assert.Less(t, time.Since(t0), 5*time.Second)
}

func TestReproduceRejectsBadBugs(t *testing.T) {
	ok := []bugfarm.Step{{Op: bugfarm.OpGoto, Path: "/"}}
	tests := []struct {
		name string
		bug  bugfarm.Bug
		want string
	}{
		{"bad id", bugfarm.Bug{ID: "BUG-1", Trigger: ok, Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}}, "want bf<seed>-<nn>"},
		{"no trigger", bugfarm.Bug{ID: "bf1-01", Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}}, "empty trigger"},
		{"unknown op", bugfarm.Bug{ID: "bf1-01", Trigger: []bugfarm.Step{{Op: "teleport"}}, Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}}, `unknown op "teleport"`},
		{"click without selector", bugfarm.Bug{ID: "bf1-01", Trigger: []bugfarm.Step{{Op: bugfarm.OpClick}}, Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}}, "click needs a selector"},
		{"goto without path", bugfarm.Bug{ID: "bf1-01", Trigger: []bugfarm.Step{{Op: bugfarm.OpGoto}}, Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}}, "goto needs a path"},
		{"bad wait", bugfarm.Bug{ID: "bf1-01", Trigger: []bugfarm.Step{{Op: bugfarm.OpWait, Value: "1s"}}, Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}}, `wait "1s": want milliseconds`},
		{"wait too long", bugfarm.Bug{ID: "bf1-01", Trigger: []bugfarm.Step{{Op: bugfarm.OpWait, Value: "999999"}}, Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}}, "over 30s"},
		{"unknown signal", bugfarm.Bug{ID: "bf1-01", Trigger: ok, Expect: bugfarm.Expect{Signal: "smoke"}}, `unknown signal "smoke"`},
		{"response without status", bugfarm.Bug{ID: "bf1-01", Trigger: ok, Expect: bugfarm.Expect{Signal: bugfarm.SignalResponse}}, "needs a status"},
		{"dom without selector", bugfarm.Bug{ID: "bf1-01", Trigger: ok, Expect: bugfarm.Expect{Signal: bugfarm.SignalDOM}}, "needs a selector"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Reproduce(context.Background(), testBrowser, "http://127.0.0.1:1", tc.bug)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := Reproduce(context.Background(), testBrowser, "127.0.0.1:1", bugfarm.Bug{ID: "bf1-01", Trigger: ok, Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}})
	assert.ErrorContains(t, err, "want http(s)://host:port")
	_, err = Reproduce(context.Background(), nil, "http://127.0.0.1:1", bugfarm.Bug{ID: "bf1-01", Trigger: ok, Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}})
	assert.ErrorContains(t, err, "no browser")
}

func TestIDPattern(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Error: bf1-01 boom", true},
		{"BF1-01", true},
		{"/docs/guide-bf1-01", true},
		{`data-bug="bf1-01"`, true},
		{"bf1-010", false},
		{"bf11-01", false},
		{"xbf1-01", false},
		{"bf1-02", false},
	}
	re := idPattern("bf1-01")
	for _, tc := range tests {
		assert.Equal(t, tc.want, re.MatchString(tc.text), tc.text)
	}
}

func TestParseSeeds(t *testing.T) {
	tests := []struct {
		in   string
		want []int64
		err  string
	}{
		{in: "1-3", want: []int64{1, 2, 3}},
		{in: "1,3,5", want: []int64{1, 3, 5}},
		{in: "101-103", want: []int64{101, 102, 103}},
		{in: " 7 , 1-2 ", want: []int64{7, 1, 2}},
		{in: "4-4", want: []int64{4}},
		{in: "0", want: []int64{0}},
		{in: "", err: "empty list"},
		{in: "1,,2", err: "empty item"},
		{in: "a", err: `"a" is not a seed`},
		{in: "-3", err: "is not a seed"},
		{in: "5-2", err: "runs backwards"},
		{in: "1-3,2", err: "seed 2 named twice"},
		{in: "1-x", err: `"1-x" is not a seed`},
		{in: "1-2-3", err: "is not a seed"},
		{in: "0-99999", err: "more than 10000"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSeeds(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
