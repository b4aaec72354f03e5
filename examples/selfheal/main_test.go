package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentgraph/agentgraph/llm"
)

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
