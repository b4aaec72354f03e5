package team

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/llm"
)

// scriptedOf returns the Scripted model under a role's wrapped model.
func scriptedOf(t *testing.T, m llms.Model) *llm.Scripted {
	t.Helper()
	if w, ok := m.(*llm.Model); ok {
		m = w.Base()
	}
	s, ok := m.(*llm.Scripted)
	require.True(t, ok, "model is %T", m)
	return s
}

func lastHumanOfCall(c llm.ScriptedCall) string { return lastHuman(c.Messages) }

func newTeam(t *testing.T, models Models, maxIter int) *Team {
	t.Helper()
	tm, err := New(Config{Models: models, Sandbox: newTestSandbox(t, SandboxConfig{}), MaxIterations: maxIter})
	require.NoError(t, err)
	return tm
}

func TestOfflineRunHealsTheRace(t *testing.T) {
	task := RateLimiterTask()
	models := task.ScriptedModels()
	tm := newTeam(t, models, 3)

	var out bytes.Buffer
	p := Printer{W: &out}
	var nodes []string
	final, err := tm.Run(context.Background(), task.Request, func(node string, up State) {
		nodes = append(nodes, node)
		p.Step(node, up)
	})
	require.NoError(t, err)
	p.Final(final, time.Second)

	assert.Equal(t, []string{NodeArchitect, NodeDeveloper, NodeSandbox, NodeDebugger, NodeSandbox, NodeReviewer}, nodes)
	assert.Equal(t, StatusPassed, final.Status)
	assert.Empty(t, final.Warning)
	assert.Equal(t, "ratelimit", final.Package)
	assert.Equal(t, 1, final.Iteration)
	assert.Equal(t, 3, final.MaxIterations)

	// First run: the sequential tests pass, the concurrent one fails under -race.
	require.Len(t, final.TestRuns, 2)
	first, second := final.TestRuns[0], final.TestRuns[1]
	assert.False(t, first.Passed)
	assert.Equal(t, FailureRace, first.Failure, first.Output)
	assert.Contains(t, first.Output, "WARNING: DATA RACE")
	assert.Equal(t, []string{"TestConcurrentAllowNeverExceedsLimit"}, first.FailedTests)
	assert.Contains(t, first.ErrorSummary, "ratelimit.(*Limiter).Allow()")
	assert.Positive(t, first.PassCount)
	// After the patch everything passes.
	assert.True(t, second.Passed, second.Output)
	assert.Zero(t, second.FailCount)
	assert.Equal(t, first.PassCount+first.FailCount, second.PassCount)
	assert.Equal(t, second, final.Results)

	// The debugger saw the sandbox's race report, and its patch is the code.
	dbg := scriptedOf(t, models.Debugger).Calls()
	require.Len(t, dbg, 1)
	prompt := lastHumanOfCall(dbg[0])
	assert.Contains(t, prompt, "data race")
	assert.Contains(t, prompt, "WARNING: DATA RACE")
	assert.Contains(t, prompt, task.Draft)
	require.Len(t, final.DebugHistory, 1)
	assert.Equal(t, FailureRace, final.DebugHistory[0].Failure)
	assert.Contains(t, final.DebugHistory[0].Diagnosis, "fast path")
	assert.Equal(t, task.Fixed, final.Code)
	assert.Equal(t, task.Tests, final.Tests)
	assert.Equal(t, task.Review, final.Review)

	m := Summarize(final)
	assert.Equal(t, 4, m.Calls)
	assert.Equal(t, 2, m.TestRuns)
	require.Len(t, m.Nodes, 5)
	assert.Equal(t, NodeSandbox, m.Nodes[2].Node)
	assert.Equal(t, 2, m.Nodes[2].Runs)

	text := out.String()
	for _, want := range []string{"▶ architect", "▶ sandbox", "race failure", "diagnosis: The race detector", "all tests pass",
		"FINAL CODE (ratelimit.go)", "TESTS (ratelimit_test.go)", "METRICS", "debug iterations  1 of 3", "test runs", "pass"} {
		assert.Contains(t, text, want)
	}
}

func TestBudgetSpentGoesToReviewerWithWarning(t *testing.T) {
	task := RateLimiterTask()
	models := task.ScriptedModels()
	// A debugger that keeps sending back the racy draft.
	models.Debugger = llm.NewScriptedFunc(func(context.Context, []llms.MessageContent, llms.CallOptions) (llm.Reply, error) {
		return llm.Say("DIAGNOSIS: I think it is fine.\nPATCHED_CODE:\n```go\n" + task.Draft + "```"), nil
	})
	tm := newTeam(t, models, 2)
	final, err := tm.Run(context.Background(), task.Request, nil)
	require.NoError(t, err)

	assert.Equal(t, StatusBudgetSpent, final.Status)
	assert.Equal(t, 2, final.Iteration)
	require.Len(t, final.TestRuns, 3)
	for _, r := range final.TestRuns {
		assert.Equal(t, FailureRace, r.Failure)
	}
	assert.Len(t, final.DebugHistory, 2)
	assert.Contains(t, final.Warning, "debug budget of 2 rounds spent")
	assert.Equal(t, task.FailedReview, final.Review)
	rev := scriptedOf(t, models.Reviewer).Calls()
	require.Len(t, rev, 1)
	assert.Contains(t, lastHumanOfCall(rev[0]), "WARNING: the debug budget (2 rounds) is spent")
	// The second debug round is told about the first diagnosis.
	dbg := models.Debugger.(*llm.Scripted).Calls()
	require.Len(t, dbg, 2)
	assert.Contains(t, lastHumanOfCall(dbg[1]), "EARLIER DIAGNOSES")
	assert.Contains(t, lastHumanOfCall(dbg[1]), "debug round 2 of 2")
}

func TestUnusableReplyIsFedBack(t *testing.T) {
	task := RateLimiterTask()
	models := task.ScriptedModels()
	arch := llm.NewScripted(
		llm.Say("Sure! I will get right on it."),
		llm.Say("SPECIFICATIONS:\n"+task.Spec+"\nTESTS:\n```go\n"+task.Tests+"```"),
	)
	models.Architect = arch
	tm := newTeam(t, models, 1)
	up, err := tm.Architect(context.Background(), tm.Input(task.Request))
	require.NoError(t, err)
	assert.Equal(t, task.Tests, up.Tests)
	require.Len(t, up.Steps, 1)
	assert.Equal(t, 2, up.Steps[0].Calls)
	calls := arch.Calls()
	require.Len(t, calls, 2)
	require.Len(t, calls[1].Messages, 4)
	assert.Equal(t, llms.ChatMessageTypeAI, calls[1].Messages[2].Role)
	assert.Contains(t, lastHumanOfCall(calls[1]), "Your reply could not be used")
	assert.Contains(t, lastHumanOfCall(calls[1]), "no SPECIFICATIONS section found")
}

func TestUnusableRepliesFailTheRun(t *testing.T) {
	task := RateLimiterTask()
	models := task.ScriptedModels()
	models.Developer = llm.NewScriptedFunc(func(context.Context, []llms.MessageContent, llms.CallOptions) (llm.Reply, error) {
		return llm.Say("I cannot write code today."), nil
	})
	tm, err := New(Config{Models: models, Sandbox: newTestSandbox(t, SandboxConfig{}), MaxRepairs: 1})
	require.NoError(t, err)
	_, err = tm.Run(context.Background(), task.Request, nil)
	require.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "developer: 2 replies could not be used")
	assert.Len(t, models.Developer.(*llm.Scripted).Calls(), 2)
}

func TestModelErrorFailsTheRun(t *testing.T) {
	task := RateLimiterTask()
	models := task.ScriptedModels()
	models.Architect = llm.NewScripted() // exhausted at once
	tm := newTeam(t, models, 1)
	_, err := tm.Run(context.Background(), task.Request, nil)
	require.ErrorIs(t, err, llm.ErrScriptExhausted)
	assert.Contains(t, err.Error(), "architect: model call")
}

func TestAfterSandbox(t *testing.T) {
	cases := []struct {
		name   string
		passed bool
		iter   int
		max    int
		want   string
	}{
		{"pass", true, 0, 3, NodeReviewer},
		{"pass after debugging", true, 3, 3, NodeReviewer},
		{"fail with budget", false, 0, 3, NodeDebugger},
		{"fail, last round left", false, 2, 3, NodeDebugger},
		{"fail, budget spent", false, 3, 3, NodeReviewer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := AfterSandbox(context.Background(), State{Results: TestResult{Passed: c.passed}, Iteration: c.iter, MaxIterations: c.max})
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestNewValidates(t *testing.T) {
	sb := newTestSandbox(t, SandboxConfig{NoRace: true})
	models := RateLimiterTask().ScriptedModels()
	_, err := New(Config{Models: Models{Architect: models.Architect}, Sandbox: sb})
	assert.ErrorContains(t, err, "no model for role developer")
	_, err = New(Config{Models: models})
	assert.ErrorContains(t, err, "no sandbox")
	tm, err := New(Config{Models: models, Sandbox: sb})
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxIterations, tm.Input("x").MaxIterations)
	_, err = tm.Run(context.Background(), "", nil)
	assert.ErrorContains(t, err, "empty request")
}

func TestRateLimiterTaskFiles(t *testing.T) {
	task := RateLimiterTask()
	for name, s := range map[string]string{"request": task.Request, "spec": task.Spec, "tests": task.Tests, "draft": task.Draft,
		"fixed": task.Fixed, "diagnosis": task.Diagnosis, "review": task.Review, "first-try review": task.FirstTryReview,
		"failed review": task.FailedReview} {
		assert.NotEmpty(t, strings.TrimSpace(s), name)
	}
	for _, src := range []string{task.Draft, task.Fixed} {
		code, err := ParseCode(RoleDeveloper, "```go\n"+src+"```", "ratelimit")
		require.NoError(t, err)
		assert.Equal(t, src, code)
	}
	assert.Equal(t, "ratelimit", testPackage(task.Tests))
	assert.Contains(t, task.Draft, "Fast path")
	assert.NotContains(t, task.Fixed, "Fast path")
}

func TestResumeAfterModelFailure(t *testing.T) {
	task := RateLimiterTask()
	models := task.ScriptedModels()
	good := models.Debugger
	var failFirst sync.Once
	flaky := llm.NewScriptedFunc(func(ctx context.Context, msgs []llms.MessageContent, o llms.CallOptions) (llm.Reply, error) {
		var down bool
		failFirst.Do(func() { down = true })
		if down {
			return llm.Reply{}, errors.New("provider down")
		}
		resp, err := good.GenerateContent(ctx, msgs)
		if err != nil {
			return llm.Reply{}, err
		}
		return llm.Say(resp.Choices[0].Content), nil
	})
	models.Debugger = flaky
	tm, err := New(Config{Models: models, Sandbox: newTestSandbox(t, SandboxConfig{}),
		GraphOptions: []graph.CompileOption{graph.WithCheckpointer(checkpoint.NewMemory())}})
	require.NoError(t, err)

	var nodes []string
	onStep := func(node string, _ State) { nodes = append(nodes, node) }
	_, err = tm.Run(context.Background(), task.Request, onStep, graph.Thread("run-1"))
	require.ErrorContains(t, err, "provider down")
	assert.Equal(t, []string{NodeArchitect, NodeDeveloper, NodeSandbox}, nodes)

	nodes = nil
	final, err := tm.Resume(context.Background(), "run-1", onStep)
	require.NoError(t, err)
	assert.Equal(t, []string{NodeDebugger, NodeSandbox, NodeReviewer}, nodes, "finished nodes do not run again")
	assert.Equal(t, StatusPassed, final.Status)
	assert.Len(t, final.TestRuns, 2)
	assert.Equal(t, task.Request, final.Request)
	assert.Len(t, scriptedOf(t, models.Architect).Calls(), 1)
	assert.Len(t, flaky.Calls(), 2)
}

func TestOfflineRunWithoutRacePassesAtOnce(t *testing.T) {
	// Without -race the draft's race goes unnoticed by the sequential tests
	// and, usually, by the concurrent one; the scripted reviewer says so.
	task := RateLimiterTask()
	models := task.ScriptedModels()
	tm, err := New(Config{Models: models, Sandbox: newTestSandbox(t, SandboxConfig{NoRace: true})})
	require.NoError(t, err)
	final, err := tm.Run(context.Background(), task.Request, nil)
	require.NoError(t, err)
	if len(final.TestRuns) == 1 {
		assert.Equal(t, StatusPassed, final.Status)
		assert.Equal(t, task.FirstTryReview, final.Review)
		assert.Equal(t, task.Draft, final.Code)
		return
	}
	// The over-admission was caught without the race detector: still healed.
	assert.Equal(t, FailureTests, final.TestRuns[0].Failure)
	assert.Equal(t, StatusPassed, final.Status)
	assert.Equal(t, task.Review, final.Review)
}

// nilModel answers with no response and no error, as a broken client might.
type nilModel struct{}

func (nilModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, nil
}

func (nilModel) Call(context.Context, string, ...llms.CallOption) (string, error) { return "", nil }

func TestNilResponseIsAFormatError(t *testing.T) {
	models := RateLimiterTask().ScriptedModels()
	models.Architect = nilModel{}
	tm := newTeam(t, models, 1)
	_, err := tm.Architect(context.Background(), tm.Input("x"))
	require.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "architect: 3 replies could not be used")
	assert.Contains(t, err.Error(), "reply is empty")
}
