package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/safefile"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// replayable keeps the entries a spec replays: successful actions that act
// on the page.
func Replayable(tl []TimelineEntry, upTo int64) []browser.Entry {
	var out []browser.Entry
	for _, t := range tl {
		e := t.Entry
		if e.Seq > upTo {
			break
		}
		switch e.Action {
		case browser.ActSnapshot, browser.ActScreenshot, browser.ActCheckHealth, browser.ActExtractText:
			continue
		}
		// A failed step is left out, but for the bug's own: a click that
		// timed out on a slow page still took the recording there.
		if !e.OK && e.Seq != upTo {
			continue
		}
		out = append(out, e)
	}
	return out
}

// SpecName is the file name of a bug's reproduction.
func SpecName(bugID string) string { return "reproduction_" + bugID + ".spec.ts" }

type SummaryJSON struct {
	ThreadID   string         `json:"thread_id"`
	Prompt     string         `json:"prompt"`
	Team       string         `json:"team"`
	Target     string         `json:"target"`
	Steps      int            `json:"steps"`
	DurationMS int64          `json:"duration_ms"`
	Bugs       []findings.Bug `json:"bugs"`
	NewBugs    int            `json:"new_bugs"`
	Explored   []string       `json:"explored"`
	Demo       *DemoScore     `json:"demo,omitempty"`
	Usage      *Usage         `json:"usage,omitempty"`
	Retries    int            `json:"retries,omitempty"`
	Error      string         `json:"error,omitempty"`
	Coverage   *Coverage      `json:"coverage,omitempty"`
}

func MissionSummary(r MissionResult) SummaryJSON {
	n := 0
	for _, b := range r.Bugs {
		if b.New {
			n++
		}
	}
	bugs := r.Bugs
	if bugs == nil {
		bugs = []findings.Bug{}
	}
	return SummaryJSON{ThreadID: r.Mission.ThreadID, Prompt: r.Mission.Prompt, Team: r.Team, Target: r.Target, Steps: r.Steps,
		DurationMS: r.Duration.Milliseconds(), Bugs: bugs, NewBugs: n, Explored: r.Explored, Demo: r.Demo, Usage: r.Usage, Retries: r.Retries, Error: r.Err, Coverage: r.Coverage.summary()}
}

func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, append(b, '\n'), 0o600)
}

// batchSummary is the batch's summary.json (the report directory's top
// level); merge-reports reads and writes it too.
type batchSummary struct {
	// RunID names the run in memory (Result.RunID).
	RunID      string `json:"run_id,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// Verified are a --regression run's replays (Result.Verified).
	Verified []Verification `json:"verified,omitempty"`
	Missions []SummaryJSON  `json:"missions"`
	Bugs     int            `json:"bugs"`
	NewBugs  int            `json:"new_bugs"`
	Demo     *DemoScore     `json:"demo,omitempty"`
	Usage    *Usage         `json:"usage,omitempty"`
	// Shard is the batch's share of the missions ("i/n"), when sharded.
	Shard string `json:"shard,omitempty"`
}

func WriteBatchSummary(path string, res Result) error {
	out := batchSummary{RunID: res.RunID, Verified: res.Verified, DurationMS: res.Duration.Milliseconds(), Bugs: res.Bugs(), NewBugs: res.NewBugs(), Demo: res.Demo, Usage: res.Usage, Shard: res.Shard}
	for _, m := range res.Missions {
		out.Missions = append(out.Missions, MissionSummary(m))
	}
	return WriteJSON(path, out)
}

func Markdown(r MissionResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Test report: %s\n\n", r.Mission.ThreadID)
	fmt.Fprintf(&b, "- Mission: %s\n- Team: %s\n- Target: %s\n- Steps: %d\n- Duration: %s\n- Bugs: %d\n", r.Mission.Prompt, r.Team, r.Target, r.Steps, r.Duration.Round(time.Millisecond), len(r.Bugs))
	if r.Demo != nil {
		fmt.Fprintf(&b, "- Demo app: found %d of %d seeded bugs: %s\n", len(r.Demo.Found), len(r.Demo.Seeded), strings.Join(r.Demo.Found, ", "))
	}
	if r.Err != "" {
		fmt.Fprintf(&b, "- Error: %s\n", r.Err)
	}
	if r.Analysis != "" {
		fmt.Fprintf(&b, "\n## Analysis (written by the reporter model)\n\n%s\n", r.Analysis)
	}
	b.WriteString("\n## Findings\n\n| id | severity | kind | page | persona | new | reproduction |\n|---|---|---|---|---|---|---|\n")
	for _, bug := range r.Bugs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %v | %s |\n", bug.ID, bug.Severity, bug.Kind, urlx.PathQuery(bug.URL), bug.Persona, bug.New, bug.Spec)
	}
	for _, bug := range r.Bugs {
		fmt.Fprintf(&b, "\n### %s — %s\n\n- Page: %s\n- Found by %s at step %d (tape #%d)\n", bug.ID, bug.Title, bug.URL, bug.Persona, bug.Step, bug.TapeSeq)
		if bug.Owner != "" {
			fmt.Fprintf(&b, "- Users: %s's data on %s's page\n", bug.Owner, bug.Viewer)
		}
		if bug.Screenshot != "" {
			fmt.Fprintf(&b, "- Screenshot: [%s](%s)\n", bug.Screenshot, bug.Screenshot)
		}
		if bug.Spec != "" {
			fmt.Fprintf(&b, "- Reproduction: `%s` (%d steps", bug.Spec, bug.ReproSteps)
			if bug.ReproFullSteps > bug.ReproSteps {
				fmt.Fprintf(&b, ", minimised from %d", bug.ReproFullSteps)
			}
			b.WriteString(")\n")
		}
		for _, sy := range bug.Symptoms {
			fmt.Fprintf(&b, "- Symptom: %s\n", sy)
		}
		if bug.Seen > 1 {
			fmt.Fprintf(&b, "- Seen in %d actions of this run; later at %s\n", bug.Seen, sightingsText(bug.Sightings))
		}
		fmt.Fprintf(&b, "\nEvidence:\n\n```\n%s\n```\n", strings.ReplaceAll(bug.Evidence, "```", "'''"))
	}
	b.WriteString("\n## Explored pages\n\n")
	for _, p := range r.Explored {
		fmt.Fprintf(&b, "- %s\n", p)
	}
	if c := r.Coverage; c != nil {
		b.WriteString(c.markdown())
	}
	return b.String()
}

// sightingsText lists sightings as "step 12 (/path), step 30 (/other)".
func sightingsText(ss []findings.Sighting) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = fmt.Sprintf("step %d (%s)", s.Step, urlx.PathQuery(s.URL))
	}
	return strings.Join(parts, ", ")
}

func WriteHTML(path string, r MissionResult) error {
	b, err := renderHTML(r)
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, b, 0o600)
}

type JunitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Tests   int          `xml:"tests,attr"`
	Fail    int          `xml:"failures,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name  string      `xml:"name,attr"`
	Tests int         `xml:"tests,attr"`
	Fail  int         `xml:"failures,attr"`
	Time  float64     `xml:"time,attr"`
	Cases []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Class   string        `xml:"classname,attr"`
	Failure *junitFailure `xml:"failure,omitempty"`
	Skipped *junitSkipped `xml:"skipped,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes one suite per mission: a test case per bug (failed) and
// one for the mission itself (failed when it errored); a regression run
// adds a suite of its replays (see Verification).
func WriteJUnit(path string, res Result) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	var out JunitSuites
	for _, m := range res.Missions {
		s := junitSuite{Name: m.Mission.ThreadID, Time: m.Duration.Seconds()}
		c := junitCase{Name: "mission " + m.Mission.ThreadID, Class: "explorer." + m.Mission.ThreadID}
		if m.Err != "" {
			c.Failure = &junitFailure{Message: m.Err, Type: "error"}
		}
		s.Cases = append(s.Cases, c)
		for _, b := range m.Bugs {
			s.Cases = append(s.Cases, junitCase{Name: b.ID + ": " + b.Title, Class: "explorer." + m.Mission.ThreadID,
				Failure: &junitFailure{Message: "[" + b.Severity + "] " + b.Title, Type: b.Kind, Text: b.Evidence}})
		}
		for _, c := range s.Cases {
			if c.Failure != nil {
				s.Fail++
			}
		}
		s.Tests = len(s.Cases)
		out.Tests += s.Tests
		out.Fail += s.Fail
		out.Suites = append(out.Suites, s)
	}
	if len(res.Verified) > 0 {
		// A regression run: one case per remembered bug, failing while
		// its reproduction still shows it.
		s := junitSuite{Name: "regression"}
		for _, v := range res.Verified {
			c := junitCase{Name: v.Fingerprint + ": " + findings.FirstNonEmpty(v.Title, v.Kind), Class: "explorer.regression"}
			switch {
			case v.Reproduced():
				c.Failure = &junitFailure{Message: v.Verdict + ": " + findings.FirstNonEmpty(v.Title, v.Kind), Type: v.Kind, Text: v.URL}
				s.Fail++
			case v.Verdict == VerdictNotReplayable:
				c.Skipped = &junitSkipped{Message: v.Note}
			}
			s.Cases = append(s.Cases, c)
		}
		s.Tests = len(s.Cases)
		out.Tests += s.Tests
		out.Fail += s.Fail
		out.Suites = append(out.Suites, s)
	}
	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o600)
}

// playwrightConfigTS is the playwright.config.ts of a mission's report
// directory: `BASE_URL=https://staging.example npx playwright test` there
// replays the reproductions anywhere (default: the target explored). With
// AGENTGRAPH_CHROMIUM set (scripts/env.sh sets it) the specs run in that
// Chromium, as they do offline here; otherwise in Playwright's own.
func PlaywrightConfigTS(target string) string {
	return `// Generated by agentgraph's explorer: the reproductions of this report.
// Run: BASE_URL=<the app's origin> npx playwright test   (default: the app explored)
import { defineConfig } from '@playwright/test';

const chromium = process.env.AGENTGRAPH_CHROMIUM;

export default defineConfig({
  testDir: '.',
  testMatch: 'reproduction_*.spec.ts',
  retries: 0,
  timeout: 60000,
  reporter: 'list',
  use: {
    baseURL: process.env.BASE_URL || ` + jsQuoted(target) + `,
    browserName: 'chromium',
    headless: true,
    trace: 'retain-on-failure',
    ...(chromium ? { launchOptions: { executablePath: chromium, args: ['--no-sandbox', '--disable-gpu'] } } : {}),
  },
});
`
}

// jsQuoted is s as a single-quoted JavaScript string.
func jsQuoted(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`, "\u2028", `\u2028`, "\u2029", `\u2029`, "<", `\x3c`)
	return "'" + r.Replace(s) + "'"
}
