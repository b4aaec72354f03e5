package explore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// notesApp is a small notes app behind a sign-in wall: two accounts, each
// with private notes (a create form, a list, a page per note). With
// leakNote on, a note's page shows the note to any signed-in user (no
// owner check: an IDOR); with leakList on, the list shows everyone's
// notes. It counts the sign-ins and remembers the session ids it issued.
type notesApp struct {
	leakNote, leakList atomic.Bool

	mu       sync.Mutex
	accounts map[string]string // email → password
	sessions map[string]string // session id → email
	notes    []note
	signIns  int
}

type note struct {
	ID                 int
	Owner, Title, Body string
}

func newNotesApp(accounts map[string]string) *notesApp {
	return &notesApp{accounts: accounts, sessions: map[string]string{}}
}

func (a *notesApp) page(w http.ResponseWriter, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><title>`+html.EscapeString(title)+`</title></head><body>
<nav aria-label="Main"><a href="/notes">Notes</a> <a href="/notes/new">New note</a></nav>
<main><h1>`+html.EscapeString(title)+`</h1>`+body+`</main></body></html>`)
}

func (a *notesApp) user(r *http.Request) string {
	c, err := r.Cookie("sid")
	if err != nil {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[c.Value]
}

func (a *notesApp) sessionIDs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for k := range a.sessions {
		out = append(out, k)
	}
	return out
}

func (a *notesApp) signInCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.signIns
}

const signInForm = `<form method="post" action="/login">
<label for="email">Email</label> <input id="email" name="email" type="email" required>
<label for="password">Password</label> <input id="password" name="password" type="password" required>
<button type="submit">Sign in</button></form>`

func (a *notesApp) handler() http.Handler {
	mux := http.NewServeMux()
	signedIn := func(h func(w http.ResponseWriter, r *http.Request, who string)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			who := a.user(r)
			if who == "" {
				http.Redirect(w, r, "/login", http.StatusSeeOther)
				return
			}
			h(w, r, who)
		}
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		if a.user(r) != "" {
			http.Redirect(w, r, "/notes", http.StatusSeeOther)
			return
		}
		a.page(w, "Welcome", `<p>Private notes for everyone.</p><p><a href="/login">Sign in</a></p>`)
	})
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		a.page(w, "Sign in", signInForm)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		email, pw := r.PostFormValue("email"), r.PostFormValue("password")
		a.mu.Lock()
		ok := pw != "" && a.accounts[email] == pw
		sid := ""
		if ok {
			a.signIns++
			sid = fmt.Sprintf("sess-%d-%d", time.Now().UnixNano(), len(a.sessions))
			a.sessions[sid] = email
		}
		a.mu.Unlock()
		if !ok {
			a.page(w, "Sign in", `<p role="alert">Wrong email or password.</p>`+signInForm)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/", HttpOnly: true})
		http.Redirect(w, r, "/notes", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /notes", signedIn(func(w http.ResponseWriter, r *http.Request, who string) {
		a.mu.Lock()
		var items strings.Builder
		for _, n := range a.notes {
			if n.Owner == who || a.leakList.Load() {
				fmt.Fprintf(&items, `<li><a href="/notes/%d">%s</a></li>`, n.ID, html.EscapeString(n.Title))
			}
		}
		a.mu.Unlock()
		list := "<p>No notes yet.</p>"
		if items.Len() > 0 {
			list = "<ul>" + items.String() + "</ul>"
		}
		a.page(w, "Your notes", list+`<p><a href="/notes/new">Write a note</a></p>`)
	}))
	mux.HandleFunc("GET /notes/new", signedIn(func(w http.ResponseWriter, r *http.Request, who string) {
		a.page(w, "New note", `<form method="post" action="/notes">
<label for="title">Title</label> <input id="title" name="title" required maxlength="80">
<label for="body">Text</label> <textarea id="body" name="body"></textarea>
<button type="submit">Create note</button></form>`)
	}))
	mux.HandleFunc("POST /notes", signedIn(func(w http.ResponseWriter, r *http.Request, who string) {
		title := strings.TrimSpace(r.PostFormValue("title"))
		if title == "" {
			http.Redirect(w, r, "/notes/new", http.StatusSeeOther)
			return
		}
		a.mu.Lock()
		n := note{ID: len(a.notes) + 1, Owner: who, Title: title, Body: r.PostFormValue("body")}
		a.notes = append(a.notes, n)
		a.mu.Unlock()
		http.Redirect(w, r, "/notes/"+strconv.Itoa(n.ID), http.StatusSeeOther)
	}))
	mux.HandleFunc("GET /notes/{id}", signedIn(func(w http.ResponseWriter, r *http.Request, who string) {
		id, _ := strconv.Atoi(r.PathValue("id"))
		a.mu.Lock()
		var found *note
		for i := range a.notes {
			if a.notes[i].ID == id && (a.notes[i].Owner == who || a.leakNote.Load()) {
				n := a.notes[i]
				found = &n
			}
		}
		a.mu.Unlock()
		if found == nil {
			w.WriteHeader(http.StatusNotFound)
			a.page(w, "No such note", `<p>There is no such note.</p>`)
			return
		}
		a.page(w, found.Title, `<article><p>`+html.EscapeString(found.Body)+`</p></article><p><a href="/notes">Back to your notes</a></p>`)
	}))
	return mux
}

// The accounts of the notes app; the passwords and emails must never
// reach an artifact.
var notesAccounts = map[string]string{"alice@notes.test": "Alice-pw-93812!", "bob@notes.test": "Bob-pw-47120!"}

func notesUsers() []Account {
	return []Account{
		{Name: "alice", Email: "alice@notes.test", Password: notesAccounts["alice@notes.test"]},
		{Name: "bob", Email: "bob@notes.test", Password: notesAccounts["bob@notes.test"]},
	}
}

// multiUserRun explores the notes app as alice and bob.
func multiUserRun(t *testing.T, ctx context.Context, target, reports string) report.Result {
	t.Helper()
	var progress bytes.Buffer
	res, err := Run(ctx, Config{Target: target, ReportDir: reports, Budget: 30, TurnSteps: 6, MinimizeReplays: -1, Browser: testBrowser, Progress: &progress,
		Users: notesUsers(), Missions: []mission.Mission{{ThreadID: "notes", Prompt: "Explore the notes app", Team: mission.TeamStandard}}})
	t.Logf("progress:\n%s", progress.String())
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	require.Empty(t, res.Missions[0].Err)
	return res
}

func crossUserBugs(m report.MissionResult) []findings.Bug {
	var out []findings.Bug
	for _, b := range m.Bugs {
		if b.Kind == string(findings.FindCrossUser) {
			out = append(out, b)
		}
	}
	return out
}

// TestMultiUserCrossUserLeak: the explorer signs alice and bob in once
// (the set-up mission), explores the notes app as both in isolated
// contexts, and, with the note page's owner check missing, reports
// exactly one cross-user leak naming both users, whose two-context spec
// passes under test.fail() while the bug is there and fails once it is
// fixed. With the check in place, no leak and no broken-link report of
// the other user's notes. No password, email or session cookie reaches
// an artifact, and the missions never type a password.
func TestMultiUserCrossUserLeak(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	app := newNotesApp(notesAccounts)
	app.leakNote.Store(true)
	srv := httptest.NewServer(app.handler())
	defer srv.Close()

	reports := t.TempDir()
	t0 := time.Now()
	res := multiUserRun(t, ctx, srv.URL, reports)
	t.Logf("bug on: run in %s", time.Since(t0).Round(time.Millisecond))
	m := res.Missions[0]
	for _, b := range m.Bugs {
		t.Logf("bug %s (%s, %s): %s", b.ID, b.Kind, b.Severity, b.Title)
	}

	// The set-up mission signed both in once and kept their states.
	assert.Equal(t, 2, app.signInCount(), "one sign-in per user, by the set-up mission")
	for _, u := range []string{"alice", "bob"} {
		fi, err := os.Stat(filepath.Join(reports, ".auth", u+".json"))
		require.NoError(t, err, u)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), u)
	}
	// Both users acted, each in its own context, and the tape says who.
	tape, _, err := browser.ReadTapeFile(filepath.Join(m.Dir, "action_tape.jsonl"))
	require.NoError(t, err)
	acted := map[string]int{}
	for _, e := range tape {
		acted[e.Account]++
		if e.Action == browser.ActFill {
			_, secret := browser.SecretRef(e.Params.ValueOrEmpty())
			assert.False(t, secret, "the missions type no password or email: #%d %s", e.Seq, e.Params.ValueOrEmpty())
		}
	}
	assert.Positive(t, acted["alice"], "alice acted: %v", acted)
	assert.Positive(t, acted["bob"], "bob acted: %v", acted)
	assert.Zero(t, acted[""], "every entry names its user")

	leaks := crossUserBugs(m)
	require.Len(t, leaks, 1, "one cause, one report")
	b := leaks[0]
	assert.Equal(t, findings.SeverityCritical, b.Severity)
	assert.ElementsMatch(t, []string{"alice", "bob"}, []string{b.Owner, b.Viewer})
	assert.Contains(t, b.Evidence, b.Owner)
	assert.Contains(t, b.Evidence, b.Viewer)
	assert.Equal(t, "/notes/{id}", templateOfURL(b.URL))
	require.NotEmpty(t, b.Spec)
	spec, err := os.ReadFile(filepath.Join(m.Dir, b.Spec))
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(spec), "browser.newContext("), "one browser context per user:\n%s", spec)
	assert.Contains(t, string(spec), "secret('SECRET_", "the spec signs in with passwords from the environment")
	assert.Contains(t, string(spec), "test.fail();")

	assertNoCredentials(t, reports, app.sessionIDs())

	// The spec reproduces the leak while it is there, and fails once it
	// is fixed (test.fail()).
	out, err := runSpecs(ctx, t, []string{filepath.Join(m.Dir, b.Spec)}, srv.URL, res.SecretEnv...)
	require.NoError(t, err, "the reproduction passes (as an expected failure) while the leak exists:\n%s\n%s", out, spec)
	assert.Contains(t, out, "1 passed")
	app.leakNote.Store(false)
	out, err = runSpecs(ctx, t, []string{filepath.Join(m.Dir, b.Spec)}, srv.URL, res.SecretEnv...)
	require.Error(t, err, "with the owner check back the reproduction fails:\n%s", out)
	assert.Contains(t, out, "1 failed")

	// No leak: no cross-user bug, and the other user's notes answering
	// 404 are no broken links. Bob starts from the storage state the
	// set-up mission saved for him (a file of the user's own, now).
	state, err := os.ReadFile(filepath.Join(reports, ".auth", "bob.json"))
	require.NoError(t, err)
	bobState := filepath.Join(t.TempDir(), "bob-state.json")
	require.NoError(t, os.WriteFile(bobState, state, 0o600))
	users := notesUsers()
	users[1].Password, users[1].StorageState = "", bobState
	before := app.signInCount()
	reports2 := t.TempDir()
	t0 = time.Now()
	var progress bytes.Buffer
	res, err = Run(ctx, Config{Target: srv.URL, ReportDir: reports2, Budget: 30, TurnSteps: 6, MinimizeReplays: -1, Browser: testBrowser, Progress: &progress,
		Users: users, Missions: []mission.Mission{{ThreadID: "notes", Prompt: "Explore the notes app", Team: mission.TeamStandard}}})
	t.Logf("bug off: run in %s; progress:\n%s", time.Since(t0).Round(time.Millisecond), progress.String())
	require.NoError(t, err)
	m = res.Missions[0]
	require.Empty(t, m.Err)
	for _, b := range m.Bugs {
		t.Logf("bug %s (%s): %s", b.ID, b.Kind, b.Title)
		assert.NotEqual(t, string(browser.FindNotFound), b.Kind, "another user's note is no broken link: %s", b.Title)
	}
	assert.Empty(t, crossUserBugs(m))
	assert.Equal(t, before+1, app.signInCount(), "alice signed in by the set-up mission, bob from his storage state")
	_, err = os.Stat(filepath.Join(reports2, ".auth", "bob.json"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "no set-up sign-in for a user with a storage state")
	tape, _, err = browser.ReadTapeFile(filepath.Join(m.Dir, "action_tape.jsonl"))
	require.NoError(t, err)
	acted = map[string]int{}
	for _, e := range tape {
		acted[e.Account]++
	}
	assert.Positive(t, acted["bob"], "bob acted from his storage state: %v", acted)
	assertNoCredentials(t, reports2, app.sessionIDs())
}

// templateOfURL is the URL template of raw's path.
func templateOfURL(raw string) string {
	p := urlx.Path(raw)
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		if _, err := strconv.Atoi(p[i+1:]); err == nil {
			return p[:i] + "/{id}"
		}
	}
	return p
}

// assertNoCredentials reads every artifact of the run under dir (but the
// storage states of .auth/, which are the point) and finds no password,
// no email and no session cookie value.
func assertNoCredentials(t *testing.T, dir string, cookies []string) {
	t.Helper()
	var secrets []string
	for email, pw := range notesAccounts {
		secrets = append(secrets, email, pw)
	}
	secrets = append(secrets, cookies...)
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == authDir {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".png") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds a credential or session cookie (%s…)", path, s[:3])
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, n, 5, "artifacts read")
}

// TestMultiUserSignInFails: a wrong password is a set-up error naming the
// user (never the password), within the set-up mission's bound.
func TestMultiUserSignInFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	app := newNotesApp(notesAccounts)
	srv := httptest.NewServer(app.handler())
	defer srv.Close()
	users := notesUsers()
	users[1].Password = "not-bobs-password"
	t0 := time.Now()
	_, err := Run(ctx, Config{Target: srv.URL, ReportDir: t.TempDir(), Budget: 5, Browser: testBrowser, Users: users})
	var se *SetupError
	require.True(t, errors.As(err, &se), "a set-up error: %v", err)
	assert.Contains(t, err.Error(), `user "bob": sign-in`)
	assert.Contains(t, err.Error(), "still asks for a password")
	assert.NotContains(t, err.Error(), "not-bobs-password")
	assert.Less(t, time.Since(t0), signInTimeout)
	assert.Equal(t, ExitSetup, ExitCode(report.Result{}, err, FailOnNew))
	// An app without any sign-in form: a clear error too.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><title>Plain</title></head><body><main><h1>Nothing to sign in to</h1></main></body></html>`)
	}))
	defer plain.Close()
	_, err = Run(ctx, Config{Target: plain.URL, ReportDir: t.TempDir(), Budget: 5, Browser: testBrowser,
		Users: []Account{{Name: "carol", Password: "x-password-1"}}})
	require.True(t, errors.As(err, &se), "a set-up error: %v", err)
	assert.ErrorIs(t, err, errNoSignIn)
	assert.Contains(t, err.Error(), `user "carol"`)
	assert.NotContains(t, err.Error(), "x-password-1")
}

func TestValidateUsers(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "s.json")
	require.NoError(t, os.WriteFile(good, []byte(`{"cookies":[],"origins":[]}`), 0o600))
	bad := filepath.Join(dir, "b.json")
	require.NoError(t, os.WriteFile(bad, []byte(`nope`), 0o600))
	require.NoError(t, ValidateUsers(nil))
	require.NoError(t, ValidateUsers([]Account{{Name: "a", Password: "pw1"}, {Name: "b-2", StorageState: good}}))
	for _, tt := range []struct {
		users []Account
		want  string
	}{
		{[]Account{{Name: "", Password: "p"}}, "user 1: name"},
		{[]Account{{Name: "a b", Password: "p"}}, `name "a b"`},
		{[]Account{{Name: "a", Password: "p"}, {Name: "a", Password: "q"}}, "used twice"},
		{[]Account{{Name: "a", Email: "a@x.test"}}, "give a password"},
		{[]Account{{Name: "a", StorageState: filepath.Join(dir, "none.json")}}, "no such file"},
		{[]Account{{Name: "a", StorageState: bad}}, "not a JSON object"},
	} {
		err := ValidateUsers(tt.users)
		require.ErrorIs(t, err, ErrUsage)
		assert.ErrorContains(t, err, tt.want)
	}
}

func TestCrossUserCause(t *testing.T) {
	ab := browser.Finding{Kind: findings.FindCrossUser, URL: "http://app/notes/3", Message: `bob sees alice's data: "Note 12", which only alice typed`}
	ba := browser.Finding{Kind: findings.FindCrossUser, URL: "http://app/notes/9", Message: `alice sees bob's data: "Other 7", which only bob typed`}
	list := browser.Finding{Kind: findings.FindCrossUser, URL: "http://app/notes", Message: `alice sees bob's data: "Other 7", which only bob typed`}
	assert.Equal(t, findings.RootCause(ab, ""), findings.RootCause(ba, ""), "one cause: the template and the pair, either way round")
	assert.NotEqual(t, findings.RootCause(ab, ""), findings.RootCause(list, ""))
	b1, ok := findings.FindingBug(ab, "")
	require.True(t, ok)
	assert.Equal(t, findings.SeverityCritical, b1.Severity)
	assert.Equal(t, "Cross-user data leak on /notes/3: "+ab.Message, b1.Title)

	mr := &missionRun{secrets: browser.NewSecrets("Alice-pw-1"), accounts: []*userRun{{Account: Account{Name: "alice", Email: "alice@x.test", Password: "Alice-pw-1"}}}}
	for v, want := range map[string]bool{"QA sample title 523": true, "A short note written by the QA explorer. 417": true, "Note 7 here": false,
		"abc": false, "no digits here": false, "12345678": false, "1 Main Street": false, "ABC123": false, "+1 555 0100": false,
		"alice@x.test": false, "Alice-pw-1": false, `<img src=x onerror="a1()"> 12`: false, "x@y.test 12": false, "${SECRET_1}": false} {
		assert.Equal(t, want, mr.isMarker(v), v)
	}
}

// A set-up sign-in whose browser step fails once (here a transparent
// layer covers the first page, so the button's click runs past the
// action timeout, as a click on a loaded machine can) is tried again in a fresh context, and
// the run goes on; the progress says so.
func TestSignInRetriesAFailedStep(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var mu sync.Mutex
	pages, signIns := 0, 0
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if c, err := r.Cookie("sid"); err == nil && c.Value == "ok" {
			_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><title>Home</title></head><body><main><h1>Welcome back</h1></main></body></html>`)
			return
		}
		mu.Lock()
		if strings.Contains(r.UserAgent(), "Chrome") { // the browser's, not the run's own checks
			pages++
		}
		cover := ""
		if pages == 1 {
			cover = `<div style="position:fixed;inset:0;z-index:10"></div>`
		}
		mu.Unlock()
		_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><title>Sign in</title></head><body><main><form method="post" action="/signin">
<label>Email <input name="email" type="email"></label><label>Password <input name="password" type="password"></label>
<button type="submit">Sign in</button></form></main>`+cover+`</body></html>`)
	})
	mux.HandleFunc("POST /signin", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		signIns++
		mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "ok", Path: "/"})
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var progress bytes.Buffer
	res, err := Run(ctx, Config{Target: srv.URL, ReportDir: t.TempDir(), Budget: 2, MinimizeReplays: -1, Browser: testBrowser, Progress: &progress,
		Users: []Account{{Name: "dana", Email: "dana@example.test", Password: "Dana-pw-5521!"}}})
	require.NoError(t, err, "progress:\n%s", progress.String())
	require.Len(t, res.Missions, 1)
	out := progress.String()
	assert.Contains(t, out, "set-up: signing in as dana again after:")
	assert.Contains(t, out, "set-up: signed in as dana")
	assert.NotContains(t, out, "Dana-pw-5521!")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, signIns, "the failed try sent nothing")
	assert.GreaterOrEqual(t, pages, 2)
}
