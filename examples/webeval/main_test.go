package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
	"github.com/agentgraph/agentgraph/examples/eval"
	"github.com/agentgraph/agentgraph/internal/fakes/llmfake"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testHarness is the one Chromium of this test binary.
var testHarness *eval.Harness

func TestMain(m *testing.M) {
	browsertest.Main(m, func(ctx context.Context) (*eval.Harness, error) { return eval.Launch(ctx, browser.LaunchOptions{}) }, &testHarness)
}

// TestSuiteOffline runs the 12-task suite end to end with the scripted
// agent on real Chromium against the committed reference screenshots.
func TestSuiteOffline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out := t.TempDir()
	var stdout bytes.Buffer
	rep, err := run(ctx, options{Agent: "auto", Out: out, Refs: ".", Harness: testHarness, Env: llm.MapEnv(map[string]string{"AGENTGRAPH_PROVIDER": "offline"}), Stdout: &stdout})
	require.NoError(t, err)
	assert.Equal(t, "scripted", rep.Agent)
	require.Len(t, rep.Tasks, 12)
	for _, ts := range rep.Tasks {
		assert.Equal(t, ts.Task != "table-sort", ts.Pass, "%s: %+v", ts.Task, ts)
	}
	assert.Equal(t, 11, rep.Total.Passes)
	require.Len(t, rep.FalseClaims, 1, "the scripted agent's wrong claim is caught")
	assert.Contains(t, rep.FalseClaims[0], "table-sort#1")
	for _, r := range rep.Rows {
		assert.Empty(t, r.Error, r.Task)
		if r.VisRes != nil {
			assert.False(t, r.VisRes.Recorded, "references are committed")
			assert.GreaterOrEqual(t, r.VisRes.SSIM, 0.92, r.Task)
		}
	}
	for _, r := range rep.Rows {
		assert.Positive(t, r.Millis, "%s: a trial's duration reaches the report", r.Task)
	}
	assert.Contains(t, stdout.String(), "| table-sort | FAIL | 0/1 (0%)")
	assert.Contains(t, stdout.String(), "self-reported success that was wrong: 1")
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	var back eval.Report
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Len(t, back.Rows, 12)
	_, err = os.Stat(filepath.Join(out, "report.md"))
	assert.NoError(t, err)
}

func TestPickAgent(t *testing.T) {
	_, _, _, err := pickAgent(context.Background(), options{Agent: "model", Env: llm.MapEnv(map[string]string{"AGENTGRAPH_PROVIDER": "offline"})})
	assert.ErrorContains(t, err, "no model provider")
	_, _, _, err = pickAgent(context.Background(), options{Agent: "robot"})
	assert.ErrorContains(t, err, "want scripted")
	a, j, _, err := pickAgent(context.Background(), options{Agent: "scripted"})
	require.NoError(t, err)
	assert.Equal(t, "scripted", a.Name())
	assert.Nil(t, j)
}

// fakeOpenAI is an OpenAI-compatible chat server standing in for a model:
// as the agent it replays the scripted intents one per step (so the model
// path runs over real HTTP through langchaingo), as the judge it answers
// yes when the reference answer is on the page or in the claim.
func fakeOpenAI(t *testing.T, suite *eval.Suite, scripts map[string]eval.Script) *llmfake.Server {
	byText := map[string]eval.Task{}
	for _, tk := range suite.Tasks {
		byText[tk.Task] = tk
	}
	taskRe := regexp.MustCompile(`(?m)^Task: (.*)$`)
	leftRe := regexp.MustCompile(`(?m)^Steps left: (\d+)$`)
	refRe := regexp.MustCompile(`(?m)^Reference answer: (.*)$`)
	srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
		if len(r.Messages) < 2 {
			return llmfake.Error(http.StatusBadRequest, "bad request")
		}
		system, human := r.Messages[0].Text(), r.Messages[1].Text()
		reply := "1. do the task"
		switch {
		case strings.Contains(system, "strict"): // the judge
			ref := strings.TrimPrefix(refRe.FindStringSubmatch(human)[1], "yes: ")
			_, page, _ := strings.Cut(human, "Final page text:")
			_, claim, _ := strings.Cut(human, "Agent's claim:")
			claim, _, _ = strings.Cut(claim, "\n")
			reply = "no"
			if strings.Contains(page, ref) || strings.Contains(claim, ref) {
				reply = "yes"
			}
		case strings.Contains(system, "JSON object"): // the act node
			tk := byText[taskRe.FindStringSubmatch(human)[1]]
			left, _ := strconv.Atoi(leftRe.FindStringSubmatch(human)[1])
			sc := scripts[tk.ID]
			if i := tk.Steps - left; i < len(sc.Intents) {
				b, _ := json.Marshal(map[string]any{"intent": sc.Intents[i]})
				reply = string(b)
			} else {
				b, _ := json.Marshal(map[string]any{"done": true, "success": sc.Claim, "answer": sc.Answer})
				reply = string(b)
			}
		}
		return llmfake.Reply{Content: reply, PromptTokens: 1000, CompletionTokens: 20}
	})
	t.Cleanup(srv.Close)
	return srv
}

// TestSuiteWithModel runs the suite with the model agent and the judge
// over an OpenAI-compatible wire (a local fake server).
func TestSuiteWithModel(t *testing.T) {
	suite, err := eval.ParseSuite(suiteYAML)
	require.NoError(t, err)
	srv := fakeOpenAI(t, suite, scripted().Scripts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	env := llm.MapEnv(map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.URL()})
	rep, err := run(ctx, options{Agent: "auto", Refs: ".", Harness: testHarness, Env: env, Stdout: &stdout})
	require.NoError(t, err)
	assert.Equal(t, "model", rep.Agent)
	assert.True(t, rep.Judge)
	assert.Equal(t, 11, rep.Total.Passes, stdout.String())
	require.Len(t, rep.FalseClaims, 1)
	assert.Contains(t, rep.FalseClaims[0], "table-sort#1")
	judged := 0
	for _, r := range rep.Rows {
		if r.JudRes != nil {
			judged++
			assert.Equal(t, 3, r.JudRes.Yes, r.Task)
		}
	}
	assert.Equal(t, 2, judged)
	assert.Greater(t, rep.Total.CostPerSuccess, 0.0, "model cost is metered")
	assert.Contains(t, stdout.String(), "model usage:")
}

// TestSuiteFileJSReward runs a suite file (-suite) of third-party-style task
// pages whose success lives in a JavaScript variable of the page
// (MiniWoB's WOB_REWARD_GLOBAL, a WebArena-like state object), with set-up
// steps that start the episode before the agent acts. The agent is the
// model agent over a local OpenAI-compatible wire server, replaying one
// intent per step.
func TestSuiteFileJSReward(t *testing.T) {
	pages := httptest.NewServer(http.FileServer(http.Dir("testdata/wob")))
	t.Cleanup(pages.Close)
	suite, err := eval.LoadSuite("testdata/wob/suite.yaml")
	require.NoError(t, err)
	click := func(t string) browser.Intent { return browser.Intent{Action: browser.ActClick, Target: t} }
	scripts := map[string]eval.Script{
		"click-button":          {Intents: []browser.Intent{click(`role=button[name="ONE"]`)}, Claim: true},
		"click-button-wrong":    {Intents: []browser.Intent{click(`role=button[name="ONE"]`)}, Claim: true}, // the wrong button, claimed
		"click-button-no-setup": {Intents: []browser.Intent{click(`role=button[name="ONE"]`)}, Claim: true},
		"enter-text":            {Intents: []browser.Intent{{Action: browser.ActFill, Target: "#tt", Value: val("Ada Lovelace")}, click("#subbtn")}, Claim: true},
		"shop":                  {Intents: []browser.Intent{click(`role=button[name="Add mug"]`), click("#checkout")}, Claim: true},
	}
	srv := fakeOpenAI(t, suite, scripts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	out := t.TempDir()
	env := llm.MapEnv(map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.URL()})
	rep, err := run(ctx, options{Agent: "model", Suite: "testdata/wob/suite.yaml", Base: pages.URL, Out: out, Harness: testHarness, Env: env, Stdout: &stdout})
	require.NoError(t, err)
	assert.Equal(t, "wob-style", rep.Suite)
	byTask := map[string]eval.Row{}
	for _, r := range rep.Rows {
		byTask[r.Task] = r
		assert.Empty(t, r.Error, r.Task)
		assert.Positive(t, r.Millis, r.Task)
		assert.Equal(t, len(scripts[r.Task].Intents), r.Steps, "%s: set-up steps are not the agent's", r.Task)
	}
	require.Len(t, byTask, 5, stdout.String())
	assert.True(t, byTask["click-button"].Pass, "%+v", byTask["click-button"].DOMRes)
	assert.True(t, byTask["enter-text"].Pass, "%+v", byTask["enter-text"].DOMRes)
	assert.True(t, byTask["shop"].Pass, "%+v", byTask["shop"].DOMRes)
	wrong := byTask["click-button-wrong"]
	assert.False(t, wrong.Pass)
	assert.True(t, wrong.FalseClaim)
	require.Len(t, wrong.DOMRes, 1)
	assert.Equal(t, "value -1", wrong.DOMRes[0].Got, "the page's own reward said no")
	nosetup := byTask["click-button-no-setup"]
	assert.False(t, nosetup.Pass)
	assert.Equal(t, "value 0", nosetup.DOMRes[0].Got, "without the set-up step the episode never started")
	assert.Len(t, rep.FalseClaims, 2)

	// report.json carries each trial's duration
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	var back struct {
		Rows []struct {
			Task string `json:"task"`
			MS   int64  `json:"ms"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(data, &back))
	require.Len(t, back.Rows, 5)
	for _, r := range back.Rows {
		assert.Positive(t, r.MS, r.Task)
	}
}

func TestSuiteFileErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("tasks:\n  - id: a\n    task: x\n    start: /\n    checks: {dom: [{js: 1 +, locator: b}]}\n"), 0o644))
	_, err := run(context.Background(), options{Agent: "scripted", Suite: bad, Harness: testHarness, Stdout: &bytes.Buffer{}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.yaml:5")
	_, err = run(context.Background(), options{Agent: "scripted", Suite: filepath.Join(t.TempDir(), "missing.yaml"), Harness: testHarness, Stdout: &bytes.Buffer{}})
	assert.ErrorContains(t, err, "missing.yaml")
}
