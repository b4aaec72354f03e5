// Package jingo is Jingo (Node.js, Express and git, from the npm
// registry) in the realapps benchmark: its set-up and start scripts, seed
// pages, eight hand-written mutations (patches/) and their triggers.
package jingo

import (
	"context"
	"embed"
	"fmt"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

//go:embed setup.sh start.sh patches seed
var files embed.FS

// Version is the npm package's version that setup.sh installs.
const Version = "1.9.7"

// App is Jingo with its mutations.
func App() kit.App {
	return kit.App{
		Name:       "jingo",
		Stack:      "Node.js 20, npm package jingo (Express, Pug, CodeMirror), pages in a git repository",
		Files:      files,
		Account:    kit.Account{User: "admin", Password: "Notes-admin-7"},
		Ready:      "/wiki/Home",
		Version:    func(context.Context, string) string { return "npm jingo " + Version },
		Judgements: judgements,
		Mutations: []kit.Mutation{
			{ID: "ra-jg-01", Class: kit.ClassServerError, Input: "non-latin1",
				What:    "saving an edit whose change message holds a character outside ISO-8859-1 answers HTTP 500",
				Trigger: trigger01},
			{ID: "ra-jg-02", Class: kit.ClassBrokenLink,
				What:    "the history page's All pages button links to a route that does not exist (404)",
				Trigger: trigger02},
			{ID: "ra-jg-03", Class: kit.ClassDead,
				What:    "the editor toolbar's Syntax help button does nothing",
				Match:   []string{`dead`, `syntax help`},
				Trigger: trigger03},
			{ID: "ra-jg-04", Class: kit.ClassLabel,
				What:    "the Edit this page icon button has no accessible name (its title was removed)",
				Match:   []string{`link-name|accessible name|discernible`, `/edit`},
				Trigger: trigger04},
			{ID: "ra-jg-05", Class: kit.ClassException,
				What:    "the editor's Preview throws a TypeError (scrollTop of undefined)",
				Match:   []string{`scrollTop`},
				Trigger: trigger05},
			{ID: "ra-jg-06", Class: kit.ClassStoredXSS,
				What:    "the document list shows each page's last change message unescaped",
				Match:   []string{`xss`, `/wiki`},
				Trigger: trigger06},
			{ID: "ra-jg-07", Class: kit.ClassSlow,
				What:    "a search with a term takes over 5 s",
				Match:   []string{`slow`, `search`},
				Trigger: trigger07},
			{ID: "ra-jg-08", Class: kit.ClassMangle, Input: "quote",
				What:    "saving an edit strips every quote and apostrophe from the page's text",
				Match:   []string{`(lost|missing|dropped|stripped|removed).{0,60}(quote|apostrophe)|mangl`},
				Trigger: trigger08},
		},
	}
}

// judgements judge the clean build's reports (budget 200, seed 1; see
// the README).
var judgements = []kit.Judgement{
	{Pattern: `fonts\.googleapis\.com`, Verdict: "false positive", Why: "the layout loads Google Fonts' stylesheet, which this machine cannot reach (no internet); online it loads"},
	{Pattern: `rule color-contrast`, Verdict: "real defect", Why: "axe color-contrast on Jingo's Bootstrap theme (search button, tools handle, links, footer); the report carries axe's node"},
	{Pattern: `rule html-has-lang`, Verdict: "real defect", Why: "layout.pug's <html> has no lang attribute"},
	{Pattern: `(?s)rule label\).*name="(username|password)"`, Verdict: "real defect", Why: "login.pug's labels are not tied to their inputs (no for/id, not nested)"},
}

func signIn(s *kit.Session) error {
	if _, err := s.Goto("/login"); err != nil {
		return err
	}
	if err := s.Fill(`form[action$="/login"] input[name=username]`, s.Account.User); err != nil {
		return err
	}
	if err := s.Fill(`form[action$="/login"] input[name=password]`, s.Account.Password); err != nil {
		return err
	}
	if err := s.Click(`form[action$="/login"] button[type=submit]`); err != nil {
		return err
	}
	if n, err := s.Page.Locator(`a[href$="/logout"]`).Count(); err != nil || n == 0 {
		return fmt.Errorf("sign-in as %s failed (no log-out link)", s.Account.User)
	}
	return nil
}

// edit opens page's editor, appends extra to its text, sets the change
// message and saves.
func edit(s *kit.Session, page, extra, message string) error {
	if _, err := s.Goto("/pages/" + page + "/edit"); err != nil {
		return err
	}
	if _, err := s.Page.Evaluate(`(extra) => { const cm = window.Jingo.cmInstance; cm.setValue(cm.getValue() + "\n" + extra + "\n"); }`, extra); err != nil {
		return fmt.Errorf("editor of %s: %w", page, err)
	}
	if err := s.Fill("#message", message); err != nil {
		return err
	}
	return s.Click(`form.edit input[type=submit][value=Save]`)
}

func trigger01(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if err := edit(s, "Runbook", "Checked by Zoë.", "Runbook review — thanks Zoë"); err != nil {
		return kit.Verdict{}, err
	}
	if r, ok := s.Find(func(r kit.Response) bool { return r.Status >= 500 }); ok {
		if kit.IDPattern("ra-jg-01").MatchString(r.Body) {
			return kit.Visible("%s %s answered %d: %s", r.Method, r.URL, r.Status, kit.Around(r.Body, "ra-jg-01", 100)), nil
		}
		return kit.Absent("%s %s answered %d without the id", r.Method, r.URL, r.Status), nil
	}
	return kit.Absent("no 5xx"), nil
}

func trigger02(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if _, err := s.Goto("/wiki/Home/history"); err != nil {
		return kit.Verdict{}, err
	}
	href, err := s.Page.Locator(`a[title="All pages"]`).First().GetAttribute("href")
	if err != nil {
		return kit.Verdict{}, fmt.Errorf("the All pages link: %w", err)
	}
	status, err := s.Goto(href)
	if err != nil {
		return kit.Verdict{}, err
	}
	if status == 404 {
		return kit.Visible("All pages (%s) answers 404", href), nil
	}
	return kit.Absent("All pages (%s) answers %d", href, status), nil
}

func trigger03(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto("/pages/Home/edit"); err != nil {
		return kit.Verdict{}, err
	}
	if err := s.Page.Locator(`ul.toolbar li.info span`).Click(); err != nil {
		return kit.Verdict{}, fmt.Errorf("click Syntax help: %w", err)
	}
	time.Sleep(1500 * time.Millisecond)
	shown, err := s.Page.Locator("#js--syntax-reference").IsVisible()
	if err != nil {
		return kit.Verdict{}, err
	}
	if shown {
		return kit.Absent("Syntax help opened the cheatsheet"), nil
	}
	return kit.Visible("clicking Syntax help showed nothing"), nil
}

func trigger04(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto("/wiki/Home"); err != nil {
		return kit.Verdict{}, err
	}
	return s.AxeViolation("link-name", "/edit", "the edit button")
}

func trigger05(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto("/pages/Home/edit"); err != nil {
		return kit.Verdict{}, err
	}
	if err := s.Page.Locator(`ul.toolbar li.preview span`).Click(); err != nil {
		return kit.Verdict{}, fmt.Errorf("click Preview: %w", err)
	}
	time.Sleep(1500 * time.Millisecond)
	for _, e := range s.PageErrors() {
		if strings.Contains(e, "scrollTop") {
			return kit.Visible("Preview: uncaught %s", e), nil
		}
	}
	return kit.Absent("Preview ran without an uncaught error (%d page errors)", len(s.PageErrors())), nil
}

func trigger06(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if err := edit(s, "Onboarding", "4. Read the team's notes.", "<img src=x onerror=__rxss('ra-jg-06')>"); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto("/wiki"); err != nil {
		return kit.Verdict{}, err
	}
	time.Sleep(500 * time.Millisecond)
	for _, x := range s.XSS() {
		if x == "ra-jg-06" {
			return kit.Visible("the stored change message's onerror ran on the document list"), nil
		}
	}
	return kit.Absent("the stored change message stayed text"), nil
}

func trigger07(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	t0 := time.Now()
	if _, err := s.Goto("/search?term=Runbook"); err != nil {
		return kit.Verdict{}, err
	}
	d := time.Since(t0).Round(100 * time.Millisecond)
	if d > 3*time.Second {
		return kit.Visible("the search took %s", d), nil
	}
	return kit.Absent("the search took %s", d), nil
}

func trigger08(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	const typed = `- 2026-12-07: "ship it", said O'Neil.`
	if err := edit(s, "Meeting-notes", typed, "Add the last meeting"); err != nil {
		return kit.Verdict{}, err
	}
	text, err := s.Text("#js--content")
	if err != nil {
		return kit.Verdict{}, err
	}
	want := `2026-12-07: "ship it", said O'Neil.`
	if strings.Contains(text, want) {
		return kit.Absent("the page shows %q as typed", want), nil
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "2026-12-07") {
			return kit.Visible("typed %q, the page shows %q", want, strings.TrimSpace(line)), nil
		}
	}
	return kit.Visible("typed %q, the page does not show it", want), nil
}
