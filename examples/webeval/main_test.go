package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/examples/eval"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSuiteOffline runs the 12-task suite end to end with the scripted
// agent on real Chromium against the committed reference screenshots.
func TestSuiteOffline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := t.TempDir()
	var stdout bytes.Buffer
	rep, err := run(ctx, options{Agent: "auto", Out: out, Refs: ".", Env: llm.MapEnv(map[string]string{"AGENTGRAPH_PROVIDER": "offline"}), Stdout: &stdout})
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
