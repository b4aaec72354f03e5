package team

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/internal/fakes/llmfake"
	"github.com/agentgraph/agentgraph/llm"
)

// testKey is the API key the fake provider accepts.
const testKey = "sk-test"

// roleOf tells the team's roles apart by their system prompt ("You are the
// <role> …").
func roleOf(r llmfake.Request) string {
	if rest, ok := strings.CutPrefix(r.System(), "You are the "); ok {
		role, _, _ := strings.Cut(rest, " ")
		return role
	}
	return "unknown"
}

const statsTests = `package stats

import (
	"math"
	"testing"
)

func TestMean(t *testing.T) {
	if got := Mean([]float64{1, 2, 3, 4}); got != 2.5 {
		t.Fatalf("Mean = %v, want 2.5", got)
	}
	if got := Mean(nil); !math.IsNaN(got) {
		t.Fatalf("Mean(nil) = %v, want NaN", got)
	}
}

func TestMedian(t *testing.T) {
	in := []float64{5, 1, 4, 2}
	if got := Median(in); got != 3 {
		t.Fatalf("Median = %v, want 3", got)
	}
	if in[0] != 5 {
		t.Fatal("Median changed its input")
	}
}
`

const statsBroken = `package stats

import "math"

// Mean is the arithmetic mean; NaN for no values.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Median is the middle value; it does not change xs.
func Median(xs []float64) float64 {
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	n := len(c)
	if n%2 == 1 {
		return c[n/2]
	}
	return (c[n/2-1] + c[n/2]) / 2
}
`

func TestModelDrivenRunAgainstFakeOpenAI(t *testing.T) {
	fixed := strings.Replace(statsBroken, `import "math"`, "import (\n\t\"math\"\n\t\"sort\"\n)", 1)
	var debuggerSaw string
	fake := llmfake.New(func(r llmfake.Request) llmfake.Reply {
		if r.APIKey != testKey {
			return llmfake.Error(http.StatusUnauthorized, "incorrect API key")
		}
		switch Role(roleOf(r)) {
		case RoleArchitect:
			return llmfake.Text("## Specifications\nPackage stats with Mean and Median over []float64.\n\n## Tests\n```go\n" + statsTests + "```")
		case RoleDeveloper:
			return llmfake.Text("Here is the implementation:\n\n```go\n" + statsBroken + "```")
		case RoleDebugger:
			debuggerSaw = r.Last().Text()
			return llmfake.Text("**Diagnosis:** Median calls sort.Float64s but the file does not import sort.\n\n**Patched code:**\n```go\n" + fixed + "```")
		case RoleReviewer:
			return llmfake.Text("Built package stats; a missing import was fixed in one round.")
		}
		return llmfake.Text("unknown role")
	})
	t.Cleanup(fake.Close)

	env := llm.MapEnv(map[string]string{
		llm.EnvOpenAIKey: testKey, llm.EnvOpenAIURL: fake.URL(),
		llm.EnvVar(llm.Role(RoleDebugger), "MODEL"):             "gpt-debugger",
		llm.EnvVar(llm.Role(RoleArchitect), "REASONING_EFFORT"): "high",
	})
	tiers, err := llm.ParseTiersBytes([]byte("roles:\n  reviewer: {model: gpt-reviewer}\n"))
	require.NoError(t, err)
	factory, err := llm.NewFactory(env, tiers)
	require.NoError(t, err)
	models, err := ModelsFromFactory(context.Background(), factory)
	require.NoError(t, err)
	assert.Equal(t, "openai/gpt-4o-mini (effort high)", ModelName(models.Architect))
	assert.Equal(t, "openai/gpt-debugger", ModelName(models.Debugger))

	tm := newTeam(t, models, 2)
	final, err := tm.Run(context.Background(), "Write a stats package with Mean and Median.", nil)
	require.NoError(t, err)

	assert.Equal(t, StatusPassed, final.Status)
	require.Len(t, final.TestRuns, 2)
	assert.Equal(t, FailureBuild, final.TestRuns[0].Failure)
	assert.Contains(t, final.TestRuns[0].ErrorSummary, "undefined: sort")
	assert.True(t, final.TestRuns[1].Passed, final.TestRuns[1].Output)
	assert.Equal(t, 2, final.TestRuns[1].PassCount)
	assert.Contains(t, debuggerSaw, "undefined: sort")
	require.Len(t, final.DebugHistory, 1)
	assert.Equal(t, "Median calls sort.Float64s but the file does not import sort.", final.DebugHistory[0].Diagnosis)
	assert.Equal(t, fixed, final.Code)

	asked, calls := map[string]string{}, map[string]int{}
	for _, r := range fake.Requests() {
		asked[roleOf(r)] = r.Model
		calls[roleOf(r)]++
	}
	assert.Equal(t, map[string]string{"architect": "gpt-4o-mini", "developer": "gpt-4o-mini",
		"debugger": "gpt-debugger", "reviewer": "gpt-reviewer"}, asked)
	assert.Equal(t, map[string]int{"architect": 1, "developer": 1, "debugger": 1, "reviewer": 1}, calls)
	m := Summarize(final)
	assert.Equal(t, 4, m.Calls)
	in, out := fake.Usage()
	assert.Positive(t, in)
	assert.Equal(t, in, m.Usage.InputTokens)
	assert.Equal(t, out, m.Usage.OutputTokens)
}
