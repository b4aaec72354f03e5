package minimize

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
)

// isSubseq reports whether want appears in got in order.
func isSubseq(want, got []int) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

func TestDDMin(t *testing.T) {
	ten := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	needs := func(want ...int) func([]int) bool {
		return func(got []int) bool { return isSubseq(want, got) }
	}
	tests := []struct {
		name     string
		items    []int
		pred     func([]int) bool
		maxTests int
		want     []int // nil: only check it is accepted and 1-minimal
		wantErr  error
	}{
		{name: "one item", items: ten, pred: needs(5), want: []int{5}},
		{name: "two items far apart", items: ten, pred: needs(3, 7), want: []int{3, 7}},
		{name: "an ordered pair", items: ten, pred: needs(2, 8), want: []int{2, 8}},
		{name: "three items", items: ten, pred: needs(0, 4, 9), want: []int{0, 4, 9}},
		{name: "everything needed", items: []int{0, 1, 2, 3}, pred: needs(0, 1, 2, 3), want: []int{0, 1, 2, 3}},
		{name: "anything will do", items: ten, pred: func(got []int) bool { return len(got) > 0 }},
		{name: "at least three items", items: ten, pred: func(got []int) bool { return len(got) >= 3 }},
		{name: "a single item input", items: []int{4}, pred: needs(4), want: []int{4}},
		{name: "the last item", items: ten, pred: needs(9), want: []int{9}},
		{name: "budget spent", items: ten, pred: needs(3, 7), maxTests: 3, wantErr: errBudget},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			test := func(_ context.Context, got []int) (bool, error) {
				require.NotEmpty(t, got, "never asks about the empty sequence")
				asked = append(asked, fmt.Sprint(got))
				return tc.pred(got), nil
			}
			got, n, err := DDMin(context.Background(), tc.items, test, tc.maxTests)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				assert.Equal(t, tc.maxTests, n)
				assert.LessOrEqual(t, len(got), len(tc.items), "never longer than the input")
				assert.True(t, tc.pred(got), "the best so far still passes: %v", got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, len(asked), n)
			assert.Len(t, slices.Compact(slices.Sorted(slices.Values(asked))), len(asked), "no sequence asked twice")
			assert.True(t, tc.pred(got), "the result passes: %v", got)
			assert.True(t, slices.IsSorted(got), "order kept: %v", got)
			if tc.want != nil {
				assert.Equal(t, tc.want, got)
			}
			// 1-minimal: removing any single item makes the test fail.
			for i := range got {
				if len(got) > 1 {
					assert.False(t, tc.pred(slices.Delete(slices.Clone(got), i, i+1)), "dropping %d of %v", got[i], got)
				}
			}
		})
	}
}

func TestDDMinStopsOnError(t *testing.T) {
	boom := errors.New("browser gone")
	calls := 0
	got, _, err := DDMin(context.Background(), []int{0, 1, 2, 3, 4, 5, 6, 7}, func(_ context.Context, s []int) (bool, error) {
		calls++
		if calls == 3 {
			return false, boom
		}
		return slices.Contains(s, 6), nil
	}, 0)
	require.ErrorIs(t, err, boom)
	assert.Contains(t, got, 6, "the best sequence so far still holds the needed item")
	assert.Less(t, len(got), 8, "the first reduction was kept")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, n, err := DDMin(ctx, []int{1, 2, 3}, func(context.Context, []int) (bool, error) { return true, nil }, 0)
	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, n)
	assert.Equal(t, []int{1, 2, 3}, got)
}

// tapeStep is one recorded step for building a tape: an action, its
// locator (or a navigation's URL), and the path the recording was on after
// it ("": not recorded).
type tapeStep struct {
	a        browser.Action
	arg, url string
}

// buildTape records steps with seqs from 1, on origin.
func buildTape(origin string, steps []tapeStep) []browser.Entry {
	var out []browser.Entry
	for i, s := range steps {
		e := browser.Entry{Seq: int64(i + 1), Action: s.a, OK: true}
		if s.url != "" {
			e.URL = origin + s.url
		}
		if s.a == browser.ActNavigate {
			e.Params = browser.Intent{Action: s.a, URL: s.arg}
		} else {
			e.Params = browser.Intent{Action: s.a, Target: fmt.Sprintf("e%d", i+1)}
			e.Locator = s.arg
		}
		out = append(out, e)
	}
	return out
}

// tape builds a recorded tape: a sign-in, then some browsing.
func tape() []browser.Entry {
	return buildTape("", []tapeStep{
		{browser.ActNavigate, "/", ""},                                // 1
		{browser.ActClick, "getByTestId('home-signin')", ""},          // 2
		{browser.ActFill, "getByTestId('signin-email')", ""},          // 3
		{browser.ActFill, "getByTestId('signin-password')", ""},       // 4
		{browser.ActClick, "getByTestId('signin-submit')", ""},        // 5
		{browser.ActClick, "getByTestId('count-active')", ""},         // 6
		{browser.ActNavigate, "/projects", ""},                        // 7
		{browser.ActClick, "getByTestId('page-next')", ""},            // 8
		{browser.ActNavigate, "/settings", ""},                        // 9
		{browser.ActFill, "getByTestId('settings-display-name')", ""}, // 10
		{browser.ActClick, "getByTestId('refresh')", ""},              // 11
		{browser.ActClick, "getByTestId('settings-save')", ""},        // 12
	})
}

// fakeApp reproduces a finding when the replayed seqs hold need, in order.
type fakeApp struct {
	// delay, when positive, is how long a replay takes.
	delay time.Duration

	mu      sync.Mutex
	running int // replays under way
	peak    int // the most replays under way at once
	needs   map[string][]int64
	replays int
	// flakyAfter, when positive, makes every replay after that many show
	// nothing.
	flakyAfter int
	starts     []string // entryKey of each replay's first entry
	withAxe    int      // replays with axe-core
}

func (f *fakeApp) replay(_ context.Context, seq []browser.Entry, axe bool) (Replayed, error) {
	f.mu.Lock()
	f.running++
	f.peak = max(f.peak, f.running)
	f.mu.Unlock()
	time.Sleep(f.delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running--
	f.replays++
	if axe {
		f.withAxe++
	}
	f.starts = append(f.starts, entryKey(seq[0]))
	if f.flakyAfter > 0 && f.replays > f.flakyAfter {
		return Replayed{FailedAt: -1}, nil
	}
	// A fresh context cannot click or fill before it opened a page.
	if seq[0].Action != browser.ActNavigate {
		return Replayed{FailedAt: 0}, nil
	}
	var got []int
	for _, e := range seq {
		got = append(got, int(e.Seq))
	}
	out := map[string]bool{}
	for sig, need := range f.needs {
		var want []int
		for _, n := range need {
			want = append(want, int(n))
		}
		// Accessibility findings show only with axe-core in the page.
		if isSubseq(want, got) && (axe || !strings.HasPrefix(sig, "a11y")) {
			out[sig] = true
		}
	}
	return Replayed{Sigs: out, FailedAt: -1}, nil
}

func allSeqs(cs [][]browser.Entry) [][]int64 {
	var out [][]int64
	for _, c := range cs {
		out = append(out, seqsOf(c))
	}
	return out
}

func seqsOf(es []browser.Entry) []int64 {
	var out []int64
	for _, e := range es {
		out = append(out, e.Seq)
	}
	return out
}

func TestMinimizer(t *testing.T) {
	full := tape()
	tests := []struct {
		name       string
		need       []int64
		upTo       int
		replays    int
		flakyAfter int
		want       []int64 // nil: the full tape
		confirmed  bool
		maxReplays int // replays the job may report, confirmation included
	}{
		{name: "the last entry alone", need: []int64{9}, upTo: 9, want: []int64{9}, confirmed: true, maxReplays: 2},
		{name: "a suffix from the last navigation", need: []int64{9, 10, 12}, upTo: 12, want: []int64{9, 10, 12}, confirmed: true},
		// A replay must open a page first: entry 1 stays.
		{name: "signed in first", need: []int64{3, 4, 5, 7, 8}, upTo: 8, want: []int64{1, 3, 4, 5, 7, 8}, confirmed: true},
		// ddmin over the full tape, cut short by the replay budget.
		{name: "an early step the heuristics miss", need: []int64{1, 6, 9, 12}, upTo: 12, replays: DefaultReplays, confirmed: true},
		{name: "never reproduces", need: []int64{99}, upTo: 12, want: nil},
		{name: "flaky: the confirmation fails", need: []int64{9}, upTo: 9, flakyAfter: 1, want: nil},
		{name: "replay budget", need: []int64{3, 4, 5, 7, 8}, upTo: 8, replays: 3, maxReplays: 4, confirmed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := &fakeApp{needs: map[string][]int64{"bug": tc.need}, flakyAfter: tc.flakyAfter}
			replays := tc.replays
			if replays == 0 {
				replays = DefaultReplays
			}
			m := New(app.replay, Options{Replays: replays, Time: time.Minute})
			j := &Job{Sig: "bug", Full: full[:tc.upTo]}
			m.Run(context.Background(), []*Job{j})
			assert.LessOrEqual(t, len(j.Best), len(j.Full), "never longer than the full tape")
			assert.Equal(t, app.replays, j.Replays, "every replay is counted")
			failedFirst := map[string]int{}
			for _, st := range app.starts {
				if !strings.HasPrefix(st, string(browser.ActNavigate)) {
					failedFirst[st]++
				}
			}
			for st, n := range failedFirst {
				assert.Equal(t, 1, n, "a start that failed once is not replayed again: %s", st)
			}
			assert.LessOrEqual(t, j.Replays, replays+1, "the budget, plus one confirmation")
			if tc.maxReplays > 0 {
				assert.LessOrEqual(t, j.Replays, tc.maxReplays)
			}
			switch {
			case tc.want == nil && tc.replays == 0:
				assert.Equal(t, seqsOf(j.Full), seqsOf(j.Best), "falls back to the full tape")
				assert.False(t, j.Confirmed)
			case tc.want != nil:
				assert.Equal(t, tc.want, seqsOf(j.Best))
				assert.Equal(t, tc.confirmed, j.Confirmed)
			default:
				// Out of budget: whatever is kept still reproduces.
				assert.Equal(t, tc.confirmed, j.Confirmed)
				if j.Confirmed {
					sigs, _ := app.replay(context.Background(), j.Best, false)
					assert.True(t, sigs.Sigs["bug"])
					assert.Less(t, len(j.Best), len(j.Full))
				}
			}
		})
	}
}

// Two bugs at the same step share replays: the second costs none.
func TestMinimizerSharesReplays(t *testing.T) {
	full := tape()
	app := &fakeApp{needs: map[string][]int64{"a": {9, 12}, "b": {9, 12}}}
	m := New(app.replay, Options{Replays: DefaultReplays, Time: time.Minute})
	a, b := &Job{Sig: "a", Full: full}, &Job{Sig: "b", Full: full}
	m.Run(context.Background(), []*Job{a, b})
	assert.Equal(t, []int64{9, 12}, seqsOf(a.Best))
	assert.Equal(t, []int64{9, 12}, seqsOf(b.Best))
	assert.True(t, a.Confirmed)
	assert.True(t, b.Confirmed)
	assert.Positive(t, a.Replays)
	assert.Zero(t, b.Replays, "answered from a's replays")
	assert.Equal(t, app.replays, a.Replays+b.Replays)
}

// Several workers replay at once, never more than asked, and the results
// are those of one worker: every job still gets its shortest sequence (a
// replay opens a page first, so "last" keeps the navigation before it).
func TestMinimizerWorkers(t *testing.T) {
	full := tape()
	needs := map[string][]int64{
		"last":     {12},
		"suffix":   {9, 10, 12},
		"signed":   {3, 4, 5, 7, 8},
		"settings": {9},
	}
	upTo := map[string]int{"last": 12, "suffix": 12, "signed": 8, "settings": 9}
	want := map[string][]int64{"last": {9, 12}, "suffix": {9, 10, 12}, "signed": {1, 3, 4, 5, 7, 8}, "settings": {9}}
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			app := &fakeApp{needs: needs, delay: 5 * time.Millisecond}
			m := New(app.replay, Options{Replays: DefaultReplays, Time: time.Minute, Workers: workers})
			var jobs []*Job
			for _, sig := range []string{"last", "suffix", "signed", "settings"} {
				jobs = append(jobs, &Job{Sig: sig, Full: full[:upTo[sig]]})
			}
			m.Run(context.Background(), jobs)
			total := 0
			for _, j := range jobs {
				assert.Equal(t, want[j.Sig], seqsOf(j.Best), j.Sig)
				assert.True(t, j.Confirmed, j.Sig)
				total += j.Replays
			}
			assert.Equal(t, app.replays, total, "every replay is counted once")
			assert.LessOrEqual(t, app.peak, workers)
			if workers > 1 {
				assert.Greater(t, app.peak, 1, "replays overlapped")
			}
		})
	}
}

// Replays run without axe-core unless an accessibility finding needs it, and
// one without it never answers for such a finding.
func TestMinimizerAxe(t *testing.T) {
	full := tape()
	app := &fakeApp{needs: map[string][]int64{"a11y-label": {9, 12}, "console": {9, 12}}}
	m := New(app.replay, Options{Replays: DefaultReplays, Time: time.Minute})
	plain := &Job{Sig: "console", Full: full}
	m.Run(context.Background(), []*Job{plain})
	assert.Equal(t, []int64{9, 12}, seqsOf(plain.Best))
	assert.True(t, plain.Confirmed)
	assert.Zero(t, app.withAxe, "no accessibility finding, no axe-core")

	a11y := &Job{Sig: "a11y-label", Axe: true, Full: full}
	before := app.replays
	m.Run(context.Background(), []*Job{a11y})
	assert.Equal(t, []int64{9, 12}, seqsOf(a11y.Best), "the cached replays without axe-core did not answer")
	assert.True(t, a11y.Confirmed)
	assert.Equal(t, app.replays-before, app.withAxe, "every replay for it had axe-core")

	// Both at once.
	app2 := &fakeApp{needs: app.needs}
	m2 := New(app2.replay, Options{Replays: DefaultReplays, Time: time.Minute})
	a, b := &Job{Sig: "a11y-label", Axe: true, Full: full}, &Job{Sig: "console", Full: full}
	m2.Run(context.Background(), []*Job{b, a})
	assert.Equal(t, app2.replays, a.Replays+b.Replays)
	assert.Equal(t, []int64{9, 12}, seqsOf(a.Best))
	assert.Equal(t, []int64{9, 12}, seqsOf(b.Best))
	assert.True(t, a.Confirmed && b.Confirmed)
}

// A spent time budget leaves the full tapes, and nothing is replayed.
func TestMinimizerTimeBudget(t *testing.T) {
	app := &fakeApp{needs: map[string][]int64{"a": {9}}}
	m := New(app.replay, Options{Replays: DefaultReplays, Time: time.Nanosecond})
	j := &Job{Sig: "a", Full: tape()}
	m.Run(context.Background(), []*Job{j})
	assert.Len(t, j.Best, len(j.Full))
	assert.False(t, j.Confirmed)
	assert.Zero(t, app.replays)
}

func TestCandidates(t *testing.T) {
	plain, signed := candidates(tape())
	ps, ss := allSeqs(plain), allSeqs(signed)
	assert.Equal(t, [][]int64{{12}, {9, 10, 11, 12}, {7, 8, 9, 10, 11, 12}}, ps)
	assert.Equal(t, [][]int64{{1, 2, 3, 4, 5, 9, 10, 11, 12}, {1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12}}, ss)
	p, s := candidates(tape()[:1])
	assert.Empty(t, p)
	assert.Empty(t, s)
}

func TestTargetOf(t *testing.T) {
	tests := []struct {
		loc, want string
		bad       bool
	}{
		{loc: `getByTestId('save')`, want: `[data-testid="save"]`},
		{loc: `getByTestId('say "hi"')`, want: `[data-testid='say "hi"']`},
		{loc: `getByRole('button', { name: 'Save settings' })`, want: `role=button[name="Save settings"]`},
		{loc: `getByRole('button', { name: 'Save', exact: true })`, want: `role=button[name="Save"s]`},
		{loc: `getByRole('navigation')`, want: `role=navigation`},
		{loc: `getByLabel('E-mail')`, want: `label=E-mail`},
		{loc: `getByText('It\'s here')`, want: `text=It's here`},
		{loc: `getByPlaceholder('Search\u2026')`, want: "placeholder=Search\u2026"},
		{loc: `locator('#email')`, want: `#email`},
		{loc: `getByRole('row', { name: 'a' }).getByRole('button')`, bad: true},
		{loc: `getByTestId('x').first()`, bad: true},
		{loc: `locator('div.card > span')`, bad: true},
		{loc: `getByRole('checkbox', { checked: true })`, bad: true},
		{loc: ``, bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.loc, func(t *testing.T) {
			got, err := targetOf(tc.loc)
			if tc.bad {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			_, err = browser.ParseTarget(got)
			assert.NoError(t, err)
		})
	}
}

func TestReplayIntents(t *testing.T) {
	v := "QA"
	ins, err := ReplayIntents(browser.Entry{Action: browser.ActFill, Params: browser.Intent{Action: browser.ActFill, Target: "f2e7", Value: &v},
		Locator: "getByTestId('name')", HoverLocator: "getByTestId('row-1')"}, "", "")
	require.NoError(t, err)
	require.Len(t, ins, 2)
	assert.Equal(t, browser.Intent{Action: browser.ActHover, Target: `[data-testid="row-1"]`}, ins[0])
	assert.Equal(t, `[data-testid="name"]`, ins[1].Target)
	assert.Equal(t, "QA", ins[1].ValueOrEmpty())

	ins, err = ReplayIntents(browser.Entry{Action: browser.ActNavigate, Params: browser.Intent{Action: browser.ActNavigate, URL: "http://127.0.0.1:1000/a?b=1"}},
		"http://127.0.0.1:1000", "http://127.0.0.1:2000")
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:2000/a?b=1", ins[0].URL)

	ins, err = ReplayIntents(browser.Entry{Action: browser.ActClick, Params: browser.Intent{Action: browser.ActClick, Target: `role=button[name="Go"]`}}, "", "")
	require.NoError(t, err)
	assert.Equal(t, `role=button[name="Go"]`, ins[0].Target, "a stable target is kept")

	_, err = ReplayIntents(browser.Entry{Action: browser.ActClick, Params: browser.Intent{Action: browser.ActClick, Target: "e3"}}, "", "")
	assert.ErrorContains(t, err, "no locator recorded")

	// A fill_form: each field's ref from its own recorded locator.
	form := browser.Entry{Action: browser.ActFillForm, Params: browser.Intent{Action: browser.ActFillForm, Fields: []browser.FormField{
		{Target: "e2", Value: "Ada"}, {Target: "#colour", Value: "Red", Kind: browser.FieldSelect}, {Target: "e4", Kind: browser.FieldCheck}}},
		Locators: []string{"getByLabel('Name')", "locator('#colour')", "getByTestId('terms')"}}
	ins, err = ReplayIntents(form, "", "")
	require.NoError(t, err)
	require.Len(t, ins, 1)
	assert.Equal(t, []browser.FormField{{Target: "label=Name", Value: "Ada"}, {Target: "#colour", Value: "Red", Kind: browser.FieldSelect},
		{Target: `[data-testid="terms"]`, Kind: browser.FieldCheck}}, ins[0].Fields)
	assert.Equal(t, "e2", form.Params.Fields[0].Target, "the entry is left as it is")
	form.Locators = form.Locators[:1]
	_, err = ReplayIntents(form, "", "")
	assert.ErrorContains(t, err, "fields[2] e4: no locator recorded")
}

func TestFindingSig(t *testing.T) {
	a := FindingSig("http_5xx", "http://127.0.0.1:4000/projects/28?x=1", "POST /projects/28 → 500; got 131 characters")
	b := FindingSig("http_5xx", "http://127.0.0.1:5000/projects/31", "POST /projects/31 → 500; got 131 characters")
	assert.Equal(t, a, b, "record ids and ports do not count")
	assert.NotEqual(t, a, FindingSig("page_error", "http://127.0.0.1:5000/projects/31", "POST /projects/31 → 500; got 131 characters"))
	assert.NotEqual(t, a, FindingSig("http_5xx", "http://127.0.0.1:5000/settings", "POST /projects/31 → 500; got 131 characters"))
}

// TestCandidatesJump: pages reached by a click are also reached by a
// navigation to their recorded URL, standing in for the clicks before.
// A flow left and resumed: its first step was taken, the tape went
// elsewhere, then came back to the second step and hit the bug on the
// third. The candidates hold the flow's own actions from its first step.
func TestCandidatesFlowArea(t *testing.T) {
	full := buildTape("http://127.0.0.1:9", []tapeStep{
		{browser.ActNavigate, "/", "/"},                         // 1
		{browser.ActClick, "getByTestId('signin')", "/signin"},  // 2
		{browser.ActFill, "getByTestId('email')", "/signin"},    // 3
		{browser.ActFill, "getByTestId('password')", "/signin"}, // 4
		{browser.ActClick, "getByTestId('submit')", "/home"},    // 5
		{browser.ActNavigate, "/flow/1", "/flow/1"},             // 6
		{browser.ActClick, "getByTestId('choice')", "/flow/1"},  // 7
		{browser.ActClick, "getByTestId('next')", "/flow/2"},    // 8
		{browser.ActNavigate, "/", "/home"},                     // 9
		{browser.ActClick, "getByTestId('items')", "/items"},    // 10
		{browser.ActNavigate, "/items?page=2", "/items"},        // 11
		{browser.ActNavigate, "/flow/2", "/flow/2"},             // 12
		{browser.ActFill, "getByTestId('company')", "/flow/2"},  // 13
		{browser.ActClick, "getByTestId('next')", "/flow/3"},    // 14
	})
	plain, signed := candidates(full)
	ps, ss := allSeqs(plain), allSeqs(signed)
	assert.Contains(t, ps, []int64{6, 7, 8, 12, 13, 14}, "the flow's actions from its first step, without the detour")
	assert.Contains(t, ps, []int64{6, 7, 8, 9, 10, 11, 12, 13, 14})
	assert.Contains(t, ss, []int64{1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14}, "behind the sign-in")
	for _, c := range plain {
		assert.Less(t, len(c), len(full))
	}
	assert.Equal(t, "flow", pathArea("http://a/flow/3?x=1"))
	assert.Equal(t, "", pathArea("http://a/"))
	assert.Equal(t, "", pathArea(""))
}

func TestCandidatesJump(t *testing.T) {
	const app = "http://127.0.0.1:9/"
	full := tape()
	urls := []string{"", "signin", "signin", "signin", "dashboard", "projects?status=active", "projects", "projects?page=2", "settings", "settings", "settings", "settings?saved=1"}
	for i := range full {
		full[i].URL = app + urls[i]
	}
	plain, signed := candidates(full)
	ps, ss := allSeqs(plain), allSeqs(signed)
	// Arrivals by click: 3 (/signin), 6 (/dashboard) and 9 would be, but 9
	// is a navigation; 7 and 8 follow the navigation 7.
	assert.Equal(t, [][]int64{{12}, {9, 10, 11, 12}, {7, 8, 9, 10, 11, 12}, {-6, 6, 7, 8, 9, 10, 11, 12}, {-3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}, ps)
	// (Behind the sign-in, the jump would be longer than the tape.)
	assert.Equal(t, [][]int64{{1, 2, 3, 4, 5, 9, 10, 11, 12}, {1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12}}, ss)
	for _, c := range plain {
		if c[0].Seq == -6 {
			assert.Equal(t, browser.ActNavigate, c[0].Action)
			assert.Equal(t, "/dashboard", c[0].Params.URL)
		}
	}
}

// A candidate that opens a record the tape created gets a variant that
// creates it first (and the records of its collection created before it,
// so that a fresh app hands out the same numbers).
func TestCandidatesRecords(t *testing.T) {
	const app = "http://127.0.0.1:9"
	full := buildTape(app, []tapeStep{
		{browser.ActNavigate, "/", "/"},                                               // 1
		{browser.ActClick, "getByTestId('home-signin')", "/signin"},                   // 2
		{browser.ActFill, "getByTestId('signin-email')", "/signin"},                   // 3
		{browser.ActFill, "getByTestId('signin-password')", "/signin"},                // 4
		{browser.ActClick, "getByTestId('signin-submit')", "/dashboard"},              // 5
		{browser.ActClick, "getByTestId('recent-27')", "/projects/27"},                // 6: a record the app had
		{browser.ActClick, "getByTestId('new-project')", "/projects/new"},             // 7
		{browser.ActFill, "getByTestId('project-name-input')", "/projects/new"},       // 8
		{browser.ActClick, "getByTestId('project-submit')", "/projects/28?created=1"}, // 9: creates 28
		{browser.ActNavigate, "/projects/new", "/projects/new"},                       // 10
		{browser.ActFill, "getByTestId('project-name-input')", "/projects/new"},       // 11
		{browser.ActClick, "getByTestId('project-submit')", "/projects/29?created=1"}, // 12: creates 29
		{browser.ActNavigate, "/settings", "/settings"},                               // 13
		{browser.ActNavigate, "/projects/29/edit", "/projects/29/edit"},               // 14
		{browser.ActFill, "getByTestId('project-name-input')", "/projects/29/edit"},   // 15
		{browser.ActClick, "getByTestId('project-submit')", "/projects/29"},           // 16
	})
	makers := recordMakers(full)
	require.Len(t, makers, 2, "27 was followed by a link, not created")
	assert.Equal(t, "/projects/28", makers[0].rec)
	assert.Equal(t, []int64{-8, 8, 9}, seqsOf(makers[0].steps), "a jump to the form, then its steps")
	assert.Equal(t, "/projects/new", makers[0].steps[0].Params.URL)
	assert.Equal(t, []int64{10, 11, 12}, seqsOf(makers[1].steps), "the recorded navigation to the form")

	plain, signed := candidates(full)
	ps, ss := allSeqs(plain), allSeqs(signed)
	// The suffix from /projects/29/edit needs 29, so 28 before it.
	assert.Contains(t, ps, []int64{-8, 8, 9, 10, 11, 12, 14, 15, 16})
	assert.Contains(t, ss, []int64{1, 2, 3, 4, 5, -8, 8, 9, 10, 11, 12, 14, 15, 16})
	assert.Contains(t, ps, []int64{-8, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	// A candidate that creates its record itself gets no variant.
	assert.NotContains(t, ps, []int64{-8, 8, 9, -7, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	for _, c := range append(plain, signed...) {
		assert.Less(t, len(c), len(full), "no longer than the tape")
	}
}

// A form filled by one fill_form is a form's steps and a sign-in as a
// form of fills is.
func TestFillFormSteps(t *testing.T) {
	pw := "${SECRET_1}"
	tape := []browser.Entry{
		{Action: browser.ActNavigate, Params: browser.Intent{Action: browser.ActNavigate, URL: "/login"}, URL: "http://a/login", OK: true},
		{Action: browser.ActFillForm, OK: true, URL: "http://a/login", Params: browser.Intent{Action: browser.ActFillForm, Fields: []browser.FormField{
			{Target: "e2", Value: "qa"}, {Target: "e3", Value: pw}}}, Locators: []string{"getByLabel('User')", "getByLabel('Password')"}},
		{Action: browser.ActClick, OK: true, URL: "http://a/home", Params: browser.Intent{Action: browser.ActClick, Target: "e4"}, Locator: "getByRole('button', { name: 'Sign in' })"},
		{Action: browser.ActClick, OK: true, URL: "http://a/things/new", Params: browser.Intent{Action: browser.ActClick, Target: "e9"}},
	}
	in := signIn(tape)
	require.Len(t, in, 3, "navigation, the form, its submit")
	assert.Equal(t, browser.ActFillForm, in[1].Action)
	assert.Len(t, FormSteps(tape, 2), 3)

	// A fill_form of ticks and choices types nothing.
	tape[1].Params.Fields = []browser.FormField{{Target: "e3", Kind: browser.FieldCheck}}
	assert.Nil(t, FormSteps(tape, 2))
	assert.Nil(t, signIn(tape))
}
