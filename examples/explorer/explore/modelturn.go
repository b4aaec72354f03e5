package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/safefile"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/personas"
	"github.com/agentgraph/agentgraph/state"
	"github.com/agentgraph/agentgraph/tools"
)

// personaTask is the per-turn instruction of a persona model.
const personaTask = `You have at most %d browser actions this turn (every execute_browser_command, get_dom_snapshot, capture_screenshot, capture_bug_screenshot or analyze_visual_state call is one).
The page is now %s.%s
Explore toward the mission; every action reports health findings, and the explorer records each one as a bug with its evidence,
so you need not re-report them. Use recall_past_findings to check what earlier sessions found and record_observation for notes worth keeping.
When you are done or out of actions, answer without a tool call: two or three sentences on what you tried and what you found.`

// modelTurn is one turn of a model-driven persona: an llm.Agent with the
// persona's system prompt (personas' prompt builder plus its learned
// supplement), the browser tools on the mission's session and the memory
// tools. Every browser action goes through act, like the offline personas'.
func (mr *missionRun) modelTurn(ctx context.Context, m *member, s State) (State, error) {
	var out State
	limit := min(mr.cfg.TurnSteps, mr.budget-s.Steps)
	t := &turn{mr: mr, m: m, out: &out, limit: limit}
	reset := ""
	if mr.resetPending {
		mr.resetPending = false
		mr.act(ctx, m, step{in: browser.Navigate(mr.start), why: "reset to the start URL: pick a different area"}, &out)
		t.did++
		reset = "\nYour last turn hit its step limit: you are back on the start URL. Pick a different area of the app this time."
	}
	turnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	t.stop = cancel
	reg, err := t.registry()
	if err != nil {
		return State{}, err
	}
	sup, _ := mr.qa.Supplement(ctx, m.p.Name)
	system := m.p.SystemPrompt(personas.PromptInput{
		App:     personas.App{BaseURL: mr.target, Description: "The app under test."},
		Mission: mr.m.Prompt, Supplement: sup,
	})
	// The page the turn starts on: coverage, the loop detector's state and
	// the model's first look.
	here, page := "(unknown)", ""
	if v, err := mr.look(ctx, &out); err == nil {
		t.lastState = pageState(v.Snap, v.Els)
		here = urlx.PathQuery(v.URL)
		text := v.Snap.Text
		if len(mr.accounts) > 0 {
			text = mr.secrets.Redact(text) // the users' emails and passwords never reach a prompt
		}
		page = "\n\nCurrent page snapshot:\n" + clip.String(text, 8000)
	}
	task := fmt.Sprintf(personaTask, max(limit-t.did, 0), here, reset) + extraToolsNote(mr.extra) + page
	if mr.multi() && m.acct != nil {
		// Its user by name only: the credentials never reach a prompt.
		task = fmt.Sprintf("You act as the app user %q, already signed in, in a browser of your own; other personas act as other users. Look for data of other users that you should not see.\n\n", m.acct.Name) + task
	}
	if brief := lastSupervisorBrief(s); brief != "" {
		task = "Supervisor: " + brief + "\n\n" + task
	}
	agent := &llm.Agent{Model: mr.cfg.Models.Persona, Tools: reg, System: system, MaxSteps: 2*limit + 4,
		OnToolResult: func(r llm.ToolResult) {
			mr.trace.Info("tool", "persona", m.p.Name, "tool", r.Name, "args", clip.String(mr.secrets.Redact(r.Args), 300), "error", r.IsError, "result", clip.String(mr.secrets.Redact(r.Content), 200))
		}}
	var res llm.Result
	if t.did < limit {
		res, err = agent.Run(turnCtx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, task)})
	}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return State{}, ctx.Err()
	case t.limited && turnCtx.Err() != nil:
		// The turn's step limit stopped the agent.
	default:
		return State{}, fmt.Errorf("persona %s: model: %w", m.p.Name, err)
	}
	verdict := "done"
	switch {
	case t.did >= limit && t.did > 0:
		verdict = "step limit reached: reset to the start URL and pick a different area"
		mr.resetPending = true
		mr.idle[m.p.Name] = 0
	case t.did > 0:
		mr.idle[m.p.Name] = 0
	default:
		verdict = "took no browser action"
		mr.idle[m.p.Name]++
	}
	out.Steps = s.Steps + t.did
	out.AppModel = mr.sw.snapshot()
	out.Progress = mr.progressSnapshot()
	summary := strings.TrimSpace(res.Final)
	if summary == "" {
		summary = "(no summary)"
	}
	mr.trace.Info("turn end", "persona", m.p.Name, "steps", t.did, "model_calls", res.Steps, "tool_calls", len(res.ToolCalls), "verdict", verdict)
	if strings.TrimSpace(res.Final) != "" {
		mr.emit(observe.Event{Kind: observe.AgentText, Persona: m.p.Name, Text: res.Final, Step: mr.steps})
	}
	if mr.resetPending && t.did >= limit {
		mr.emit(observe.Event{Kind: observe.StepLimit, Persona: m.p.Name, Step: t.did, Budget: limit, Text: "turn step limit"})
	}
	out.Messages = append(out.Messages, state.Message{ID: state.NewID(), Role: state.RoleAI, Name: m.p.Name,
		Content: fmt.Sprintf("%s: %d steps, %d new bugs, %d new pages; %s. %s", m.p.Name, t.did, len(out.Bugs), len(out.Explored), verdict, clip.String(summary, 600))})
	return out, nil
}

func lastSupervisorBrief(s State) string {
	for i := len(s.Messages) - 1; i >= 0; i-- {
		if m := s.Messages[i]; m.Role == state.RoleAI && m.Name == NodeSupervisor {
			return clip.String(m.Content, 600)
		}
	}
	return ""
}

// turn is the state of one model-driven persona turn, shared by its tools.
type turn struct {
	mr        *missionRun
	m         *member
	out       *State
	did       int
	limit     int
	limited   bool
	stop      context.CancelFunc
	lastState string // page state after the latest action (loop detector)
}

// routed is a browser tool whose name, description and schema come from
// browser.Tools but whose calls run through the mission's act path.
type routed struct {
	tools.Tool
	call func(ctx context.Context, args json.RawMessage) (string, error)
}

func (r routed) Call(ctx context.Context, args json.RawMessage) (string, error) {
	return r.call(ctx, args)
}

// registry holds the turn's tools: execute_browser_command, get_dom_snapshot
// and capture_screenshot (browser.Tools' definitions, dispatched through
// act), capture_bug_screenshot and analyze_visual_state
// (browser.VisionTools' definitions, on the mission's session),
// recall_past_findings and record_observation, plus the run's MCP and
// skills tools.
func (t *turn) registry() (*tools.Registry, error) {
	calls := map[string]func(context.Context, json.RawMessage) (string, error){
		"execute_browser_command": t.execute,
		"get_dom_snapshot":        t.snapshot,
		"capture_screenshot":      t.screenshot,
	}
	var ts []tools.Tool
	for _, bt := range browser.Tools(t.mr.engine, t.mr.sess.User()) {
		if f, ok := calls[bt.Name()]; ok {
			ts = append(ts, routed{Tool: bt, call: f})
		}
	}
	if len(ts) != len(calls) {
		return nil, fmt.Errorf("explore: browser tools: want %d, found %d", len(calls), len(ts))
	}
	// Vision: capture_bug_screenshot, and analyze_visual_state when a
	// model can look (Models.Vision, else the persona model).
	var ask browser.VisionFunc
	if vm := t.mr.cfg.Models.vision(); vm != nil {
		ask = llm.VisionFunc(vm)
	}
	for _, vt := range browser.VisionTools(t.mr.engine, t.mr.sess.User(), ask) {
		switch vt.Name() {
		case "capture_bug_screenshot":
			ts = append(ts, routed{Tool: vt, call: t.bugScreenshot})
		case "analyze_visual_state":
			ts = append(ts, routed{Tool: vt, call: func(ctx context.Context, raw json.RawMessage) (string, error) { return t.analyzeVisual(ctx, ask, raw) }})
		}
	}
	ts = append(ts, t.mr.qa.RecallTool(), t.mr.qa.ObservationTool(t.m.p.Name, t.mr.m.ThreadID))
	// The MCP servers' and the skills' tools (extratools.go), their
	// results redacted like the browser's.
	if t.mr.extra != nil {
		for _, x := range t.mr.extra.tools {
			ts = append(ts, redactedTool{Tool: x, secrets: t.mr.secrets})
		}
	}
	for i := range ts {
		ts[i] = observedTool{Tool: ts[i], mr: t.mr, persona: t.m.p.Name}
	}
	return tools.NewRegistry(ts...)
}

// errStepLimit tells the model the turn is over.
var errStepLimit = errors.New("the step limit of this turn is reached: do not call more browser tools; answer with your summary")

// spend checks the turn's budget before a browser action.
func (t *turn) spend() error {
	if t.did >= t.limit {
		t.limited = true
		t.stop()
		return errStepLimit
	}
	return nil
}

// done counts an action and ends the turn at the limit.
func (t *turn) done() string {
	t.did++
	if t.did >= t.limit {
		t.limited = true
		t.stop()
		return "\n\nThat was the last browser action of this turn: answer with your summary."
	}
	return fmt.Sprintf("\n\n(%d browser actions left this turn)", t.limit-t.did)
}

func decodeStrict(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad arguments: %v", err)
	}
	return nil
}

// checkUser refuses another browser user: a mission has one session.
func (t *turn) checkUser(u string) error {
	if u != "" && u != t.mr.sess.User() {
		return fmt.Errorf("this mission has one browser user; leave \"user\" empty (got %q)", u)
	}
	return nil
}

func (t *turn) execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var args struct {
		User   string          `json:"user"`
		Intent json.RawMessage `json:"intent"`
	}
	if err := decodeStrict(raw, &args); err != nil {
		return "", err
	}
	if err := t.checkUser(args.User); err != nil {
		return "", err
	}
	if len(args.Intent) == 0 {
		return "", errors.New(`bad arguments: "intent" is required, e.g. {"intent":{"action":"navigate","url":"/"}}`)
	}
	in, err := browser.ParseIntent(args.Intent)
	if err != nil {
		return "", err
	}
	if err := t.spend(); err != nil {
		return "", err
	}
	mr := t.mr
	// Loop detector: the same action on the same page state again and again.
	key := in.JSON() + "@" + t.lastState
	mr.loops[key]++
	if mr.loops[key] >= 3 {
		mr.loops[key] = 0
		hint := mr.start
		if l, ok := mr.cov.nextUnvisited(); ok {
			hint = l
		}
		mr.trace.Info("loop detected", "persona", t.m.p.Name, "intent", in.JSON())
		return "", fmt.Errorf("loop detected: this is the same action on the same page for the third time (%s); it was not run. Go elsewhere, e.g. navigate to %s", in.JSON(), hint)
	}
	mr.emit(observe.Event{Kind: observe.StepStart, Step: mr.steps + 1, Budget: mr.budget, Persona: t.m.p.Name, Action: string(in.Action)})
	res, bugs := mr.act(ctx, t.m, step{in: in, why: "model: " + t.m.p.Name}, t.out)
	text := res.Text()
	if v, err := mr.look(ctx, t.out); err == nil {
		t.lastState = pageState(v.Snap, v.Els)
		if res.OK {
			text += "\n\nPage snapshot:\n" + clip.String(v.Snap.Text, 12000)
		}
	}
	text += bugText(bugs) + t.done()
	if !res.OK {
		return "", errors.New(text)
	}
	return text, nil
}

func (t *turn) snapshot(ctx context.Context, raw json.RawMessage) (string, error) {
	var args browser.UserArgs
	if err := decodeStrict(raw, &args); err != nil {
		return "", err
	}
	if err := t.checkUser(args.User); err != nil {
		return "", err
	}
	if err := t.spend(); err != nil {
		return "", err
	}
	res, bugs := t.mr.act(ctx, t.m, step{in: browser.Intent{Action: browser.ActSnapshot}, why: "model: " + t.m.p.Name}, t.out)
	if res.Snapshot != nil {
		v := t.mr.observe(ctx, *res.Snapshot, t.out)
		t.lastState = pageState(v.Snap, v.Els)
	}
	text := res.Text() + bugText(bugs) + t.done()
	if !res.OK {
		return "", errors.New(text)
	}
	return text, nil
}

func (t *turn) screenshot(ctx context.Context, raw json.RawMessage) (string, error) {
	var args browser.ScreenshotArgs
	if err := decodeStrict(raw, &args); err != nil {
		return "", err
	}
	if err := t.checkUser(args.User); err != nil {
		return "", err
	}
	if err := t.spend(); err != nil {
		return "", err
	}
	res, bugs := t.mr.act(ctx, t.m, step{in: browser.Intent{Action: browser.ActScreenshot, FullPage: args.FullPage}, why: "model: " + t.m.p.Name}, t.out)
	if !res.OK {
		return "", errors.New(res.Text() + bugText(bugs) + t.done())
	}
	text := res.Text()
	if len(res.Screenshot) > 0 {
		rel := filepath.Join("screenshots", fmt.Sprintf("%s-step%d.png", t.m.p.Name, t.mr.steps))
		if err := safefile.WriteFile(filepath.Join(t.mr.dir, rel), res.Screenshot, 0o600); err != nil {
			return "", fmt.Errorf("save the screenshot: %w", err)
		}
		text = fmt.Sprintf("ok: screenshot saved as %s\npage: %q %s", rel, res.Title, res.URL)
	}
	return text + bugText(bugs) + t.done(), nil
}

// bugScreenshot saves a named screenshot as bug evidence in the mission's
// screenshots/bugs directory. It counts as a browser action of the turn.
func (t *turn) bugScreenshot(ctx context.Context, raw json.RawMessage) (string, error) {
	var args browser.BugShotArgs
	if err := decodeStrict(raw, &args); err != nil {
		return "", err
	}
	if err := t.checkUser(args.User); err != nil {
		return "", err
	}
	if err := t.spend(); err != nil {
		return "", err
	}
	sess := t.mr.sess
	png, err := sess.CaptureImage(ctx, args.Target, args.FullPage)
	if err != nil {
		return "", errors.New(err.Error() + t.done())
	}
	rec, err := browser.SaveBugShot(filepath.Join(t.mr.dir, "screenshots", "bugs"), png, browser.BugShot{
		Name: args.Name, URL: sess.URL(), User: t.m.p.Name, Target: args.Target, Note: clip.String(args.Note, 1000)})
	if err != nil {
		return "", errors.New(err.Error() + t.done())
	}
	rel, _ := filepath.Rel(t.mr.dir, rec.File)
	t.mr.trace.Info("bug screenshot", "persona", t.m.p.Name, "file", rel, "url", rec.URL, "note", clip.String(args.Note, 200))
	return fmt.Sprintf("ok: bug evidence saved as %s (%d bytes PNG of %s)", rel, rec.Bytes, rec.URL) + t.done(), nil
}

// analyzeVisual asks the vision model about the page as it looks. It
// counts as a browser action of the turn.
func (t *turn) analyzeVisual(ctx context.Context, ask browser.VisionFunc, raw json.RawMessage) (string, error) {
	var args browser.VisualArgs
	if err := decodeStrict(raw, &args); err != nil {
		return "", err
	}
	if err := t.checkUser(args.User); err != nil {
		return "", err
	}
	if err := t.spend(); err != nil {
		return "", err
	}
	answer, err := t.mr.sess.AnalyzeVisual(ctx, ask, args)
	t.mr.trace.Info("visual question", "persona", t.m.p.Name, "question", clip.String(args.Question, 200), "target", args.Target, "answer", clip.String(answer, 300))
	if err != nil {
		return "", errors.New(err.Error() + t.done())
	}
	return answer + t.done(), nil
}

func bugText(bugs []findings.Bug) string {
	if len(bugs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nRecorded as bugs (with evidence and a reproduction):")
	for _, bug := range bugs {
		fmt.Fprintf(&b, "\n- %s: %s", bug.ID, clip.String(bug.Title, 160))
	}
	return b.String()
}
