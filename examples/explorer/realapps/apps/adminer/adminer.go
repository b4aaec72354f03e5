// Package adminer is Adminer (PHP, Debian's adminer package, on a
// throwaway PostgreSQL cluster) in the realapps benchmark: its set-up and
// start scripts, seed database, eight hand-written mutations (patches/)
// and their triggers.
package adminer

import (
	"context"
	"embed"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

//go:embed setup.sh start.sh seed.sql patches
var files embed.FS

// App is Adminer with its mutations.
func App() kit.App {
	return kit.App{
		Name:    "adminer",
		Stack:   "PHP 8.2, Debian package adminer (its source tree), PHP's built-in server, PostgreSQL 15 (a throwaway cluster)",
		Files:   files,
		Account: kit.Account{User: "admin", Password: "Shop-admin-7"},
		Ready:   "/adminer/", // the site's root redirects here
		Version: func(ctx context.Context, _ string) string {
			out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Version}", "adminer").Output()
			if err != nil {
				return "unknown"
			}
			return "Debian adminer " + string(out)
		},
		Judgements: judgements,
		Mutations: []kit.Mutation{
			{ID: "ra-ad-01", Class: kit.ClassServerError, Input: "negative",
				What:    "saving a row with a negative value in an integer column answers HTTP 500",
				Match:   []string{`\b5\d\d\b|server error`, `edit=`},
				Trigger: trigger01},
			{ID: "ra-ad-02", Class: kit.ClassBrokenLink,
				What:    "the Import link beside SQL command points to a script that does not exist (404)",
				Trigger: trigger02},
			{ID: "ra-ad-03", Class: kit.ClassDead,
				What:    "the table list's check-all box does not check the tables",
				Match:   []string{`dead|changed nothing`, `check-all|tables\[\]`},
				Trigger: trigger03},
			{ID: "ra-ad-04", Class: kit.ClassLabel,
				What:    "the login form's Permanent login checkbox has no label",
				Match:   []string{`label`, `permanent`},
				Trigger: trigger04},
			{ID: "ra-ad-05", Class: kit.ClassException,
				What:    "the Database schema page throws an uncaught TypeError (HTTP 500)",
				Match:   []string{`\b5\d\d\b|server error`, `schema=`},
				Trigger: trigger05},
			{ID: "ra-ad-06", Class: kit.ClassStoredXSS,
				What:    "Select data shows text cells unescaped",
				Match:   []string{`xss`, `select=`},
				Trigger: trigger06},
			{ID: "ra-ad-07", Class: kit.ClassSlow,
				What:    "Show structure of a table takes about 5 s",
				Match:   []string{`slow`, `table=`},
				Trigger: trigger07},
			{ID: "ra-ad-08", Class: kit.ClassMangle, Input: "quote",
				What:    "apostrophes are stripped from text values when a row is saved",
				Match:   []string{`(lost|missing|dropped|stripped|removed).{0,60}(quote|apostrophe)|mangl`},
				Trigger: trigger08},
		},
	}
}

// judgements judge the clean build's reports (budget 200, seed 1; see
// the README).
var judgements = []kit.Judgement{
	{Pattern: `reading 'onchange'`, Verdict: "real defect", Why: "the login form's username script calls form['auth[driver]'].onchange(), but Adminer's own login-servers plugin leaves the driver field out (Adminer 4.8.1 include/adminer.inc.php loginForm)"},
	{Pattern: `rule color-contrast`, Verdict: "real defect", Why: "axe color-contrast on Adminer's default style (header link, version, error box)"},
	{Pattern: `(?s)rule label\).*auth\[(username|password|db)\]`, Verdict: "real defect", Why: "the login fields are captioned by table header cells, not labels"},
	{Pattern: `(?s)rule link-name\).*id="version"`, Verdict: "real defect", Why: "the #version link is empty: only the online version check fills it, and Debian's configuration turns that off"},
	{Pattern: `rule select-name`, Verdict: "real defect", Why: "the server and language selects have no label"},
}

// me is the app's address for the seeded database, as Adminer writes it.
func me(s *kit.Session, query string) string {
	p := "/adminer/?pgsql=" + url.QueryEscape("Shop database") + "&username=" + url.QueryEscape(s.Account.User) + "&db=shop&ns=public"
	if query != "" {
		p += "&" + query
	}
	return p
}

func signIn(s *kit.Session) error {
	if _, err := s.Goto("/adminer/"); err != nil {
		return err
	}
	if err := s.Fill(`input[name="auth[username]"]`, s.Account.User); err != nil {
		return err
	}
	if err := s.Fill(`input[name="auth[password]"]`, s.Account.Password); err != nil {
		return err
	}
	if err := s.Fill(`input[name="auth[db]"]`, "shop"); err != nil {
		return err
	}
	if err := s.Click(`input[type=submit][value=Login]`); err != nil {
		return err
	}
	if n, err := s.Page.Locator(`input[name=logout]`).Count(); err != nil || n == 0 {
		return fmt.Errorf("sign-in as %s failed (no Logout button)", s.Account.User)
	}
	return nil
}

// save opens a row's edit form, fills field with value and saves.
func save(s *kit.Session, table, id, field, value string) error {
	if _, err := s.Goto(me(s, "edit="+table+"&where%5Bid%5D="+id)); err != nil {
		return err
	}
	if err := s.Fill(`[name="fields[`+field+`]"]`, value); err != nil {
		return err
	}
	return s.Click(`input[type=submit][value=Save]`)
}

func status500(s *kit.Session, what string) (kit.Verdict, error) {
	if r, ok := s.Find(func(r kit.Response) bool { return r.Status >= 500 }); ok {
		return kit.Visible("%s: %s %s answered %d", what, r.Method, r.URL, r.Status), nil
	}
	return kit.Absent("%s: no 5xx", what), nil
}

func trigger01(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if err := save(s, "orders", "1", "quantity", "-2"); err != nil {
		return kit.Verdict{}, err
	}
	return status500(s, "quantity -2")
}

func trigger02(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto(me(s, "")); err != nil {
		return kit.Verdict{}, err
	}
	href, err := s.Page.Locator(`p.links a:text-is("Import")`).First().GetAttribute("href")
	if err != nil {
		return kit.Verdict{}, fmt.Errorf("the Import link: %w", err)
	}
	u, err := url.Parse(s.Page.URL())
	if err != nil {
		return kit.Verdict{}, err
	}
	ref, err := u.Parse(href)
	if err != nil {
		return kit.Verdict{}, err
	}
	status, err := s.Goto(ref.String())
	if err != nil {
		return kit.Verdict{}, err
	}
	if status == 404 {
		return kit.Visible("Import (%s) answers 404", href), nil
	}
	return kit.Absent("Import (%s) answers %d", href, status), nil
}

func trigger03(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto(me(s, "")); err != nil {
		return kit.Verdict{}, err
	}
	if err := s.Page.Locator("#check-all").Click(); err != nil {
		return kit.Verdict{}, fmt.Errorf("click check-all: %w", err)
	}
	time.Sleep(500 * time.Millisecond)
	boxes := s.Page.Locator(`input[name="tables[]"]`)
	n, err := boxes.Count()
	if err != nil || n == 0 {
		return kit.Verdict{}, fmt.Errorf("no table check boxes (%v)", err)
	}
	checked := 0
	for i := range n {
		if c, err := boxes.Nth(i).IsChecked(); err == nil && c {
			checked++
		}
	}
	if checked == 0 {
		return kit.Visible("check-all left all %d tables unchecked", n), nil
	}
	return kit.Absent("check-all checked %d of %d tables", checked, n), nil
}

func trigger04(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if _, err := s.Goto("/adminer/"); err != nil {
		return kit.Verdict{}, err
	}
	return s.AxeViolation("label", "auth[permanent]", "the Permanent login box")
}

func trigger05(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	status, err := s.Goto(me(s, "schema="))
	if err != nil {
		return kit.Verdict{}, err
	}
	if status >= 500 {
		return kit.Visible("Database schema answered %d", status), nil
	}
	return kit.Absent("Database schema answered %d", status), nil
}

func trigger06(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	if err := save(s, "customers", "2", "note", "<img src=x onerror=__rxss(`ra-ad-06`)>"); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto(me(s, "select=customers")); err != nil {
		return kit.Verdict{}, err
	}
	time.Sleep(500 * time.Millisecond)
	for _, x := range s.XSS() {
		if x == "ra-ad-06" {
			return kit.Visible("the stored note's onerror ran on Select data"), nil
		}
	}
	return kit.Absent("the stored note stayed text"), nil
}

func trigger07(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	t0 := time.Now()
	if _, err := s.Goto(me(s, "table=products")); err != nil {
		return kit.Verdict{}, err
	}
	d := time.Since(t0).Round(100 * time.Millisecond)
	if d > 3*time.Second {
		return kit.Visible("Show structure took %s", d), nil
	}
	return kit.Absent("Show structure took %s", d), nil
}

func trigger08(_ context.Context, s *kit.Session) (kit.Verdict, error) {
	if err := signIn(s); err != nil {
		return kit.Verdict{}, err
	}
	const typed = "O'Neil's favourite mug"
	if err := save(s, "customers", "3", "note", typed); err != nil {
		return kit.Verdict{}, err
	}
	if _, err := s.Goto(me(s, "select=customers")); err != nil {
		return kit.Verdict{}, err
	}
	text, err := s.Text("table#table")
	if err != nil {
		return kit.Verdict{}, err
	}
	if strings.Contains(text, typed) {
		return kit.Absent("Select data shows %q as typed", typed), nil
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "favourite") {
			return kit.Visible("typed %q, Select data shows %q", typed, strings.Join(strings.Fields(line), " ")), nil
		}
	}
	return kit.Visible("typed %q, Select data does not show it", typed), nil
}
