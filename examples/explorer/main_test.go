package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
)

func TestUsageErrorsExitTwo(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "m.yaml")
	assert.NoError(t, os.WriteFile(bad, []byte("missions:\n  - thread_id: x\n    colour: red\n"), 0o644))
	env := func(string) (string, bool) { return "", false }
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--nope"}, "flag provided but not defined"},
		{"bad fail-on", []string{"--fail-on", "sometimes"}, "want new, any or none"},
		{"stray argument", []string{"extra"}, "unexpected arguments"},
		{"bad missions", []string{"--missions", bad}, "line 3: field colour not found"},
		{"missing missions file", []string{"--missions", filepath.Join(t.TempDir(), "none.yaml")}, "no such file"},
		{"bad PR URL", []string{"--pr-url", "https://gitlab.com/o/r/pull/1"}, "want https://github.com/OWNER/REPO/pull/N"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errOut, env)
			assert.Equal(t, explore.ExitSetup, code)
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}
