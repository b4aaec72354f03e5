package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
)

func TestUsageAndSetupErrorsExitTwo(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"-nope"}, "flag provided but not defined"},
		{"zero budget", []string{"-n", "0"}, "-n must be positive"},
		{"negative delay", []string{"-delay", "-1s"}, "-delay not negative"},
		{"stray argument", []string{"extra"}, "unexpected arguments"},
		{"no gremlins.js", []string{"-script", filepath.Join(t.TempDir(), "none.js"), "-reports", t.TempDir()}, "gremlins.js"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errOut)
			assert.Equal(t, explore.ExitSetup, code)
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
	var out, errOut bytes.Buffer
	assert.Equal(t, explore.ExitClean, run(context.Background(), []string{"-h"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "budget N")
}
