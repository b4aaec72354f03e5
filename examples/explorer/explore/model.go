package explore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/state"
)

// Models drive the team with a model. A nil role keeps that part offline:
// no Supervisor, the rule policy routes; no Persona, the heuristic personas
// act; no Reporter, test_report.md is the template.
type Models struct {
	Supervisor llms.Model
	Persona    llms.Model
	Reporter   llms.Model
	// Vision answers the personas' analyze_visual_state calls (a
	// screenshot and a question); nil uses Persona, which must then accept
	// images.
	Vision llms.Model
	// Meter, when the models record into it (llm.Factory's models do),
	// gives each mission's and the batch's usage and cost in summary.json.
	Meter *llm.Meter
}

// ModelsFromFactory builds the supervisor, persona and reporter models of
// f (one provider, role tiers, a shared meter). It fails when f is offline.
func ModelsFromFactory(ctx context.Context, f *llm.Factory) (*Models, error) {
	if f == nil || f.Detection.IsOffline() {
		return nil, fmt.Errorf("explore: models: %w", llm.ErrOffline)
	}
	ms := &Models{Meter: f.Meter}
	for _, r := range []struct {
		role llm.Role
		dst  *llms.Model
	}{{llm.RoleSupervisor, &ms.Supervisor}, {llm.RolePersona, &ms.Persona}, {llm.RoleReporter, &ms.Reporter}} {
		m, err := f.For(ctx, r.role)
		if err != nil {
			return nil, fmt.Errorf("explore: models: %w", err)
		}
		*r.dst = m
	}
	return ms, nil
}

func (ms *Models) supervisor() llms.Model {
	if ms == nil {
		return nil
	}
	return ms.Supervisor
}

func (ms *Models) vision() llms.Model {
	if ms == nil {
		return nil
	}
	if ms.Vision != nil {
		return ms.Vision
	}
	return ms.Persona
}

func (ms *Models) persona() llms.Model {
	if ms == nil {
		return nil
	}
	return ms.Persona
}

func (ms *Models) reporter() llms.Model {
	if ms == nil {
		return nil
	}
	return ms.Reporter
}

// usageSnapshot reads the meter (nil without one).
func (ms *Models) usageSnapshot() *report.Usage {
	if ms == nil || ms.Meter == nil {
		return nil
	}
	return newUsage(ms.Meter.ByRole())
}

func newUsage(byRole map[llm.Role]llm.Usage) *report.Usage {
	u := &report.Usage{ByRole: map[string]report.RoleUsage{}, ByRoleRaw: byRole}
	for r, v := range byRole {
		u.ByRole[string(r)] = report.RoleUsage{Calls: v.Calls, InputTokens: v.InputTokens, OutputTokens: v.OutputTokens, CostUSD: v.CostUSD}
		u.Calls += v.Calls
		u.InputTokens += v.InputTokens
		u.OutputTokens += v.OutputTokens
		u.CostUSD += v.CostUSD
	}
	return u
}

// usageSince is the usage recorded after before (missions run one at a
// time, so the difference is the mission's).
func (ms *Models) usageSince(before *report.Usage) *report.Usage {
	now := ms.usageSnapshot()
	if now == nil {
		return nil
	}
	if before == nil {
		return now
	}
	diff := map[llm.Role]llm.Usage{}
	for r, v := range now.ByRoleRaw {
		b := before.ByRoleRaw[r]
		d := llm.Usage{Calls: v.Calls - b.Calls, InputTokens: v.InputTokens - b.InputTokens, OutputTokens: v.OutputTokens - b.OutputTokens,
			CachedInputTokens: v.CachedInputTokens - b.CachedInputTokens, ReasoningTokens: v.ReasoningTokens - b.ReasoningTokens, CostUSD: v.CostUSD - b.CostUSD}
		if d.Calls > 0 {
			diff[r] = d
		}
	}
	return newUsage(diff)
}

// supervisorSystem is the model supervisor's standing instruction.
const supervisorSystem = `You are the supervisor of a team of QA personas exploring a web application in a real browser to find bugs.
After every persona turn you decide who acts next: call the choose tool with exactly one persona name, or FINISH when the mission is done,
the app is covered, or nobody has anything useful left to try. Prefer personas whose focus fits unexplored or high-risk pages;
do not send a persona that just came back idle or looping to the same area again.`

// superviseModel routes with the supervisor model: llm.Choose over the
// team's persona names and FINISH, given a compact routing brief. It
// returns false when the model failed, and the rule policy routes this turn.
func (mr *missionRun) superviseModel(ctx context.Context, s State) (State, bool) {
	options := make([]string, 0, len(mr.team)+1)
	for _, m := range mr.team {
		options = append(options, m.p.Name)
	}
	options = append(options, Finish)
	brief := mr.routingBrief(ctx, s)
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, supervisorSystem),
		llms.TextParts(llms.ChatMessageTypeHuman, brief),
	}
	c, err := llm.Choose(ctx, mr.cfg.Models.Supervisor, msgs, options)
	if err != nil {
		mr.trace.Warn("route: the supervisor model failed; the rule policy routes this turn", "err", err)
		return State{}, false
	}
	mr.trace.Info("route", "next", c.Option, "by", "model", "reason", clip.String(c.Reason, 300), "steps", s.Steps)
	msg := fmt.Sprintf("route → %s (model: %s). Mission: %s. Progress: %d/%d steps, %d bugs, %d pages explored.",
		c.Option, clip.String(strings.TrimSpace(c.Reason), 300), mr.m.Prompt, s.Steps, mr.budget, len(s.Bugs), len(s.Explored))
	return State{Next: c.Option, Turns: s.Turns + 1, Messages: []state.Message{{ID: state.NewID(), Role: state.RoleAI, Name: NodeSupervisor, Content: msg}}}, true
}

// routingBrief is the supervisor model's input: mission, progress, bugs so
// far, explored paths, memory context, high-risk pages and the latest turns,
// each capped.
func (mr *missionRun) routingBrief(ctx context.Context, s State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Mission: %s\n", mr.m.Prompt)
	fmt.Fprintf(&b, "Progress: %d of %d browser steps used, %d persona turns, %d bugs, %d pages explored.\n", s.Steps, mr.budget, s.Turns, len(s.Bugs), len(s.Explored))
	b.WriteString("Team:\n")
	for _, m := range mr.team {
		fmt.Fprintf(&b, "- %s: %s (focus: %s)", m.p.Name, m.p.Role, strings.Join(m.p.Focus, ", "))
		if n := mr.idle[m.p.Name]; n > 0 {
			fmt.Fprintf(&b, " — came back idle %d× in a row", n)
		}
		b.WriteString("\n")
	}
	if len(s.Bugs) > 0 {
		b.WriteString("Bugs so far:\n")
		for _, bug := range capList(s.Bugs, 15) {
			fmt.Fprintf(&b, "- %s %s\n", bug.ID, clip.String(bug.Title, 140))
		}
	}
	if len(s.Explored) > 0 {
		ex := s.Explored
		if len(ex) > 30 {
			ex = ex[len(ex)-30:]
		}
		fmt.Fprintf(&b, "Explored paths (%d, latest last): %s\n", len(s.Explored), strings.Join(ex, ", "))
	}
	var open []string
	for _, l := range mr.cov.frontier {
		if !mr.cov.explored(l) && len(open) < 12 {
			open = append(open, l)
		}
	}
	if len(open) > 0 {
		fmt.Fprintf(&b, "Links seen but not explored: %s\n", strings.Join(open, ", "))
	}
	if len(mr.cov.priority) > 0 {
		fmt.Fprintf(&b, "High-risk pages from memory: %s\n", strings.Join(mr.cov.priority, ", "))
	}
	if memCtx, err := mr.qa.SupervisorContext(ctx, 1500); err == nil && strings.TrimSpace(memCtx) != "" {
		fmt.Fprintf(&b, "Memory of earlier sessions:\n%s\n", memCtx)
	}
	var turns []string
	for _, m := range s.Messages {
		if m.Role == state.RoleAI && m.Name != NodeSupervisor {
			turns = append(turns, "- "+clip.String(m.Content, 300))
		}
	}
	if len(turns) > 4 {
		turns = turns[len(turns)-4:]
	}
	if len(turns) > 0 {
		b.WriteString("Latest turns:\n" + strings.Join(turns, "\n") + "\n")
	}
	b.WriteString("Who acts next? Call choose with a persona name or FINISH.")
	return clip.String(b.String(), 6000)
}

// reporterSystem is the reporter model's standing instruction.
const reporterSystem = `You are a QA lead writing the analysis section of a test report in Markdown for developers.
From the mission, the findings with their evidence and reproduction steps, write: a one-paragraph verdict,
then one short section per bug (what is wrong, user impact, likely cause from the evidence, severity: critical/high/medium/low),
then what was not covered. Use only the facts given; do not invent bugs. No top-level heading: the report adds it.`

// modelReport asks the reporter model for the write-up of a finished
// mission (r.Analysis); on error it logs to traces.log and the template
// report stays as it is.
func (mr *missionRun) modelReport(ctx context.Context, r *report.MissionResult) {
	model := mr.cfg.Models.reporter()
	if model == nil || ctx.Err() != nil {
		return
	}
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, reporterSystem),
		llms.TextParts(llms.ChatMessageTypeHuman, reportBrief(*r)),
	}
	resp, err := model.GenerateContent(ctx, msgs)
	if err == nil && (resp == nil || len(resp.Choices) == 0) {
		err = errors.New("no choice in the answer")
	}
	var text string
	if err == nil {
		_, text, _ = llm.AIMessage(resp)
		if text = strings.TrimSpace(text); text == "" {
			err = errors.New("empty answer")
		}
	}
	if err != nil {
		mr.trace.Warn("report: the reporter model failed; the template report is written", "err", err)
		return
	}
	r.Analysis = text
	mr.trace.Info("report written by the model", "chars", len(text))
}

// reportBrief is the reporter model's input: the facts of the mission,
// each bug with its evidence and the actions that led to it.
func reportBrief(r report.MissionResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Mission: %s\nTarget: %s\nTeam: %s\nSteps: %d\nPages explored (%d): %s\n", r.Mission.Prompt, r.Target, r.Team, r.Steps,
		len(r.Explored), strings.Join(capList(r.Explored, 40), ", "))
	if r.Err != "" {
		fmt.Fprintf(&b, "The mission ended with an error: %s\n", r.Err)
	}
	fmt.Fprintf(&b, "\nFindings (%d):\n", len(r.Bugs))
	for _, bug := range capList(r.Bugs, 25) {
		fmt.Fprintf(&b, "\n## %s: %s\nKind: %s\nPage: %s\nFound by: %s at step %d\nNew: %v (seen %d×)\nEvidence:\n%s\n", bug.ID, bug.Title, bug.Kind,
			urlx.PathQuery(bug.URL), bug.Persona, bug.Step, bug.New, bug.SeenCount, clip.String(bug.Evidence, 800))
		steps := report.Replayable(r.Timeline, bug.TapeSeq)
		if len(steps) > 12 {
			steps = steps[len(steps)-12:]
			b.WriteString("Reproduction (last 12 steps):\n")
		} else {
			b.WriteString("Reproduction:\n")
		}
		for i, e := range steps {
			fmt.Fprintf(&b, "%d. %s\n", i+1, describeEntry(e))
		}
		fmt.Fprintf(&b, "Spec: %s\n", report.SpecName(bug.ID))
	}
	if len(r.Bugs) > 25 {
		fmt.Fprintf(&b, "\n… and %d more findings.\n", len(r.Bugs)-25)
	}
	return clip.String(b.String(), 24000)
}

// at is xs[i], or "" past its end.
func at(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return ""
}

func describeEntry(e browser.Entry) string {
	s := string(e.Action)
	switch {
	case e.Locator != "":
		s += " " + e.Locator
	case e.Params.URL != "":
		s += " " + e.Params.URL
	}
	if v := e.Params.ValueOrEmpty(); v != "" {
		s += fmt.Sprintf(" value %q", clip.String(v, 60))
	}
	for i, f := range e.Params.Fields {
		s += fmt.Sprintf("; %s %s", cmp.Or(f.Kind, browser.FieldFill), cmp.Or(at(e.Locators, i), f.Target))
		if f.Value != "" {
			s += fmt.Sprintf(" value %q", clip.String(f.Value, 60))
		}
	}
	if e.Params.Key != "" {
		s += " key " + e.Params.Key
	}
	return s + " → " + urlx.PathQuery(e.URL)
}

// allIdle says whether every persona came back idle at least n times in a
// row.
func (mr *missionRun) allIdle(n int) bool {
	return !slices.ContainsFunc(mr.team, func(m *member) bool { return mr.idle[m.p.Name] < n })
}
