package team

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/llm"
)

// fakeOpenAI is an httptest server speaking OpenAI's chat completions wire
// format. It tells the roles apart by their system prompt and answers with
// reply(role, nth call of that role, last user message).
type fakeOpenAI struct {
	t     *testing.T
	srv   *httptest.Server
	reply func(role Role, n int, user string) string

	mu     sync.Mutex
	calls  map[Role]int
	models map[Role]string
	usage  llm.Usage
}

type oaiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func (m oaiMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func newFakeOpenAI(t *testing.T, reply func(role Role, n int, user string) string) *fakeOpenAI {
	f := &fakeOpenAI{t: t, reply: reply, calls: map[Role]int{}, models: map[Role]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.handle))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOpenAI) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "Bearer sk-test" {
		http.Error(w, `{"error":{"message":"bad key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		return
	}
	var req struct {
		Model    string       `json:"model"`
		Messages []oaiMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) < 2 {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	system := req.Messages[0].text()
	var role Role
	for _, rl := range Roles() {
		if strings.HasPrefix(system, "You are the "+string(rl)) {
			role = rl
		}
	}
	user := req.Messages[len(req.Messages)-1].text()
	f.mu.Lock()
	f.calls[role]++
	n := f.calls[role]
	f.models[role] = req.Model
	f.mu.Unlock()

	content := f.reply(role, n, user)
	var prompt int
	for _, m := range req.Messages {
		prompt += len(m.text()) / 4
	}
	completion := len(content) / 4
	f.mu.Lock()
	f.usage = f.usage.Add(llm.Usage{InputTokens: prompt, OutputTokens: completion})
	f.mu.Unlock()

	body, err := json.Marshal(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%s-%d", role, n), "object": "chat.completion", "created": 1733140000, "model": req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
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
	fake := newFakeOpenAI(t, func(role Role, n int, user string) string {
		switch role {
		case RoleArchitect:
			return "## Specifications\nPackage stats with Mean and Median over []float64.\n\n## Tests\n```go\n" + statsTests + "```"
		case RoleDeveloper:
			return "Here is the implementation:\n\n```go\n" + statsBroken + "```"
		case RoleDebugger:
			debuggerSaw = user
			return "**Diagnosis:** Median calls sort.Float64s but the file does not import sort.\n\n**Patched code:**\n```go\n" + fixed + "```"
		case RoleReviewer:
			return "Built package stats; a missing import was fixed in one round."
		}
		return "unknown role"
	})

	env := llm.MapEnv(map[string]string{
		llm.EnvOpenAIKey: "sk-test", llm.EnvOpenAIURL: fake.srv.URL + "/v1",
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

	fake.mu.Lock()
	defer fake.mu.Unlock()
	assert.Equal(t, map[Role]string{RoleArchitect: "gpt-4o-mini", RoleDeveloper: "gpt-4o-mini",
		RoleDebugger: "gpt-debugger", RoleReviewer: "gpt-reviewer"}, fake.models)
	assert.Equal(t, map[Role]int{RoleArchitect: 1, RoleDeveloper: 1, RoleDebugger: 1, RoleReviewer: 1}, fake.calls)
	m := Summarize(final)
	assert.Equal(t, 4, m.Calls)
	assert.Positive(t, fake.usage.InputTokens)
	assert.Equal(t, fake.usage.InputTokens, m.Usage.InputTokens)
	assert.Equal(t, fake.usage.OutputTokens, m.Usage.OutputTokens)
}
