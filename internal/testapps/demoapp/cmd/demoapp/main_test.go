package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
	"github.com/stretchr/testify/assert"
)

func TestList(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.Equal(t, 0, run([]string{"-list"}, &out, &errOut))
	for _, id := range demoapp.BugIDs() {
		assert.Contains(t, out.String(), string(id))
	}
	assert.Equal(t, len(demoapp.BugIDs())+1, strings.Count(out.String(), "\n"))
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{{"-nope"}, {"-fixed", "BUG-NOPE"}, {"-addr", "256.0.0.1:bad"}} {
		var out, errOut bytes.Buffer
		assert.Equal(t, 2, run(args, &out, &errOut), args)
		assert.NotEmpty(t, errOut.String(), args)
	}
}
