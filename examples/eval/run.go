package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/mxschmitt/playwright-go"
	"github.com/tmc/langchaingo/llms"
)

// Runner grades an agent on a suite.
type Runner struct {
	Harness *Harness
	Suite   *Suite
	Agent   Agent
	// BaseURL overrides the suite's base URL.
	BaseURL string
	// Trials overrides the suite's trials per task when > 0.
	Trials int
	// Judge, when set, answers the judge checks; without it they do not
	// apply (see Gate).
	Judge llms.Model
	// Record stores missing reference screenshots.
	Record bool
	// Gate overrides the suite's gate when not nil.
	Gate   *Gate
	Logger *slog.Logger
}

// Verdict is whether a grader passed; NA when it did not apply.
type Verdict string

// Verdicts.
const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
	NA   Verdict = "n/a"
)

func verdict(ok bool) Verdict {
	if ok {
		return Pass
	}
	return Fail
}

// Row is the score of one trial.
type Row struct {
	Task    string        `json:"task"`
	Trial   int           `json:"trial"`
	Claimed bool          `json:"claimed"`
	Answer  string        `json:"answer,omitempty"`
	Steps   int           `json:"steps"`
	CostUSD float64       `json:"cost_usd"`
	DOM     Verdict       `json:"dom"`
	DOMRes  []DOMResult   `json:"dom_results,omitempty"`
	Visual  Verdict       `json:"visual"`
	VisRes  *VisualResult `json:"visual_result,omitempty"`
	Judge   Verdict       `json:"judge"`
	JudRes  *JudgeResult  `json:"judge_result,omitempty"`
	Pass    bool          `json:"pass"`
	// FalseClaim: the agent claimed success and the graders disagree.
	FalseClaim bool   `json:"false_claim"`
	FinalURL   string `json:"final_url"`
	Error      string `json:"error,omitempty"`
	Millis     int64  `json:"ms"`
}

// TaskSummary aggregates a task's trials.
type TaskSummary struct {
	Task      string  `json:"task"`
	Trials    int     `json:"trials"`
	Passes    int     `json:"passes"`
	Pass      bool    `json:"pass"` // a majority of trials passed
	Rate      float64 `json:"success_rate"`
	MeanSteps float64 `json:"mean_steps"`
	// CostPerSuccess is the total cost of the trials over the passes (0
	// with no pass).
	CostPerSuccess float64 `json:"cost_per_success_usd"`
	FalseClaims    int     `json:"false_claims"`
}

// Report is a suite run.
type Report struct {
	Suite   string        `json:"suite"`
	Agent   string        `json:"agent"`
	Gate    Gate          `json:"gate"`
	Judge   bool          `json:"judge"`
	Started time.Time     `json:"started"`
	Rows    []Row         `json:"rows"`
	Tasks   []TaskSummary `json:"tasks"`
	Total   TaskSummary   `json:"total"`
	// FalseClaims lists "task#trial: why" for every wrong self-reported
	// success.
	FalseClaims []string `json:"false_claims"`
}

// Run runs every task Trials times and grades each trial.
func (r *Runner) Run(ctx context.Context) (*Report, error) {
	if r.Harness == nil || r.Suite == nil || r.Agent == nil {
		return nil, fmt.Errorf("eval: runner needs a harness, a suite and an agent")
	}
	log := r.Logger
	if log == nil {
		log = slog.Default()
	}
	gate := r.Suite.Gate
	if r.Gate != nil {
		gate = *r.Gate
	}
	if gate.Evidence == "" {
		gate.Evidence = EvidenceAny
	}
	if gate.DOM == nil {
		dom := true
		gate.DOM = &dom
	}
	trials := r.Suite.Trials
	if r.Trials > 0 {
		trials = r.Trials
	}
	rep := &Report{Suite: r.Suite.Name, Agent: r.Agent.Name(), Gate: gate, Judge: r.Judge != nil, Started: time.Now().UTC()}
	for _, t := range r.Suite.Tasks {
		var rows []Row
		for i := 1; i <= trials; i++ {
			if err := ctx.Err(); err != nil {
				return rep, fmt.Errorf("eval: %w", err)
			}
			row := r.trial(ctx, t, i, gate)
			log.Info("trial", "task", t.ID, "trial", i, "pass", row.Pass, "claimed", row.Claimed, "steps", row.Steps, "err", row.Error)
			rows = append(rows, row)
		}
		rep.Rows = append(rep.Rows, rows...)
		rep.Tasks = append(rep.Tasks, summarise(t.ID, rows))
	}
	rep.Total = summarise("all", rep.Rows)
	rep.Total.Pass = true
	for _, ts := range rep.Tasks {
		rep.Total.Pass = rep.Total.Pass && ts.Pass
	}
	for _, row := range rep.Rows {
		if row.FalseClaim {
			rep.FalseClaims = append(rep.FalseClaims, fmt.Sprintf("%s#%d: %s", row.Task, row.Trial, whyFailed(row)))
		}
	}
	return rep, nil
}

// trial runs and grades one trial. row is a named result so that the
// deferred timing reaches the returned value on every path.
func (r *Runner) trial(ctx context.Context, t Task, n int, gate Gate) (row Row) {
	start := time.Now()
	row = Row{Task: t.ID, Trial: n, DOM: NA, Visual: NA, Judge: NA}
	defer func() { row.Millis = time.Since(start).Milliseconds() }()
	startURL, err := r.Suite.StartURL(t, r.BaseURL)
	if err != nil {
		row.Error = err.Error()
		return row
	}
	frozen, _ := r.Suite.Frozen()
	eng, sess, page, err := r.Harness.Open(ctx, r.Suite.Viewport, startURL, PageOptions{Frozen: frozen})
	if err != nil {
		row.Error = err.Error()
		return row
	}
	defer eng.Close()
	if res := sess.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: startURL}); !res.OK {
		row.Error = "start: " + res.Error
		return row
	}
	if err := RunSetup(ctx, sess, t.Setup); err != nil {
		row.Error = err.Error()
		row.FinalURL = page.URL()
		return row
	}
	claim, err := r.Agent.Attempt(ctx, Stage{Task: t, StartURL: startURL, Session: sess, Page: page})
	if err != nil {
		row.Error = err.Error()
	}
	row.Claimed, row.Answer, row.Steps, row.CostUSD = claim.Success, claim.Answer, claim.Steps, claim.CostUSD
	if claim.Page != nil && claim.Page != page {
		page = claim.Page
		defer func() { _ = claim.Page.Close() }()
	}
	row = r.grade(ctx, t, page, row, gate)
	row.FalseClaim = row.Claimed && !row.Pass
	return row
}

func (r *Runner) grade(ctx context.Context, t Task, page playwright.Page, row Row, gate Gate) Row {
	row.FinalURL = page.URL()
	domOK := true
	if len(t.Checks.DOM) > 0 {
		row.DOMRes = GradeDOM(ctx, page, t.Checks.DOM)
		for _, d := range row.DOMRes {
			domOK = domOK && d.Pass
		}
		row.DOM = verdict(domOK)
	}
	if v := t.Checks.Visual; v != nil {
		shot, err := page.Screenshot(playwright.PageScreenshotOptions{Animations: playwright.ScreenshotAnimationsDisabled, Caret: playwright.ScreenshotCaretHide})
		var vr VisualResult
		if err != nil {
			vr = VisualResult{Error: "screenshot: " + firstLine(err)}
		} else {
			vr = GradeVisual(shot, *v, r.Suite.Dir, r.Record, RefMeta{RecordedAt: time.Now().UTC(), Viewport: r.Suite.Viewport, URL: page.URL()})
		}
		row.VisRes, row.Visual = &vr, verdict(vr.Pass)
	}
	if j := t.Checks.Judge; j != nil && r.Judge != nil {
		text, _ := page.Locator("body").InnerText(playwright.LocatorInnerTextOptions{Timeout: playwright.Float(2000)})
		claim := fmt.Sprintf("success=%v answer=%q", row.Claimed, row.Answer)
		in := JudgeInput{Task: t.Task, Question: j.Question, Ref: j.Reference, Claim: claim, URL: page.URL(), PageText: text}
		if j.Screenshot {
			shot, err := page.Screenshot(playwright.PageScreenshotOptions{Timeout: playwright.Float(5000), Animations: playwright.ScreenshotAnimationsDisabled, Caret: playwright.ScreenshotCaretHide})
			if err == nil {
				in.Screenshot = shot
			}
		}
		jr := GradeJudge(ctx, r.Judge, in)
		row.JudRes, row.Judge = &jr, verdict(jr.Pass)
	}
	row.Pass = Decide(gate, row.DOM, row.Visual, row.Judge) && row.Error == ""
	return row
}

// RunSetup runs a task's set-up steps on sess, in order, before the agent
// acts: intents through Session.Run (recorded on the session's tape like any
// action, but not counted as the agent's steps), JavaScript through
// Session.Evaluate bounded by JSTimeout. The first failure stops it.
func RunSetup(ctx context.Context, sess *browser.Session, steps []SetupStep) error {
	for i, st := range steps {
		if st.JS != "" {
			jctx, cancel := context.WithTimeout(ctx, JSTimeout)
			_, err := sess.Evaluate(jctx, st.JS, nil)
			cancel()
			if err != nil {
				return fmt.Errorf("setup step %d (%s): %v", i+1, clipText(st.String(), 120), err)
			}
			continue
		}
		if res := sess.Run(ctx, st.Intent); !res.OK {
			return fmt.Errorf("setup step %d (%s): %s", i+1, clipText(st.String(), 120), res.Error)
		}
	}
	return nil
}

// Decide applies the gate to the graders' verdicts: DOM (when required and
// applicable) AND the evidence of visual and judge (NA ones left out).
func Decide(g Gate, dom, visual, judge Verdict) bool {
	if g.RequireDOM() && dom == Fail {
		return false
	}
	var ev []Verdict
	for _, v := range []Verdict{visual, judge} {
		if v != NA {
			ev = append(ev, v)
		}
	}
	switch g.Evidence {
	case EvidenceNone:
		return true
	case EvidenceAll:
		for _, v := range ev {
			if v == Fail {
				return false
			}
		}
		return true
	default: // any
		if len(ev) == 0 {
			return true
		}
		for _, v := range ev {
			if v == Pass {
				return true
			}
		}
		return false
	}
}

func summarise(task string, rows []Row) TaskSummary {
	s := TaskSummary{Task: task, Trials: len(rows)}
	steps, cost := 0, 0.0
	for _, r := range rows {
		if r.Pass {
			s.Passes++
		}
		if r.FalseClaim {
			s.FalseClaims++
		}
		steps += r.Steps
		cost += r.CostUSD
	}
	if s.Trials > 0 {
		s.Rate = float64(s.Passes) / float64(s.Trials)
		s.MeanSteps = float64(steps) / float64(s.Trials)
	}
	if s.Passes > 0 {
		s.CostPerSuccess = cost / float64(s.Passes)
	}
	s.Pass = s.Passes*2 > s.Trials
	return s
}

func whyFailed(r Row) string {
	var why []string
	for _, d := range r.DOMRes {
		if !d.Pass {
			why = append(why, fmt.Sprintf("%s (got %s)", d.Check, d.Got))
		}
	}
	if r.VisRes != nil && !r.VisRes.Pass {
		if r.VisRes.Error != "" {
			why = append(why, "visual: "+r.VisRes.Error)
		} else {
			why = append(why, fmt.Sprintf("visual: ssim %.3f < %.2f", r.VisRes.SSIM, r.VisRes.Threshold))
		}
	}
	if r.JudRes != nil && !r.JudRes.Pass {
		why = append(why, fmt.Sprintf("judge: %d/%d yes", r.JudRes.Yes, JudgeVotes))
	}
	if r.Error != "" {
		why = append(why, "error: "+r.Error)
	}
	return strings.Join(why, "; ")
}

// Table renders the per-task table (markdown, also fine on a terminal).
func (rep *Report) Table() string {
	var b strings.Builder
	b.WriteString("| task | pass | success rate | mean steps | mean cost per success | false claims |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	line := func(s TaskSummary) {
		mark := "FAIL"
		if s.Pass {
			mark = "ok"
		}
		fmt.Fprintf(&b, "| %s | %s | %d/%d (%.0f%%) | %.1f | $%.4f | %d |\n", s.Task, mark, s.Passes, s.Trials, 100*s.Rate, s.MeanSteps, s.CostPerSuccess, s.FalseClaims)
	}
	for _, s := range rep.Tasks {
		line(s)
	}
	line(rep.Total)
	return b.String()
}

// Markdown is the full report: the table, the wrong self-reported successes
// and every trial's graders.
func (rep *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Eval report: %s\n\nAgent: %s · gate: DOM %v AND evidence %s · judge: %v · %s\n\n", rep.Suite, rep.Agent, rep.Gate.RequireDOM(), rep.Gate.Evidence, rep.Judge, rep.Started.Format(time.RFC3339))
	b.WriteString(rep.Table())
	fmt.Fprintf(&b, "\n## Self-reported success that was wrong (%d)\n\n", len(rep.FalseClaims))
	if len(rep.FalseClaims) == 0 {
		b.WriteString("None.\n")
	}
	for _, f := range rep.FalseClaims {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	b.WriteString("\n## Trials\n\n| task | trial | claimed | pass | dom | visual | judge | steps | final URL |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rep.Rows {
		vis := string(r.Visual)
		if r.VisRes != nil && r.VisRes.Error == "" {
			vis = fmt.Sprintf("%s (ssim %.3f, mismatch %.3f)", r.Visual, r.VisRes.SSIM, r.VisRes.Mismatch)
		}
		fmt.Fprintf(&b, "| %s | %d | %v | %v | %s | %s | %s | %d | %s |\n", r.Task, r.Trial, r.Claimed, r.Pass, r.DOM, vis, r.Judge, r.Steps, r.FinalURL)
	}
	return b.String()
}

// Write stores the report as report.json and report.md in dir.
func (rep *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(rep.Markdown()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
