package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func kinds(fs []Finding) []FindingKind {
	var out []FindingKind
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

func TestEveryAction(t *testing.T) {
	app := newFixture(t)
	dir := t.TempDir()
	e := newEngine(t, app, func(c *Config) { c.ArtifactDir = dir })
	s := mustUser(t, e, "alice")

	r := ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/"))
	assert.Equal(t, "Fixture Home", r.Title)
	assert.Contains(t, r.Output, "HTTP 200")

	r = ok(t, s, `{"action":"snapshot"}`)
	require.NotNil(t, r.Snapshot)
	assert.Contains(t, r.Output, `button "Save" [ref=`)
	assert.Equal(t, "aria", r.Snapshot.Source)

	r = ok(t, s, `{"action":"fill","target":"label=Email","value":"a@b.c"}`)
	assert.Equal(t, "getByRole('textbox', { name: 'Email' })", r.Locator)
	v, err := s.page.Locator("#email").InputValue()
	require.NoError(t, err)
	assert.Equal(t, "a@b.c", v)

	r = ok(t, s, `{"action":"click","target":"[data-testid=\"save\"]"}`)
	assert.Equal(t, "getByTestId('save')", r.Locator)
	r = ok(t, s, `{"action":"extract_text","target":"#status"}`)
	assert.Equal(t, "Saved", r.Output, "settle waited for the fetch")

	ok(t, s, `{"action":"fill","target":"placeholder=Search","value":"milk"}`)
	r = ok(t, s, `{"action":"press","target":"#search","key":"Enter"}`)
	r = ok(t, s, `{"action":"extract_text","target":"#status"}`)
	assert.Equal(t, "searched milk", r.Output)
	ok(t, s, `{"action":"press","key":"Tab"}`)

	r = ok(t, s, `{"action":"select_option","target":"label=Plan","value":"Pro"}`)
	assert.Contains(t, r.Output, "pro")
	r = ok(t, s, `{"action":"hover","target":"#hovered"}`)
	r = ok(t, s, `{"action":"extract_text","target":"#hovered"}`)
	assert.Equal(t, "hovered!", r.Output)

	ok(t, s, `{"action":"click","target":"testid=late"}`)
	r = ok(t, s, `{"action":"wait_for","text":"Arrived late","timeout_ms":3000}`)
	assert.Contains(t, r.Output, "visible")
	r = run(t, s, `{"action":"wait_for","text":"Never shows","timeout_ms":200}`)
	assert.False(t, r.OK)
	assert.Contains(t, r.Error, `"Never shows" did not appear`)
	ok(t, s, `{"action":"wait_for","target":"#status","state":"visible"}`)

	r = ok(t, s, `{"action":"scroll","direction":"down","pixels":500}`)
	assert.Contains(t, r.Output, "scrollY=500")
	r = ok(t, s, `{"action":"scroll","direction":"top"}`)
	assert.Contains(t, r.Output, "scrollY=0")
	ok(t, s, `{"action":"scroll","target":"text=Bottom"})`[:len(`{"action":"scroll","target":"text=Bottom"}`)])

	r = ok(t, s, `{"action":"extract_text"}`)
	assert.Contains(t, r.Output, "Fixture")

	r = ok(t, s, `{"action":"screenshot"}`)
	assert.Greater(t, len(r.Screenshot), 1000)
	assert.Equal(t, []byte("\x89PNG"), r.Screenshot[:4])
	files, _ := filepath.Glob(filepath.Join(dir, "alice-*.png"))
	assert.Len(t, files, 1)

	r = ok(t, s, `{"action":"click","target":"text=Second page"}`)
	assert.Equal(t, "Second", r.Title)
	r = ok(t, s, `{"action":"go_back"}`)
	assert.Equal(t, "Fixture Home", r.Title)
	r = ok(t, s, `{"action":"reload"}`)
	assert.Equal(t, "Fixture Home", r.Title)
	r = ok(t, s, `{"action":"check_page_health"}`)
	assert.Contains(t, r.Output, "page health")

	// relative navigation resolves against the current page
	r = ok(t, s, `{"action":"navigate","url":"/second"}`)
	assert.Equal(t, app.URL+"/second", r.URL)

	ents := e.Window().Entries()
	assert.GreaterOrEqual(t, len(ents), 25)
	assert.Equal(t, "alice", ents[0].User)
}

func TestValidationErrorsReachTheModel(t *testing.T) {
	app := newFixture(t)
	s := mustUser(t, newEngine(t, app, nil), "u")
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL))
	tests := []struct{ intent, want string }{
		{`{"action":"tap","target":"e1"}`, `unknown action "tap"; allowed actions: navigate, click`},
		{`{"action":"click"}`, `missing required parameter "target"`},
		{`{"action":"click","target":"e1","url":"/x"}`, `unexpected parameter "url"`},
		{`{"action":"fill","target":"#email","value":3}`, `parameter "value" must be a string, got the number 3`},
		{`{"action":"click","target":"//button"}`, `XPath`},
		{`{"action":"click","target":"testid=nope"}`, `no element matches "testid=nope"`},
		{`{"action":"click","target":"role=listitem"}`, `matches 2 elements`},
		{`{"action":"click","target":"e9999"}`, `ref e9999 is not in the latest snapshot`},
		{`not json`, `an intent is a JSON object`},
	}
	for _, tc := range tests {
		t.Run(tc.intent, func(t *testing.T) {
			r := run(t, s, tc.intent)
			assert.False(t, r.OK)
			assert.Contains(t, r.Error, tc.want)
			assert.Contains(t, r.Text(), "error: ")
		})
	}
}

func TestSnapshotRefsStaleAndNormalized(t *testing.T) {
	app := newFixture(t)
	s := mustUser(t, newEngine(t, app, nil), "u")
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL))
	snap, err := s.Snapshot(context.Background())
	require.NoError(t, err)
	ref := refOf(t, snap.Text, `button "Save"`)
	r := ok(t, s, fmt.Sprintf(`{"action":"click","target":%q}`, ref))
	assert.Equal(t, "getByTestId('save')", r.Locator, "refs are recorded as Playwright's own locator")
	closeRef := refOf(t, snap.Text, `button "Close panel"`)
	r = ok(t, s, fmt.Sprintf(`{"action":"hover","target":"ref=%s"}`, closeRef))
	assert.Equal(t, "getByRole('button', { name: 'Close panel' })", r.Locator)

	ok(t, s, `{"action":"reload"}`)
	r = run(t, s, fmt.Sprintf(`{"action":"click","target":%q}`, ref))
	assert.False(t, r.OK)
	assert.Contains(t, r.Error, "stale")
	assert.Contains(t, r.Error, "take a new snapshot")

	snap, err = s.Snapshot(context.Background())
	require.NoError(t, err)
	ok(t, s, fmt.Sprintf(`{"action":"click","target":%q}`, refOf(t, snap.Text, `button "Save"`)))
}

func refOf(t testing.TB, snap, prefix string) string {
	t.Helper()
	for _, ln := range strings.Split(snap, "\n") {
		if i := strings.Index(ln, prefix); i >= 0 {
			if m := reRef.FindStringSubmatch(ln[i:]); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no %q in snapshot:\n%s", prefix, snap)
	return ""
}

func TestHoverOnlyControlsAreReachable(t *testing.T) {
	app := newFixture(t)
	s := mustUser(t, newEngine(t, app, nil), "u")
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL))
	snap, err := s.Snapshot(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, snap.HoverOnly, snap.Text)
	ref := refOf(t, snap.Text, `button "Delete" [ref=h`)
	assert.Contains(t, snap.Text, `(hover "Milk")`)
	r := ok(t, s, fmt.Sprintf(`{"action":"click","target":%q}`, ref))
	assert.Equal(t, "getByTestId('row-milk')", r.HoverLocator)
	assert.Equal(t, "getByRole('button', { name: 'Delete' })", r.Locator)
	n, err := s.page.Locator("li.row").Count()
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the hovered row's delete button was clicked")
}

func TestDOMFallbackSnapshot(t *testing.T) {
	app := newFixture(t)
	s := mustUser(t, newEngine(t, app, nil), "u")
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL))
	v, err := s.page.Evaluate(domJS, []any{refAttr, 400})
	require.NoError(t, err)
	text := v.(string)
	assert.Contains(t, text, `button "Save" [ref=d`)
	// the dN refs resolve like snapshot refs once recorded
	s.mu.Lock()
	s.refs = map[string]bool{}
	for _, r := range refsIn(text) {
		s.refs[r] = true
	}
	s.refsGen = s.navGen.Load()
	s.mu.Unlock()
	r := ok(t, s, fmt.Sprintf(`{"action":"click","target":%q}`, refOf(t, text, `button "Save"`)))
	assert.Equal(t, "getByTestId('save')", r.Locator)
}

func TestOriginScope(t *testing.T) {
	app := newFixture(t)
	s := mustUser(t, newEngine(t, app, nil), "u")
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL))
	refused := []struct{ url, want string }{
		{"http://other.invalid/", "outside the allowed origins"},
		{"file:///etc/passwd", "the file: scheme is refused"},
		{"javascript:alert(1)", "only http(s) URLs"},
		{"data:text/html,<h1>x</h1>", "only http(s) URLs"},
		{"//other.invalid/x", "scheme-relative"},
		{strings.Replace(app.URL, "127.0.0.1", "localhost", 1), "outside the allowed origins"},
	}
	for _, tc := range refused {
		r := run(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, tc.url))
		assert.False(t, r.OK, tc.url)
		assert.Contains(t, r.Error, tc.want, tc.url)
		assert.Equal(t, app.URL+"/", r.URL, "still on the app")
	}
	// an in-page link to another host is blocked at the network
	r := run(t, s, `{"action":"click","target":"testid=external"}`)
	assert.False(t, r.OK, "an off-origin attempt is never ok")
	assert.Contains(t, r.Error, "refused: outside the allowed origins")
	assert.Contains(t, kinds(r.Findings), FindBlockedNav)
	assert.NotContains(t, kinds(r.Findings), FindRequestFailed, "the engine's own block is not a request failure")
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL))
	// popups to other hosts are refused (the click fails) or closed
	r = run(t, s, `{"action":"click","target":"testid=popup"}`)
	assert.False(t, r.OK, "an off-origin popup is never ok")
	assert.Contains(t, r.Error, "popup to http://other.invalid/pop refused")
	require.Eventually(t, func() bool {
		return len(s.bctx.Pages()) == 1 && slices.Contains(kinds(s.Findings()), FindBlockedPopup)
	}, 5*time.Second, 50*time.Millisecond, "popup closed and recorded: %v", s.Findings())
}

func TestHealthSignals(t *testing.T) {
	app := newFixture(t)
	e := newEngine(t, app, nil)
	tests := []struct {
		path   string
		want   FindingKind
		status int
	}{
		{"/pageerror", FindPageError, 0},
		{"/console", FindConsoleError, 0},
		{"/reqfail", FindRequestFailed, 0},
		{"/fivexx", FindServerError, 502},
		{"/does-not-exist", FindNotFound, 404},
		{"/banner", FindErrorBanner, 0},
		{"/trace", FindStackTrace, 0},
		{"/spinner", FindSpinner, 0},
		{"/dialog", FindDialog, 0},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			s := mustUser(t, e, tc.path)
			r := run(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+tc.path))
			// Response events are handled asynchronously (a 5xx's body is
			// read in its handler): a finding may land just after the action.
			all := r.Findings
			require.Eventually(t, func() bool {
				all = append(all, s.Findings()...)
				return slices.Contains(kinds(all), tc.want)
			}, 5*time.Second, 50*time.Millisecond, "findings: %v", all)
			for _, f := range all {
				if f.Kind == tc.want {
					assert.NotEmpty(t, f.URL)
					assert.NotEmpty(t, f.Message)
					if tc.status != 0 {
						assert.Equal(t, tc.status, f.Status)
						assert.Contains(t, f.URL, "/")
					}
				}
			}
			assert.Contains(t, r.Text(), string(tc.want))
		})
	}
	t.Run("quiet page has no findings", func(t *testing.T) {
		s := mustUser(t, e, "quiet")
		r := ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/quickspinner"))
		assert.Empty(t, r.Findings, "a spinner that goes away is not a finding")
		r = ok(t, s, `{"action":"check_page_health"}`)
		assert.Equal(t, "page health: no findings", r.Output)
	})
	t.Run("banner and stack trace are reported once per page", func(t *testing.T) {
		s := mustUser(t, e, "once")
		r := run(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/banner"))
		assert.Contains(t, kinds(r.Findings), FindErrorBanner)
		r = run(t, s, `{"action":"scroll","direction":"down"}`)
		assert.NotContains(t, kinds(r.Findings), FindErrorBanner)
	})
	t.Run("5xx from the app's own action", func(t *testing.T) {
		app.bug.Store(true)
		defer app.bug.Store(false)
		s := mustUser(t, e, "bug")
		ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL))
		r := run(t, s, `{"action":"click","target":"testid=save"}`)
		assert.True(t, r.OK)
		ks := kinds(r.Findings)
		assert.Contains(t, ks, FindServerError)
		assert.Contains(t, ks, FindPageError)
		assert.Contains(t, ks, FindErrorBanner)
		assert.True(t, HasBug(r.Findings))
		for _, f := range r.Findings {
			if f.Kind == FindServerError {
				assert.Equal(t, 500, f.Status)
				assert.Equal(t, app.URL+"/api/save", f.URL)
				assert.Contains(t, f.Evidence, "database is locked")
			}
		}
	})
}

func TestDialogPolicy(t *testing.T) {
	app := newFixture(t)
	for _, tc := range []struct {
		policy DialogPolicy
		want   string
	}{{DialogAccept, "confirmed"}, {DialogDismiss, "cancelled"}} {
		t.Run(string(tc.policy), func(t *testing.T) {
			s := mustUser(t, newEngine(t, app, func(c *Config) { c.Dialogs = tc.policy }), "u")
			ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL))
			r := ok(t, s, `{"action":"click","target":"testid=confirm"}`)
			require.Contains(t, kinds(r.Findings), FindDialog)
			assert.False(t, HasBug(r.Findings))
			for _, f := range r.Findings {
				if f.Kind == FindDialog {
					assert.Equal(t, "Sure?", f.Evidence)
				}
			}
			r = ok(t, s, `{"action":"extract_text","target":"#status"}`)
			assert.Equal(t, tc.want, r.Output)
		})
	}
}

func TestUserContextsAreIsolated(t *testing.T) {
	app := newFixture(t)
	e := newEngine(t, app, nil)
	alice, bob := mustUser(t, e, "alice"), mustUser(t, e, "bob")
	ok(t, alice, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/store?set=alice"))
	ok(t, bob, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/store"))
	assert.Equal(t, "who=nobody cookie=none", ok(t, bob, `{"action":"extract_text","target":"#who"}`).Output)
	// switching back is cheap and alice kept her state
	again, err := e.User(context.Background(), "alice")
	require.NoError(t, err)
	assert.Same(t, alice, again)
	ok(t, alice, `{"action":"reload"}`)
	assert.Equal(t, "who=alice cookie=who=alice", ok(t, alice, `{"action":"extract_text","target":"#who"}`).Output)
	assert.Equal(t, []string{"alice", "bob"}, e.Users())

	// storage state carries a user into a new engine
	state := filepath.Join(t.TempDir(), "alice.json")
	require.NoError(t, alice.SaveStorageState(state))
	e2 := newEngine(t, app, func(c *Config) { c.StorageStatePath = state; c.Viewport = Viewport{800, 600} })
	carol := mustUser(t, e2, "carol")
	assert.Equal(t, 800, carol.page.ViewportSize().Width)
	assert.Equal(t, 600, carol.page.ViewportSize().Height)
	assert.Equal(t, 1280, alice.page.ViewportSize().Width, "default viewport")
	ok(t, carol, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/store"))
	assert.Equal(t, "who=alice cookie=who=alice", ok(t, carol, `{"action":"extract_text","target":"#who"}`).Output)
}

func TestEngineConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no allowed origins"},
		{Config{Origins: []string{"file:///x"}}, "want http(s)"},
		{Config{Origins: []string{"http://a"}, Dialogs: "maybe"}, "dialog policy"},
		{Config{Origins: []string{"http://a"}, StorageStatePath: "/nonexistent/state.json"}, "storage state"},
	} {
		_, err := testBrowser.NewEngine(tc.cfg)
		assert.ErrorContains(t, err, tc.want)
	}
}

func TestMissingPiecesGiveSetupMessage(t *testing.T) {
	for _, o := range []LaunchOptions{
		{ChromiumPath: "/nonexistent/chromium"},
		{NodePath: "/nonexistent/node"},
		{DriverCLI: "/nonexistent/cli.js"},
	} {
		_, err := Launch(context.Background(), o)
		require.ErrorIs(t, err, ErrSetup)
		assert.Contains(t, err.Error(), "make setup")
		assert.NotContains(t, err.Error(), "goroutine")
	}
	// and the driver is found without the env vars, from the working directory
	t.Setenv("PLAYWRIGHT_CLI_PATH", "")
	t.Setenv("PLAYWRIGHT_NODEJS_PATH", "")
	p, err := findDriverCLI("")
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(p, DriverRelPath))
	wd, _ := os.Getwd()
	_, found := FindUp(filepath.Join(wd, "no", "such"), DriverRelPath)
	assert.True(t, found)
	_, found = FindUp(t.TempDir(), DriverRelPath)
	assert.False(t, found)
}

func TestResultJSON(t *testing.T) {
	r := Result{OK: true, Action: ActClick, Locator: "getByTestId('x')", URL: "http://a/", Title: "A"}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"locator":"getByTestId('x')"`)
}

func TestCancelledContext(t *testing.T) {
	app := newFixture(t)
	e := newEngine(t, app, nil)
	s := mustUser(t, e, "u")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := s.Do(ctx, Intent{Action: ActNavigate, URL: app.URL})
	assert.False(t, r.OK)
	assert.Contains(t, r.Error, "not run: context canceled")
	_, err := e.User(ctx, "new-user")
	assert.ErrorIs(t, err, context.Canceled)
	_, err = Launch(ctx, LaunchOptions{})
	assert.ErrorIs(t, err, context.Canceled)
	require.NoError(t, e.Close())
	_, err = e.User(context.Background(), "after-close")
	assert.ErrorContains(t, err, "engine closed")
}
