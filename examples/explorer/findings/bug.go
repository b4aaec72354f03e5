package findings

import (
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/personas"
)

// Bug is one finding the team reported, deduplicated within a mission.
type Bug struct {
	ID          string `json:"id"`
	Fingerprint string `json:"fingerprint"`
	Kind        string `json:"kind"`
	// Severity: critical, major or minor (see severityOf).
	Severity string `json:"severity"`
	// Cause is the root-cause key the bug is deduplicated by (see cause.go).
	Cause string `json:"cause,omitempty"`
	// Symptoms are the other findings of the same cause in the same
	// action (the banner showing a failing request's body, its console
	// echo), each as "kind: message".
	Symptoms []string `json:"symptoms,omitempty"`
	Title    string   `json:"title"`
	URL      string   `json:"url"`
	Evidence string   `json:"evidence"`
	Persona  string   `json:"persona"`
	// Owner and Viewer name the users of a cross-user leak: whose data
	// showed on whose page (user names, never emails).
	Owner      string `json:"owner,omitempty"`
	Viewer     string `json:"viewer,omitempty"`
	Step       int    `json:"step"`
	TapeSeq    int64  `json:"tape_seq"`
	Screenshot string `json:"screenshot,omitempty"`
	Spec       string `json:"spec,omitempty"`
	// Trace is the bug's Playwright trace (trace_<id>.zip) in the
	// mission's report directory: npx playwright show-trace opens it.
	Trace      string `json:"trace,omitempty"`
	ReproSteps int    `json:"repro_steps,omitempty"`
	New        bool   `json:"new"`
	SeenCount  int    `json:"seen_count"`
	// Seen counts this mission's actions in which the cause showed (the
	// first included); Sightings are the later ones (at most
	// maxSightings), in tape order: each a longer way to the bug than the
	// first, which the spec reproduces.
	Seen      int        `json:"seen,omitempty"`
	Sightings []Sighting `json:"sightings,omitempty"`

	// ReproFullSteps is the length of the full tape up to the bug, which
	// the minimiser cut down to ReproSteps in ReproReplays replays (both
	// zero when minimisation is off).
	ReproFullSteps int `json:"repro_full_steps,omitempty"`
	ReproReplays   int `json:"repro_replays,omitempty"`
}

// Sighting is one more action of a mission in which a bug's cause showed.
type Sighting struct {
	Step    int    `json:"step"`
	TapeSeq int64  `json:"tape_seq"`
	Persona string `json:"persona"`
	URL     string `json:"url"`
}

// maxSightings bounds a bug's list of sightings.
const MaxSightings = 10

var bugKinds = map[browser.FindingKind]string{
	browser.FindPageError: "Uncaught exception", browser.FindConsoleError: "Console error", browser.FindRequestFailed: "Request failed",
	browser.FindServerError: "Server error", browser.FindNotFound: "Broken link (404)", browser.FindErrorBanner: "Error banner",
	browser.FindStackTrace: "Stack trace on the page", browser.FindSpinner: "Spinner never settles", collector.FindXSS: "Cross-site scripting",
	collector.FindA11y: "Accessibility violation", collector.FindDeadControl: "Dead control", collector.FindSlow: "Slow response", collector.FindDuplicate: "Duplicate submission accepted",
	collector.FindDuplicateRow: "Duplicate record", browser.FindUnresponsive: "Page unresponsive", FindCrossUser: "Cross-user data leak",
}

// bugEvidence is a finding's evidence as a bug reports it: the message
// first, then the evidence.
func BugEvidence(f browser.Finding) string {
	switch {
	case f.Evidence == "":
		return f.Message
	case !strings.Contains(f.Evidence, f.Message):
		return f.Message + " — " + f.Evidence
	}
	return f.Evidence
}

// FindCrossUser is a page of one user showing a value another user typed
// (that user's record): private data crossing accounts.
const FindCrossUser browser.FindingKind = "cross_user_leak"

// crossLeak is one sighting of another user's marker.
type CrossLeak struct {
	Owner, Viewer, Marker, Page string
}

// crossUserCause is the cause key of a leak: the page template and the
// pair of users (either way round), so one cause is one report.
func crossUserCause(f browser.Finding, l CrossLeak, page string) string {
	pair := []string{l.Owner, l.Viewer}
	slices.Sort(pair)
	return "xuser|" + personas.URLTemplate(urlx.Path(FirstNonEmpty(f.URL, page))) + "|" + strings.Join(pair, "+")
}

// findingBug is the bug the explorer files for a finding (same filters,
// title and evidence), without memory, screenshot or spec.
func FindingBug(f browser.Finding, pageURL string) (Bug, bool) {
	title, ok := bugKinds[f.Kind]
	// The collector reports every 5xx with its body; the browser's copy
	// without one is skipped.
	if !ok || (f.Kind == browser.FindServerError && (!strings.Contains(f.Evidence, "body:") || strings.Contains(f.Evidence, collector.FailurePrefix))) || echoOfLoad(f) {
		return Bug{}, false
	}
	page := f.URL
	if page == "" {
		page = pageURL
	}
	evidence := BugEvidence(f)
	cause := RootCause(f, page)
	return Bug{Fingerprint: memory.CauseFingerprint(string(f.Kind), cause), Cause: cause, Kind: string(f.Kind), Severity: SeverityOf(string(f.Kind)),
		Title: title + " on " + urlx.Path(page) + ": " + clip.String(f.Message, 120), URL: page, Evidence: evidence, New: true, SeenCount: 1}, true
}
