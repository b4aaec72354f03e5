package demoapp

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// BugID is the stable identifier of a seeded bug, e.g. "BUG-XSS-SEARCH".
// It appears in the bug's evidence so that a finding can be matched to the
// seeded bug from the evidence alone.
type BugID string

// Class is the oracle class a seeded bug belongs to: the kind of check an
// explorer needs in order to notice it.
type Class string

// The oracle classes. Every class has at least one seeded bug.
const (
	ClassPageError      Class = "page-error"      // uncaught JS exception
	ClassConsoleError   Class = "console-error"   // console.error message
	ClassHTTP5xx        Class = "http-5xx"        // a response with status >= 500
	ClassBrokenLink     Class = "broken-link"     // a same-origin link to a 404
	ClassErrorBanner    Class = "error-banner"    // a visible error banner / stack trace
	ClassXSS            Class = "xss"             // an injected script executes
	ClassLongInput      Class = "long-input"      // over-long input breaks the server
	ClassA11y           Class = "a11y"            // axe-core serious/critical violation
	ClassDoubleSubmit   Class = "double-submit"   // two clicks create two records
	ClassExpiredSession Class = "expired-session" // raw error instead of a sign-in redirect
	ClassSlowPage       Class = "slow-page"       // a response slower than ~3 s
	ClassDeadControl    Class = "dead-control"    // a control that does nothing
)

// The seeded bugs.
const (
	BugPageErrorWizard   BugID = "BUG-PAGEERR-WIZARD"
	BugConsoleSettings   BugID = "BUG-CONSOLE-SETTINGS"
	BugConsoleListPage2  BugID = "BUG-CONSOLE-LIST-PAGE2"
	Bug5xxSort           BugID = "BUG-5XX-SORT"
	Bug404ReleaseNotes   BugID = "BUG-404-RELEASE-NOTES"
	BugBannerExport      BugID = "BUG-BANNER-EXPORT"
	BugXSSSearch         BugID = "BUG-XSS-SEARCH"
	BugXSSProjectName    BugID = "BUG-XSS-PROJECT-NAME"
	BugLongName          BugID = "BUG-LONG-NAME"
	BugA11yIconButton    BugID = "BUG-A11Y-ICON-BUTTON"
	BugA11ySettingsLabel BugID = "BUG-A11Y-SETTINGS-LABEL"
	BugDoubleSubmit      BugID = "BUG-DOUBLE-SUBMIT"
	BugSessionExpired    BugID = "BUG-SESSION-EXPIRED"
	BugSlowReports       BugID = "BUG-SLOW-REPORTS"
	BugDeadSaveDraft     BugID = "BUG-DEAD-SAVE-DRAFT"
)

// BugHeader is the response header that carries the ids of the seeded bugs a
// response triggered on the server side (5xx, over-long input, XSS
// reflection, double submit, expired session, slow page, error banner,
// broken link). A page-health collector that records response headers sees
// it. Bugs that live only in the browser (JS errors, a11y, dead controls)
// carry their id in the console message or a data-bug attribute instead.
const BugHeader = "X-Demoapp-Bug"

// BugAttr is the HTML attribute that marks the element carrying a seeded bug
// whose evidence is an absence (a11y, dead control, double submit) or an
// injection point (XSS).
const BugAttr = "data-bug"

// Bug describes one seeded bug.
type Bug struct {
	ID    BugID
	Class Class
	Title string
	// Where is the page (path) the bug lives on.
	Where string
	// Trigger says how to reach and trigger it, step by step.
	Trigger string
	// Evidence says exactly where the id shows when the bug fires.
	Evidence string
	// Depth is the number of user steps after opening "/" needed to reach
	// the bug (sign-in counts as one).
	Depth int
}

// catalog is the single source of the bug table. It is a function so that
// every caller gets a fresh slice (no shared mutable state).
func catalog() []Bug {
	return []Bug{
		{
			ID: BugPageErrorWizard, Class: ClassPageError,
			Title:    "Checkout review step throws an uncaught exception",
			Where:    "/checkout/3",
			Trigger:  "sign in, open Checkout, choose a plan (step 1), fill billing (step 2), arrive on step 3",
			Evidence: "uncaught Error message \"BUG-PAGEERR-WIZARD: order summary is missing the billing plan\"",
			Depth:    4,
		},
		{
			ID: BugConsoleSettings, Class: ClassConsoleError,
			Title:    "Settings page logs a console error on load",
			Where:    "/settings",
			Trigger:  "sign in, open Settings",
			Evidence: "console.error message \"BUG-CONSOLE-SETTINGS: failed to load notification preferences\"",
			Depth:    2,
		},
		{
			ID: BugConsoleListPage2, Class: ClassConsoleError,
			Title:    "Projects list logs a console error from page 2 on",
			Where:    "/projects?page=2",
			Trigger:  "sign in, open Projects, go to page 2 (Next)",
			Evidence: "console.error message \"BUG-CONSOLE-LIST-PAGE2: cannot hydrate row … owner is undefined\"",
			Depth:    3,
		},
		{
			ID: Bug5xxSort, Class: ClassHTTP5xx,
			Title:    "Sorting projects by budget crashes the handler",
			Where:    "/projects?sort=budget",
			Trigger:  "sign in, open Projects, choose Sort: Budget and apply",
			Evidence: "HTTP 500 whose body contains \"BUG-5XX-SORT\"; header X-Demoapp-Bug: BUG-5XX-SORT",
			Depth:    3,
		},
		{
			ID: Bug404ReleaseNotes, Class: ClassBrokenLink,
			Title:    "Dashboard links to release notes that do not exist",
			Where:    "/dashboard",
			Trigger:  "sign in, follow \"What's new\" on the dashboard",
			Evidence: "404 path /release-notes/BUG-404-RELEASE-NOTES (the link's href); header X-Demoapp-Bug on the 404",
			Depth:    2,
		},
		{
			ID: BugBannerExport, Class: ClassErrorBanner,
			Title:    "Export shows a stack trace in an error banner",
			Where:    "/projects/export",
			Trigger:  "sign in, open Projects, click Export CSV",
			Evidence: "role=alert banner (data-testid=error-banner) text \"Export failed: BUG-BANNER-EXPORT …\" with a stack trace; header X-Demoapp-Bug",
			Depth:    3,
		},
		{
			ID: BugXSSSearch, Class: ClassXSS,
			Title:    "Search reflects the query unescaped",
			Where:    "/search?q=",
			Trigger:  "sign in, open Search, search for a script payload such as <img src=x onerror=window.__xss=1>",
			Evidence: "the payload runs inside <p data-bug=\"BUG-XSS-SEARCH\">; header X-Demoapp-Bug when the query holds markup",
			Depth:    3,
		},
		{
			ID: BugXSSProjectName, Class: ClassXSS,
			Title:    "Project detail renders the stored project name unescaped",
			Where:    "/projects/{id}",
			Trigger:  "sign in, create (or edit) a project whose name is a script payload, open the project",
			Evidence: "the payload runs inside <h1 data-bug=\"BUG-XSS-PROJECT-NAME\">; header X-Demoapp-Bug when the name holds markup",
			Depth:    4,
		},
		{
			ID: BugLongName, Class: ClassLongInput,
			Title:    "A project name over 100 characters makes the server fail",
			Where:    "/projects/new",
			Trigger:  "sign in, open New project, enter a name of more than 100 characters, submit",
			Evidence: "HTTP 500 page whose body contains \"BUG-LONG-NAME: value too long for column name\"; header X-Demoapp-Bug",
			Depth:    4,
		},
		{
			ID: BugA11yIconButton, Class: ClassA11y,
			Title:    "The projects list's refresh icon button has no accessible name",
			Where:    "/projects",
			Trigger:  "sign in, open Projects, run axe (rule button-name, critical)",
			Evidence: "attribute data-bug=\"BUG-A11Y-ICON-BUTTON\" on the offending <button data-testid=\"refresh-list\">",
			Depth:    2,
		},
		{
			ID: BugA11ySettingsLabel, Class: ClassA11y,
			Title:    "The settings time zone field has no label",
			Where:    "/settings",
			Trigger:  "sign in, open Settings, run axe (rule label, critical)",
			Evidence: "attribute data-bug=\"BUG-A11Y-SETTINGS-LABEL\" on the offending <input data-testid=\"settings-timezone\">",
			Depth:    2,
		},
		{
			ID: BugDoubleSubmit, Class: ClassDoubleSubmit,
			Title:    "Double-clicking Create makes two projects",
			Where:    "/projects/new",
			Trigger:  "sign in, open New project, fill the form, click Create twice quickly",
			Evidence: "the duplicate row in /projects carries data-bug=\"BUG-DOUBLE-SUBMIT\"; header X-Demoapp-Bug and a server log line on the second create",
			Depth:    4,
		},
		{
			ID: BugSessionExpired, Class: ClassExpiredSession,
			Title:    "A missing or expired session shows a raw error instead of the sign-in page",
			Where:    "every signed-in page",
			Trigger:  "sign in, clear cookies (or wait for the session to expire), reload a signed-in page",
			Evidence: "HTTP 500 text/plain body containing \"BUG-SESSION-EXPIRED\"; header X-Demoapp-Bug",
			Depth:    2,
		},
		{
			ID: BugSlowReports, Class: ClassSlowPage,
			Title:    "The reports page takes over 3 seconds",
			Where:    "/reports",
			Trigger:  "sign in, open Reports",
			Evidence: "response after Options.SlowDelay (3.5 s by default); header X-Demoapp-Bug and data-bug=\"BUG-SLOW-REPORTS\" on the report table",
			Depth:    2,
		},
		{
			ID: BugDeadSaveDraft, Class: ClassDeadControl,
			Title:    "Save draft on checkout step 2 does nothing",
			Where:    "/checkout/2",
			Trigger:  "sign in, open Checkout, choose a plan, on step 2 click Save draft",
			Evidence: "attribute data-bug=\"BUG-DEAD-SAVE-DRAFT\" on the <button data-testid=\"save-draft\">",
			Depth:    3,
		},
	}
}

// Bugs returns the seeded bugs in a stable order. The slice is a fresh copy.
func Bugs() []Bug { return catalog() }

// BugIDs returns the ids of all seeded bugs in the order of Bugs.
func BugIDs() []BugID {
	bugs := catalog()
	ids := make([]BugID, len(bugs))
	for i, b := range bugs {
		ids[i] = b.ID
	}
	return ids
}

// Lookup returns the seeded bug with the given id.
func Lookup(id BugID) (Bug, bool) {
	for _, b := range catalog() {
		if b.ID == id {
			return b, true
		}
	}
	return Bug{}, false
}

// ErrUnknownBug is returned (wrapped) when a bug id is not one of Bugs().
var ErrUnknownBug = errors.New("unknown demoapp bug id")

// ParseBugList parses a comma- or space-separated list of bug ids, such as
// the value of DEMOAPP_FIXED ("BUG-XSS-SEARCH,BUG-5XX-SORT"). The word "all"
// stands for every seeded bug; "none" and the empty string for no bug. Ids
// are case-insensitive. An unknown id is an error wrapping ErrUnknownBug.
func ParseBugList(s string) (map[BugID]bool, error) {
	out := map[BugID]bool{}
	known := BugIDs()
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		f = strings.ToUpper(strings.TrimSpace(f))
		switch f {
		case "":
			continue
		case "ALL":
			for _, id := range known {
				out[id] = true
			}
			continue
		case "NONE":
			continue
		}
		id := BugID(f)
		if !slices.Contains(known, id) {
			return nil, fmt.Errorf("demoapp: parse bug list: %q: %w", f, ErrUnknownBug)
		}
		out[id] = true
	}
	return out, nil
}
