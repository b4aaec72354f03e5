package kit

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Class is a mutation's kind of defect.
type Class string

// The mutation classes of the benchmark (issue: realapps).
const (
	ClassServerError Class = "server_error"  // HTTP 5xx for one input class
	ClassBrokenLink  Class = "broken_link"   // a same-origin link that answers 404
	ClassDead        Class = "dead_control"  // a removed JS handler: the control does nothing
	ClassLabel       Class = "removed_label" // a form field without its label (axe)
	ClassException   Class = "exception"     // an exception thrown on one action
	ClassStoredXSS   Class = "stored_xss"    // escaping removed: stored markup runs
	ClassSlow        Class = "slow_response" // a handler slower than 3 s
	ClassMangle      Class = "data_mangling" // what is saved or shown differs from what was typed
)

// Account is the admin account an instance is seeded with; the explorer
// signs in with it.
type Account struct {
	User     string `json:"user"`
	Password string `json:"-"`
}

// App is one real web app of the benchmark.
type App struct {
	// Name is the app's folder and flag name (lower case).
	Name string
	// Stack says how it is built and installed, e.g. "PHP (Debian package)".
	Stack string
	// Files holds setup.sh, start.sh, patches/ and whatever start.sh
	// reads (seed data), at its root.
	Files fs.FS
	// Account is seeded by start.sh.
	Account Account
	// Ready is the path polled until the instance answers (default "/").
	Ready string
	// Version reports the installed version (after Setup).
	Version func(ctx context.Context, cache string) string
	// Mutations are the app's hand-written bugs.
	Mutations []Mutation
	// Judgements judge the reports of the clean build's run: each report
	// takes the first judgement whose pattern matches its text.
	Judgements []Judgement
}

// Judgement is a person's verdict on a kind of report on the clean build.
type Judgement struct {
	// Pattern is a Go regexp (case-insensitive) on the report's text.
	Pattern string
	// Verdict is "real defect" or "false positive".
	Verdict string
	// Why gives the evidence or the reason.
	Why string
}

// Mutation is one hand-written bug of an app.
type Mutation struct {
	// ID, "ra-<app>-<nn>", shows in the bug's evidence where its class
	// allows (an exception's message, a 500's body, a link's URL).
	ID    string
	Class Class
	// Input is the input class of a server error (quote, long, non-latin1,
	// negative).
	Input string
	// What says in words what goes wrong and where.
	What string
	// Match are the patterns (Go regexps, case-insensitive) a report's
	// text (kind, title, URL, evidence, symptoms) must all match for the
	// report to name this mutation; empty means the id alone. Mutations
	// whose class leaves no id in the evidence (a dead control, a missing
	// label, a slow page, mangled data) say here what a report about them
	// must show instead.
	Match []string
	// Trigger drives a signed-in session to the defect and says whether
	// it showed. It must pass its steps on the clean build too, where the
	// defect must not show.
	Trigger func(ctx context.Context, s *Session) (Verdict, error)
}

// Patch is the mutation's patch file in App.Files.
func (m Mutation) Patch() string { return "patches/" + m.ID + ".patch" }

// Verdict is what a trigger saw.
type Verdict struct {
	Visible  bool   `json:"visible"`
	Evidence string `json:"evidence,omitempty"`
}

// Visible and Absent build Verdicts.
func Visible(format string, args ...any) Verdict {
	return Verdict{Visible: true, Evidence: fmt.Sprintf(format, args...)}
}

// Absent is a Verdict of a defect that did not show.
func Absent(format string, args ...any) Verdict {
	return Verdict{Evidence: fmt.Sprintf(format, args...)}
}

// Patterns are m's match patterns, compiled (the id's own pattern when
// Match is empty).
func (m Mutation) Patterns() ([]*regexp.Regexp, error) {
	if len(m.Match) == 0 {
		return []*regexp.Regexp{IDPattern(m.ID)}, nil
	}
	out := make([]*regexp.Regexp, 0, len(m.Match))
	for _, p := range m.Match {
		re, err := regexp.Compile("(?i)" + p)
		if err != nil {
			return nil, fmt.Errorf("kit: %s: match %q: %w", m.ID, p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// Matches reports whether a report's text names m.
func (m Mutation) Matches(text string) bool {
	res, err := m.Patterns()
	if err != nil {
		return false
	}
	for _, re := range res {
		if !re.MatchString(text) {
			return false
		}
	}
	return true
}

// IDPattern matches id on its own: "ra-dw-01" is not found in
// "ra-dw-011" or "xra-dw-01".
func IDPattern(id string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[^0-9a-z])` + regexp.QuoteMeta(id) + `(?:$|[^0-9a-z])`)
}

// Validate checks an app's definition: names, ids, a patch per mutation.
func (a App) Validate() error {
	if !regexp.MustCompile(`^[a-z][a-z0-9]*$`).MatchString(a.Name) {
		return fmt.Errorf("kit: app name %q: want lower-case letters and digits", a.Name)
	}
	for _, f := range []string{"setup.sh", "start.sh"} {
		if _, err := fs.Stat(a.Files, f); err != nil {
			return fmt.Errorf("kit: %s: %w", a.Name, err)
		}
	}
	if a.Account.User == "" || a.Account.Password == "" {
		return fmt.Errorf("kit: %s: no admin account", a.Name)
	}
	seen := map[string]bool{}
	for _, m := range a.Mutations {
		if !regexp.MustCompile(`^ra-[a-z]+-\d\d$`).MatchString(m.ID) {
			return fmt.Errorf("kit: %s: mutation id %q: want ra-<app>-<nn>", a.Name, m.ID)
		}
		if seen[m.ID] {
			return fmt.Errorf("kit: %s: mutation %s twice", a.Name, m.ID)
		}
		seen[m.ID] = true
		if _, err := fs.Stat(a.Files, m.Patch()); err != nil {
			return fmt.Errorf("kit: %s: %w", m.ID, err)
		}
		if m.Trigger == nil {
			return fmt.Errorf("kit: %s: no trigger", m.ID)
		}
		if _, err := m.Patterns(); err != nil {
			return err
		}
	}
	return nil
}

// Mutation returns the mutation with id.
func (a App) Mutation(id string) (Mutation, bool) {
	for _, m := range a.Mutations {
		if strings.EqualFold(m.ID, id) {
			return m, true
		}
	}
	return Mutation{}, false
}

// Around is the text of s around the first match of id (n characters
// each side, whitespace folded), or s's start when id is not in it.
func Around(s, id string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	loc := IDPattern(id).FindStringIndex(s)
	if loc == nil {
		if len(s) > 2*n {
			return s[:2*n] + "…"
		}
		return s
	}
	from, to := max(0, loc[0]-n), min(len(s), loc[1]+n)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	out := s[from:to]
	if from > 0 {
		out = "…" + out
	}
	if to < len(s) {
		out += "…"
	}
	return out
}
