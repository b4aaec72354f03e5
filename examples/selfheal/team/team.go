package team

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/llm"
)

// Models holds the model of each role. Any llms.Model fits: an *llm.Model
// from an llm.Factory (role tiers), an *llm.Scripted, or a bare langchaingo
// client.
type Models struct {
	Architect, Developer, Debugger, Reviewer llms.Model
}

// Of returns the model of role.
func (m Models) Of(role Role) llms.Model {
	switch role {
	case RoleArchitect:
		return m.Architect
	case RoleDeveloper:
		return m.Developer
	case RoleDebugger:
		return m.Debugger
	case RoleReviewer:
		return m.Reviewer
	}
	return nil
}

// ModelsFromFactory asks f for each role's model, so each role gets its own
// model name and reasoning effort from the tiers (YAML) and the
// AGENTGRAPH_<ROLE>_* environment variables.
func ModelsFromFactory(ctx context.Context, f *llm.Factory) (Models, error) {
	var m Models
	for _, r := range []struct {
		role Role
		dst  *llms.Model
	}{{RoleArchitect, &m.Architect}, {RoleDeveloper, &m.Developer}, {RoleDebugger, &m.Debugger}, {RoleReviewer, &m.Reviewer}} {
		model, err := f.For(ctx, llm.Role(r.role))
		if err != nil {
			return Models{}, fmt.Errorf("team: model for %s: %w", r.role, err)
		}
		*r.dst = model
	}
	return m, nil
}

// Config configures a Team.
type Config struct {
	Models  Models
	Sandbox *Sandbox
	// MaxIterations is the debug budget: how many debugger rounds may run
	// before the reviewer gets the failing code with a warning. Default 3.
	MaxIterations int
	// MaxRepairs is how many times an unusable reply (no sections, no code,
	// code that does not parse) is sent back to its role with the parse
	// error before the run fails. Default 2.
	MaxRepairs int
	// GraphOptions are passed to the graph's Compile, e.g.
	// graph.WithCheckpointer(checkpoint.NewMemory()) to make runs resumable.
	GraphOptions []graph.CompileOption
	Logger       *slog.Logger
}

// Defaults of Config.
const (
	DefaultMaxIterations = 3
	DefaultMaxRepairs    = 2
)

// Team is the self-healing engineering team: its nodes and its graph.
type Team struct {
	cfg   Config
	graph *graph.CompiledGraph[State]
}

// New checks cfg and fills in defaults.
func New(cfg Config) (*Team, error) {
	for _, r := range Roles() {
		if cfg.Models.Of(r) == nil {
			return nil, fmt.Errorf("team: no model for role %s", r)
		}
	}
	if cfg.Sandbox == nil {
		return nil, errors.New("team: no sandbox")
	}
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = DefaultMaxIterations
	}
	if cfg.MaxRepairs < 0 {
		cfg.MaxRepairs = 0
	} else if cfg.MaxRepairs == 0 {
		cfg.MaxRepairs = DefaultMaxRepairs
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	t := &Team{cfg: cfg}
	g, err := t.Graph(cfg.GraphOptions...)
	if err != nil {
		return nil, err
	}
	t.graph = g
	return t, nil
}

// reply is what ask learned from one role's turn.
type reply struct {
	calls int
	usage llm.Usage
}

// ask sends system and user to role's model and hands the reply to parse.
// A reply parse rejects with a FormatError goes back to the model with the
// error, up to MaxRepairs times.
func (t *Team) ask(ctx context.Context, role Role, system, user string, parse func(string) error) (reply, error) {
	model := t.cfg.Models.Of(role)
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, system),
		llms.TextParts(llms.ChatMessageTypeHuman, user),
	}
	var r reply
	var lastErr error
	for attempt := 0; attempt <= t.cfg.MaxRepairs; attempt++ {
		resp, err := model.GenerateContent(ctx, msgs)
		r.calls++
		if err != nil {
			return r, fmt.Errorf("%s: model call: %w", role, err)
		}
		if u, ok := llm.UsageOf(resp); ok {
			r.usage = r.usage.Add(u)
		}
		text := ""
		if resp != nil && len(resp.Choices) > 0 && resp.Choices[0] != nil {
			text = resp.Choices[0].Content
		}
		perr := parse(text)
		if perr == nil {
			return r, nil
		}
		if !errors.Is(perr, ErrFormat) {
			return r, perr
		}
		lastErr = perr
		t.cfg.Logger.Warn("team: unusable reply, asking again", "role", role, "attempt", attempt+1, "err", perr)
		msgs = append(msgs,
			llms.TextParts(llms.ChatMessageTypeAI, text),
			llms.TextParts(llms.ChatMessageTypeHuman, "Your reply could not be used: "+perr.Error()+
				"\nReply again, complete, in exactly the required format."))
	}
	return r, fmt.Errorf("%s: %d replies could not be used: %w", role, r.calls, lastErr)
}

func step(node string, role Role, start time.Time, r reply, did string) []StepRecord {
	return []StepRecord{{Node: node, Role: role, Did: did, Duration: time.Since(start), Calls: r.calls, Usage: r.usage}}
}

// Node names.
const (
	NodeArchitect = "architect"
	NodeDeveloper = "developer"
	NodeSandbox   = "sandbox"
	NodeDebugger  = "debugger"
	NodeReviewer  = "reviewer"
)

// Architect writes the specification and the tests.
func (t *Team) Architect(ctx context.Context, s State) (State, error) {
	start := time.Now()
	var out ArchitectOutput
	r, err := t.ask(ctx, RoleArchitect, architectSystem, architectPrompt(s), func(text string) error {
		var err error
		out, err = ParseArchitect(text)
		return err
	})
	if err != nil {
		return State{}, err
	}
	pkg := testPackage(out.Tests)
	n := strings.Count(out.Tests, "\nfunc Test")
	return State{
		Spec: out.Spec, Tests: out.Tests, Package: pkg, Status: StatusDesigning,
		Steps: step(NodeArchitect, RoleArchitect, start, r,
			fmt.Sprintf("wrote the spec (%d lines) and %d tests for package %s", lineCount(out.Spec), n, pkg)),
	}, nil
}

// Developer writes the first implementation.
func (t *Team) Developer(ctx context.Context, s State) (State, error) {
	start := time.Now()
	var code string
	r, err := t.ask(ctx, RoleDeveloper, developerSystem, developerPrompt(s), func(text string) error {
		var err error
		code, err = ParseCode(RoleDeveloper, text, s.Package)
		return err
	})
	if err != nil {
		return State{}, err
	}
	return State{
		Code: code, Status: StatusImplementing,
		Steps: step(NodeDeveloper, RoleDeveloper, start, r, fmt.Sprintf("wrote %s.go (%d lines)", s.Package, lineCount(code))),
	}, nil
}

// RunSandbox runs the tests against the current code. It costs no tokens.
func (t *Team) RunSandbox(ctx context.Context, s State) (State, error) {
	start := time.Now()
	res, err := t.cfg.Sandbox.Run(ctx, s.Code, s.Tests)
	if err != nil {
		return State{}, fmt.Errorf("sandbox: %w", err)
	}
	cmd := "go test -race"
	if t.cfg.Sandbox.Config().NoRace {
		cmd = "go test"
	}
	did := fmt.Sprintf("%s: %d passed, %d failed", cmd, res.PassCount, res.FailCount)
	if res.Passed {
		did += " — all tests pass"
	} else {
		did += fmt.Sprintf(" — %s failure", res.Failure)
	}
	return State{
		Results: res, TestRuns: []TestResult{res}, Status: StatusTesting,
		Steps: step(NodeSandbox, "", start, reply{}, did),
	}, nil
}

// Debugger diagnoses the failure and patches the code.
func (t *Team) Debugger(ctx context.Context, s State) (State, error) {
	start := time.Now()
	var out DebuggerOutput
	r, err := t.ask(ctx, RoleDebugger, debuggerSystem, debuggerPrompt(s), func(text string) error {
		var err error
		out, err = ParseDebugger(text, s.Package)
		return err
	})
	if err != nil {
		return State{}, err
	}
	round := s.Iteration + 1
	return State{
		Code: out.Code, Iteration: round, Status: StatusDebugging,
		DebugHistory: []DebugRecord{{Iteration: round, Failure: s.Results.Failure, Summary: s.Results.ErrorSummary, Diagnosis: out.Diagnosis}},
		Steps: step(NodeDebugger, RoleDebugger, start, r,
			fmt.Sprintf("round %d/%d: patched %s.go (%d lines)", round, s.MaxIterations, s.Package, lineCount(out.Code))),
	}, nil
}

// Reviewer summarises the run; it warns when the tests still fail.
func (t *Team) Reviewer(ctx context.Context, s State) (State, error) {
	start := time.Now()
	var review string
	r, err := t.ask(ctx, RoleReviewer, reviewerSystem, reviewerPrompt(s), func(text string) error {
		review = strings.TrimSpace(text)
		if review == "" {
			return formatErr(RoleReviewer, "the reply is empty; write a short review")
		}
		return nil
	})
	if err != nil {
		return State{}, err
	}
	up := State{Review: review, Status: StatusPassed}
	did := "signed off: tests pass"
	if !s.Results.Passed {
		up.Status = StatusBudgetSpent
		up.Warning = fmt.Sprintf("debug budget of %d rounds spent; tests still fail (%s): %s",
			s.MaxIterations, s.Results.Failure, oneLine(s.Results.ErrorSummary, 200))
		did = "reviewed failing code: " + up.Warning
	}
	up.Steps = step(NodeReviewer, RoleReviewer, start, r, did)
	return up, nil
}

// AfterSandbox routes after a test run: pass → reviewer; fail with budget
// left → debugger; budget spent → reviewer (which warns).
func AfterSandbox(_ context.Context, s State) (string, error) {
	switch {
	case s.Results.Passed:
		return NodeReviewer, nil
	case s.Iteration < s.MaxIterations:
		return NodeDebugger, nil
	default:
		return NodeReviewer, nil
	}
}

func lineCount(s string) int {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}
