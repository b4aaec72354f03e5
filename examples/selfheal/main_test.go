package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/selfheal/team"
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

func TestRunOffline(t *testing.T) {
	var out, errOut bytes.Buffer
	env := llm.MapEnv(map[string]string{})
	code := run(context.Background(), nil, &out, &errOut, env)
	assert.Equal(t, 0, code, errOut.String())
	text := out.String()
	for _, want := range []string{
		"provider offline",
		"architect  offline/scripted",
		"▶ architect",
		"race failure",
		"data race detected by -race",
		"diagnosis: The race detector",
		"all tests pass",
		"REVIEW (passed)",
		"FINAL CODE (ratelimit.go)",
		"METRICS",
		"debug iterations  1 of 3",
	} {
		assert.Contains(t, text, want)
	}
}

func TestRunWithProvider(t *testing.T) {
	task := team.RateLimiterTask()
	fake := llmfake.New(func(r llmfake.Request) llmfake.Reply {
		if r.APIKey != testKey {
			return llmfake.Error(http.StatusUnauthorized, "incorrect API key")
		}
		switch team.Role(roleOf(r)) {
		case team.RoleArchitect:
			return llmfake.Text("SPECIFICATIONS:\n" + task.Spec + "\n\nTESTS:\n```go\n" + task.Tests + "```")
		case team.RoleDeveloper:
			return llmfake.Text("```go\n" + task.Draft + "```")
		case team.RoleDebugger:
			return llmfake.Text("DIAGNOSIS: " + task.Diagnosis + "\nPATCHED_CODE:\n```go\n" + task.Fixed + "```")
		}
		return llmfake.Text(task.Review)
	})
	t.Cleanup(fake.Close)
	tiers := filepath.Join(t.TempDir(), "tiers.yaml")
	require.NoError(t, os.WriteFile(tiers, []byte("default: {model: gpt-team}\nroles:\n  debugger: {model: gpt-debugger, reasoning_effort: high}\n"), 0o644))
	env := llm.MapEnv(map[string]string{llm.EnvOpenAIKey: testKey, llm.EnvOpenAIURL: fake.URL(), EnvTiers: tiers})

	var out, errOut bytes.Buffer
	code := run(context.Background(), nil, &out, &errOut, env)
	require.Equal(t, 0, code, errOut.String())
	text := out.String()
	t.Log(text)
	for _, want := range []string{
		"provider openai (OPENAI_API_KEY)",
		"architect  openai/gpt-team",
		"debugger   openai/gpt-debugger (effort high)",
		"race failure",
		"REVIEW (passed)",
		"USAGE",
	} {
		assert.Contains(t, text, want)
	}
	in, outTok := fake.Usage()
	assert.Contains(t, text, fmt.Sprintf("tokens            %d in, %d out", in, outTok))
	models := map[string]string{}
	for _, r := range fake.Requests() {
		models[roleOf(r)] = r.Model
	}
	assert.Equal(t, map[string]string{"architect": "gpt-team", "developer": "gpt-team", "debugger": "gpt-debugger", "reviewer": "gpt-team"}, models)
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	badTiers := filepath.Join(dir, "tiers.yaml")
	assert.NoError(t, os.WriteFile(badTiers, []byte("roles:\n  architect: {modle: x}\n"), 0o644))
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"custom request offline", []string{"-request", "an LRU cache"}, nil, "offline mode plays only the built-in task"},
		{"bad tiers file", []string{"-tiers", badTiers}, nil, `unknown key "modle"`},
		{"tiers from env", nil, map[string]string{EnvTiers: badTiers}, `unknown key "modle"`},
		{"missing tiers file", []string{"-tiers", filepath.Join(dir, "nope.yaml")}, nil, "no such file"},
		{"request and request file", []string{"-request", "a", "-request-file", badTiers}, nil, "not both"},
		{"bad provider", nil, map[string]string{llm.EnvProvider: "skynet"}, "unknown provider"},
		{"bad flag", []string{"-nope"}, nil, "flag provided but not defined"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), c.args, &out, &errOut, llm.MapEnv(c.env))
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut.String(), c.want)
		})
	}
}
