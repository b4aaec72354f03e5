// Package dokuwiki is DokuWiki (PHP, Debian's dokuwiki package) in the
// realapps benchmark: its set-up and start scripts, seed pages, eight
// hand-written mutations (patches/) and their triggers.
package dokuwiki

import (
	"context"
	"embed"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

//go:embed setup.sh start.sh patches seed
var files embed.FS

// App is DokuWiki with its mutations.
func App() kit.App {
	return kit.App{
		Name:    "dokuwiki",
		Stack:   "PHP 8.2, Debian package dokuwiki, PHP's built-in server, files (no database)",
		Files:   files,
		Account: kit.Account{User: "admin", Password: "Wiki-admin-7"},
		Ready:   "/doku.php",
		Version: func(ctx context.Context, _ string) string {
			out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Version}", "dokuwiki").Output()
			if err != nil {
				return "unknown"
			}
			return "Debian dokuwiki " + string(out)
		},
		Judgements: judgements,
		Mutations: []kit.Mutation{
			{ID: "ra-dw-01", Class: kit.ClassServerError, Input: "quote",
				What:    "saving a page whose edit summary holds a double quote answers HTTP 500",
				Trigger: trigger01},
			{ID: "ra-dw-02", Class: kit.ClassBrokenLink,
				What:    "the editor's help text links to the syntax page under a wrong namespace (404)",
				Trigger: trigger02},
			{ID: "ra-dw-03", Class: kit.ClassDead,
				What:    "the editor toolbar's list buttons (ordered, unordered list item) do nothing",
				Match:   []string{`dead`, `list item`},
				Trigger: trigger03},
			{ID: "ra-dw-04", Class: kit.ClassLabel,
				What:    "the edit summary field lost its label",
				Match:   []string{`label`, `summary`},
				Trigger: trigger04},
			{ID: "ra-dw-05", Class: kit.ClassException,
				What:    "Old revisions of a page in a namespace throw an uncaught exception",
				Trigger: trigger05},
			{ID: "ra-dw-06", Class: kit.ClassStoredXSS,
				What:    "edit summaries are shown unescaped in Recent changes and Old revisions",
				Match:   []string{`xss`, `do=(recent|revisions)`},
				Trigger: trigger06},
			{ID: "ra-dw-07", Class: kit.ClassSlow,
				What:    "Recent changes takes about 5 s",
				Match:   []string{`slow`, `do=recent`},
				Trigger: trigger07},
			{ID: "ra-dw-08", Class: kit.ClassMangle, Input: "non-latin1",
				What:    "saved page text is re-encoded from Latin-1: é comes back as Ã©",
				Match:   []string{`Ã|mojibake|mangl|encoding`},
				Trigger: trigger08},
		},
	}
}

// judgements judge the clean build's reports (budget 200, seed 1; see
// the README): axe-core's findings on DokuWiki's own markup are real
// defects, with axe's evidence; the dead controls that do nothing by
// design are false positives.
var judgements = []kit.Judgement{
	{Pattern: `rule color-contrast`, Verdict: "real defect", Why: "axe color-contrast on the default template's link and footnote colours (the report carries axe's node)"},
	{Pattern: `rule label-title-only`, Verdict: "real defect", Why: "the header search box is named only by its title [F] and placeholder (axe best practice)"},
	{Pattern: `rule link-in-text-block`, Verdict: "real defect", Why: "wiki links in running text differ from it by colour only"},
	{Pattern: `rule select-name`, Verdict: "real defect", Why: "the ACL manager's user/group select has no label"},
	{Pattern: `rule label\b`, Verdict: "real defect", Why: "a form field without a label in DokuWiki's own markup (ACL manager, media upload, search page, the editor's textarea, the link wizard)"},
	{Pattern: `rule tabindex`, Verdict: "real defect", Why: "the editor's fields and buttons carry tabindex 1 to 6 (axe best practice)"},
	{Pattern: `rule aria-allowed-attr`, Verdict: "real defect", Why: "aria-expanded on a div without a role (the table of contents' toggle)"},
	{Pattern: `rule aria-hidden-focus`, Verdict: "real defect", Why: "the toolbar's hidden headline picker (aria-hidden) holds focusable buttons"},
	{Pattern: `(?s)changed nothing.*class="toolbutton`, Verdict: "false positive", Why: "the editor's toolbar buttons change the textarea's value (or open a picker), which the dead-control oracle does not watch; ra-dw-03's trigger sees the clean build's list button insert its markup"},
	{Pattern: `rule list\b`, Verdict: "real defect", Why: "the media manager's tree puts non-li children in a ul"},
	{Pattern: `clicking "Reset" changed nothing`, Verdict: "false positive", Why: "Reset on a form that was not changed has nothing to reset"},
	{Pattern: `clicking "Toggle Search Tools" changed nothing`, Verdict: "false positive", Why: "the toggle works: in Chromium each click flips its aria-expanded and shows or hides the search options (checked on a clean instance)"},
	{Pattern: `clicking "Upload" changed nothing`, Verdict: "false positive", Why: "the media manager's Upload with no file chosen has nothing to send; the uploader ignores it by design"},
}

func signIn(s *kit.Session) error {
	if _, err := s.Goto("doku.php?id=start&do=login"); err != nil {
		return err
	}
	if err := s.Fill("#dw__login input[name=u]", s.Account.User); err != nil {
		return err
	}
	if err := s.Fill("#dw__login input[name=p]", s.Account.Password); err != nil {
		return err
	}
	if err := s.Click("#dw__login button[type=submit]"); err != nil {
		return err
	}
	if n, err := s.Page.Locator("a.action.logout, .action.logout").Count(); err != nil || n == 0 {
		return fmt.Errorf("sign-in as %s failed (no log-out link)", s.Account.User)
	}
	return nil
}

// edit opens page id's editor, appends extra to its text, sets the
// summary and saves.
func edit(s *kit.Session, id, extra, summary string) error {
	if _, err := s.Goto("doku.php?id=" + id + "&do=edit"); err != nil {
		return err
	}
	ta := s.Page.Locator("#wiki__text")
	text, err := ta.InputValue()
	if err != nil {
		return fmt.Errorf("editor of %s: %w", id, err)
	}
	if err := ta.Fill(text + "\n" + extra + "\n"); err != nil {
		return fmt.Errorf("editor of %s: %w", id, err)
	}
	if err := s.Fill("#edit__summary", summary); err != nil {
		return err
	}
	return s.Click("#edbtn__save")
}

func serverError(s *kit.Session, id string) (kit.Verdict, error) {
	if r, ok := s.Find(func(r kit.Response) bool { return r.Status >= 500 }); ok {
		if kit.IDPattern(id).MatchString(r.Body) {
			return kit.Visible("%s %s answered %d: %s", r.Method, r.URL, r.Status, kit.Around(r.Body, id, 100)), nil
		}
		return kit.Absent("%s %s answered %d without the id", r.Method, r.URL, r.Status), nil
	}
	return kit.Absent("no 5xx"), nil
}

func trigger01(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if err := edit(s, "playground:playground", "Testing the editor.", `Fix the "Try" paragraph`); err != nil {
		return kit.Verdict{}, err
	}
	return serverError(s, "ra-dw-01")
}

func trigger02(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto("doku.php?id=start&do=edit"); err != nil {
		return kit.Verdict{}, err
	}
	link := s.Page.Locator(`#dokuwiki__content a[href*="syntax"]`).First()
	href, err := link.GetAttribute("href")
	if err != nil {
		return kit.Verdict{}, fmt.Errorf("the editor's syntax link: %w", err)
	}
	status, err := s.Goto(href)
	if err != nil {
		return kit.Verdict{}, err
	}
	if status == 404 {
		return kit.Visible("the editor's help link %s answers 404", href), nil
	}
	return kit.Absent("the editor's help link %s answers %d", href, status), nil
}

func trigger03(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto("doku.php?id=handbook&do=edit"); err != nil {
		return kit.Verdict{}, err
	}
	ta := s.Page.Locator("#wiki__text")
	before, err := ta.InputValue()
	if err != nil {
		return kit.Verdict{}, err
	}
	btn := `#tool__bar button[title^="Unordered List Item"]`
	if err := s.Page.Locator(btn).First().Click(); err != nil {
		return kit.Verdict{}, fmt.Errorf("click %s: %w", btn, err)
	}
	time.Sleep(time.Second)
	if !strings.Contains(s.Page.URL(), "do=edit") {
		return kit.Absent("the click left the editor (%s)", s.Page.URL()), nil
	}
	after, err := ta.InputValue()
	if err != nil {
		return kit.Verdict{}, err
	}
	if after == before {
		return kit.Visible("clicking %q left the text unchanged", "Unordered List Item"), nil
	}
	return kit.Absent("clicking %q inserted a list item", "Unordered List Item"), nil
}

func trigger04(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto("doku.php?id=start&do=edit"); err != nil {
		return kit.Verdict{}, err
	}
	return s.AxeViolation("label", "edit__summary", "the summary field")
}

func trigger05(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto("doku.php?id=recipes:pancakes&do=revisions"); err != nil {
		return kit.Verdict{}, err
	}
	html, err := s.Content()
	if err != nil {
		return kit.Verdict{}, err
	}
	if kit.IDPattern("ra-dw-05").MatchString(html) {
		t, _ := s.Page.Title()
		return kit.Visible("Old revisions shows the error page: %s", t), nil
	}
	return kit.Absent("Old revisions rendered"), nil
}

func trigger06(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if err := edit(s, "meetings", "  * 2026-12-07: planning.", "<img src=x onerror=__rxss('ra-dw-06')>"); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto("doku.php?id=start&do=recent"); err != nil {
		return kit.Verdict{}, err
	}
	time.Sleep(500 * time.Millisecond)
	for _, x := range s.XSS() {
		if x == "ra-dw-06" {
			return kit.Visible("the stored summary's onerror ran on Recent changes"), nil
		}
	}
	return kit.Absent("the stored summary stayed text"), nil
}

func trigger07(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	t0 := time.Now()
	if _, err := s.Goto("doku.php?id=start&do=recent"); err != nil {
		return kit.Verdict{}, err
	}
	if d := time.Since(t0); d > 3*time.Second {
		return kit.Visible("Recent changes took %s", d.Round(100*time.Millisecond)), nil
	} else {
		return kit.Absent("Recent changes took %s", d.Round(100*time.Millisecond)), nil
	}
}

func trigger08(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	const typed = "Served by Zoë with crème fraîche."
	if err := edit(s, "recipes:creme_brulee", typed, "serving tip"); err != nil {
		return kit.Verdict{}, err
	}
	text, err := s.Text("#dokuwiki__content")
	if err != nil {
		return kit.Verdict{}, err
	}
	if strings.Contains(text, typed) {
		return kit.Absent("the page shows %q as typed", typed), nil
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "Served by") {
			return kit.Visible("typed %q, the page shows %q", typed, strings.TrimSpace(line)), nil
		}
	}
	return kit.Visible("typed %q, the page does not show it", typed), nil
}
