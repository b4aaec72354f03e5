package explore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/safefile"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// signInTimeout bounds the set-up mission of one user.
const signInTimeout = 60 * time.Second

// signInStepError is a browser step of the set-up sign-in that failed
// (as opposed to a page without a sign-in form, or one that refuses the
// password): worth one more try.
type signInStepError struct{ err error }

func (e *signInStepError) Error() string { return e.err.Error() }
func (e *signInStepError) Unwrap() error { return e.err }

// authDir is where the set-up mission keeps the users' storage states,
// in the report directory (0700; each file 0600).
const authDir = ".auth"

// reSignInControl names a link or button that leads to a sign-in form.
var reSignInControl = regexp.MustCompile(`(?i)\b(sign|log)[ -]?(in|on)\b`)

// signInMacro fills the sign-in form of a page whose element i is its
// password field: the email or user-name fields before it, the password,
// then the best submit button after it. The personas sign in with it when
// a page asks for a password, and so does the set-up mission.
func signInMacro(els []personas.Element, i int, creds session.Credentials) []step {
	var macro []step
	for j := range i {
		if f := els[j]; f.Fillable() && f.InMain && strings.Contains(strings.ToLower(f.Name), "mail") || f.Fillable() && f.InMain && strings.Contains(strings.ToLower(f.Name), "user") {
			macro = append(macro, step{in: browser.Fill(f.Ref, creds.Email), why: "sign in: email"})
		}
	}
	macro = append(macro, step{in: browser.Fill(els[i].Ref, creds.Password), why: "sign in: password"})
	if b, ok := personas.SubmitAfter(els, i+1); ok {
		macro = append(macro, step{in: browser.Click(b.Ref), why: "sign in"})
	}
	return macro
}

// passwordField is the index of the page's empty password field, or -1.
func passwordField(els []personas.Element) int {
	for i, e := range els {
		if e.Fillable() && strings.Contains(strings.ToLower(e.Name), "password") && e.Value == "" {
			return i
		}
	}
	return -1
}

// signInUsers is the set-up mission: each user with a password and no
// storage state signs in once, in a browser context of its own, and its
// storage state is saved to <ReportDir>/.auth/<name>.json for its
// contexts in the missions. The sign-in form is found generically: a
// password field on the start page, else behind a link or button named
// like a sign-in. A user whose sign-in fails (no form, or the page still
// asks for a password after submitting) is a *SetupError naming it.
func signInUsers(ctx context.Context, cfg Config, b *browser.Browser, engineCfg browser.Config, users []*userRun, addr *collector.Addresser, progress func(string)) error {
	for _, u := range users {
		if u.state != "" || u.Password == "" {
			continue
		}
		t0 := time.Now()
		err := signInUser(ctx, cfg, b, engineCfg, u, addr)
		if step := (*signInStepError)(nil); errors.As(err, &step) && ctx.Err() == nil {
			// A browser step failed (a click past its timeout on a loaded
			// machine): once more, in a fresh context, before the run
			// gives up. A form that is not there or refuses the password
			// fails the same way twice, so it is not retried.
			progress(fmt.Sprintf("set-up: signing in as %s again after: %s", u.Name, clip.String(addr.Text(err.Error()), 200)))
			err = signInUser(ctx, cfg, b, engineCfg, u, addr)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &SetupError{Err: fmt.Errorf("user %q: sign-in: %w", u.Name, err)}
		}
		progress(fmt.Sprintf("set-up: signed in as %s in %s (storage state %s)", u.Name, time.Since(t0).Round(100*time.Millisecond), u.state))
	}
	return nil
}

func signInUser(ctx context.Context, cfg Config, b *browser.Browser, engineCfg browser.Config, u *userRun, addr *collector.Addresser) error {
	ctx, cancel := context.WithTimeout(ctx, signInTimeout)
	defer cancel()
	engineCfg.StorageStatePath = ""
	e, err := b.NewEngine(engineCfg)
	if err != nil {
		return fmt.Errorf("browser engine: %w", err)
	}
	defer func() { _ = e.Close() }()
	s, err := e.User(ctx, "setup-"+u.Name)
	if err != nil {
		return fmt.Errorf("browser context: %w", err)
	}
	look := func() ([]personas.Element, browser.Snapshot, error) {
		r := s.Do(ctx, browser.Intent{Action: browser.ActSnapshot})
		if !r.OK || r.Snapshot == nil {
			return nil, browser.Snapshot{}, &signInStepError{fmt.Errorf("read the page: %s", r.Error)}
		}
		return personas.ParseElements(*r.Snapshot), *r.Snapshot, nil
	}
	if r := s.Do(ctx, browser.Navigate("/")); !r.OK {
		return &signInStepError{fmt.Errorf("open the start page: %s", r.Error)}
	}
	els, snap, err := look()
	if err != nil {
		return err
	}
	i := passwordField(els)
	if i < 0 {
		// A link or button named like a sign-in leads to the form.
		for _, el := range els {
			if (el.Role == "link" || el.Role == "button") && reSignInControl.MatchString(el.Name) {
				if r := s.Do(ctx, browser.Click(el.Ref)); !r.OK {
					return &signInStepError{fmt.Errorf("open the sign-in form (%s): %s", el.Name, r.Error)}
				}
				if els, snap, err = look(); err != nil {
					return err
				}
				i = passwordField(els)
				break
			}
		}
	}
	if i < 0 {
		return errNoSignIn
	}
	before := urlx.Path(snap.URL)
	creds := session.Credentials{Email: u.Email, Password: u.Password}
	if creds.Email == "" {
		creds.Email = session.GuessCredentials(snap.Text, session.Credentials{Password: u.Password}).Email
	}
	for _, st := range signInMacro(els, i, creds) {
		if r := s.Do(ctx, st.in); !r.OK {
			return &signInStepError{fmt.Errorf("%s: %s", st.why, e.Secrets().Redact(r.Error))}
		}
	}
	// Signed in: the password field is gone (a new page, or the form
	// replaced). The page may still be on its way: look again for up to
	// a few seconds.
	for deadline := time.Now().Add(5 * time.Second); ; {
		if els, _, err := look(); err == nil && !personas.HasPassword(els) {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the page (%s) still asks for a password after submitting the sign-in form: check the user's email and password", before)
		}
		sleep(ctx, 300*time.Millisecond)
	}
	dir := filepath.Join(cfg.ReportDir, authDir)
	if err := safefile.MkdirUnder(cfg.ReportDir, authDir, 0o700); err != nil {
		return err
	}
	_ = os.Chmod(dir, 0o700)
	path := filepath.Join(dir, u.Name+".json")
	_ = os.Remove(path) // Playwright writes through a link planted there
	if err := s.SaveStorageState(path); err != nil {
		return fmt.Errorf("save the storage state: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return err
	}
	u.state = path
	// The steps that signed in, for the specs: passwords as references,
	// the target's addresses.
	for _, en := range e.Window().Entries() {
		switch en.Action {
		case browser.ActSnapshot, browser.ActScreenshot:
			continue
		}
		if !en.OK {
			continue
		}
		en.Params = e.Secrets().RedactIntent(en.Params)
		en.Account = u.Name
		u.signIn = append(u.signIn, addr.Entry(en))
	}
	return nil
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
