package skills

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const skillMD = `---
name: demo
description: A demo skill for tests.
scripts:
  greet.sh:
    description: Greets someone
    args:
      - {name: who, required: true, pattern: '[A-Za-z]{1,20}'}
      - {name: mood, enum: [happy, grumpy]}
  many.sh:
    description: Echoes all its arguments
    variadic: true
    args:
      - {name: word}
---
# Demo

Use greet.sh to greet.
`

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), mode))
}

// newDemo builds a skills root with the demo skill and a second one.
func newDemo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	d := filepath.Join(root, "demo")
	writeFile(t, filepath.Join(d, "SKILL.md"), skillMD, 0o644)
	writeFile(t, filepath.Join(d, "scripts", "greet.sh"), "#!/bin/sh\necho \"hello $1 ${2:-plain} from $SKILL_NAME in $(basename \"$PWD\")\"\n", 0o755)
	writeFile(t, filepath.Join(d, "scripts", "many.sh"), "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\n", 0o755)
	// not executable: run through bash by its extension
	writeFile(t, filepath.Join(d, "scripts", "plain.sh"), "echo \"args: $#\"\necho oops >&2\nexit 3\n", 0o644)
	writeFile(t, filepath.Join(d, "scripts", "slow.sh"), "#!/bin/sh\nsleep 30 &\nsleep 30\necho never\n", 0o755)
	writeFile(t, filepath.Join(d, "scripts", "big.sh"), "#!/bin/sh\ni=0\nwhile [ $i -lt 5000 ]; do echo 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'; i=$((i+1)); done\n", 0o755)
	writeFile(t, filepath.Join(d, "scripts", "data.bin"), "no interpreter", 0o644)
	writeFile(t, filepath.Join(d, "scripts", ".hidden"), "x", 0o755)
	writeFile(t, filepath.Join(root, "other", "SKILL.md"), "---\ndescription: Second skill, named after its folder.\n---\nbody\n", 0o644)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "not-a-skill"), 0o755))
	return root
}

func TestLoad(t *testing.T) {
	lib, err := Load(newDemo(t), Options{})
	require.NoError(t, err)
	names := []string{}
	for _, s := range lib.List() {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"demo", "other"}, names)
	s, ok := lib.Get("demo")
	require.True(t, ok)
	assert.Equal(t, "A demo skill for tests.", s.Description)
	assert.True(t, strings.HasPrefix(s.Doc, "# Demo"))
	assert.Equal(t, []string{"big.sh", "data.bin", "greet.sh", "many.sh", "plain.sh", "slow.sh"}, s.ScriptNames())
	require.NotNil(t, s.Scripts["greet.sh"].Spec)
	assert.Nil(t, s.Scripts["plain.sh"].Spec)
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ name, md, want string }{
		{"no front matter", "# hi\n", "must start with"},
		{"unclosed", "---\nname: x\n", "no closing"},
		{"unknown key", "---\nname: x\ndescription: d\ncolour: red\n---\n", "field colour not found"},
		{"no description", "---\nname: x\n---\n", "needs a description"},
		{"bad name", "---\nname: ../x\ndescription: d\n---\n", "name"},
		{"missing declared script", "---\ndescription: d\nscripts:\n  gone.sh: {description: x}\n---\n", `scripts/gone.sh does not exist`},
		{"bad pattern", "---\ndescription: d\nscripts:\n  a.sh:\n    args: [{name: x, pattern: '('}]\n---\n", "pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "s")
			writeFile(t, filepath.Join(dir, "SKILL.md"), tt.md, 0o644)
			writeFile(t, filepath.Join(dir, "scripts", "a.sh"), "echo", 0o755)
			_, err := LoadSkill(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestRun(t *testing.T) {
	lib, err := Load(newDemo(t), Options{})
	require.NoError(t, err)
	ctx := context.Background()

	out, err := lib.Run(ctx, "demo", "greet.sh", []string{"Ada", "happy"})
	require.NoError(t, err)
	assert.Equal(t, "hello Ada happy from demo in demo\n", out.Text)
	assert.Equal(t, 0, out.ExitCode)

	// arguments reach the script verbatim: no shell interprets them
	out, err = lib.Run(ctx, "demo", "many.sh", []string{"a", "b.c", "x=1"})
	require.NoError(t, err)
	assert.Equal(t, "[a][b.c][x=1]", out.Text)

	out, err = lib.Run(ctx, "demo", "plain.sh", []string{"one", "two"})
	var re *RunError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 3, re.Output.ExitCode)
	assert.False(t, re.TimedOut)
	assert.Contains(t, out.Text, "args: 2")
	assert.Contains(t, out.Text, "oops")
	assert.Contains(t, err.Error(), "exited with status 3")
}

func TestRunBadArguments(t *testing.T) {
	lib, err := Load(newDemo(t), Options{})
	require.NoError(t, err)
	tests := []struct {
		name   string
		script string
		args   []string
		want   string
	}{
		{"missing required", "greet.sh", nil, `missing required argument "who"`},
		{"pattern", "greet.sh", []string{"Ada; rm -rf /"}, "does not match"},
		{"enum", "greet.sh", []string{"Ada", "angry"}, "want one of happy, grumpy"},
		{"too many", "greet.sh", []string{"Ada", "happy", "extra"}, "3 arguments given, the script takes 2"},
		{"undeclared: option injection", "plain.sh", []string{"--exec=evil"}, "undeclared script arguments must match"},
		{"undeclared: shell metachar", "plain.sh", []string{"$(id)"}, "must match"},
		{"undeclared: space", "plain.sh", []string{"a b"}, "must match"},
		{"declared without pattern: safe pattern", "many.sh", []string{"ok", "`x`"}, "must match"},
		{"NUL", "many.sh", []string{"a\x00b"}, "NUL"},
		{"too long", "many.sh", []string{strings.Repeat("a", 2000)}, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lib.Run(context.Background(), "demo", tt.script, tt.args)
			require.ErrorIs(t, err, ErrBadArguments)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestRunMissingScriptOrSkill(t *testing.T) {
	root := newDemo(t)
	lib, err := Load(root, Options{})
	require.NoError(t, err)
	ctx := context.Background()
	_, err = lib.Run(ctx, "demo", "nope.sh", nil)
	require.ErrorIs(t, err, ErrUnknownScript)
	assert.Contains(t, err.Error(), "greet.sh")
	_, err = lib.Run(ctx, "demo", "../other/SKILL.md", nil)
	require.ErrorIs(t, err, ErrUnknownScript)
	_, err = lib.Run(ctx, "nope", "greet.sh", nil)
	require.ErrorIs(t, err, ErrUnknownSkill)
	assert.Contains(t, err.Error(), "demo, other")
	_, err = lib.Run(ctx, "demo", "data.bin", nil)
	assert.ErrorContains(t, err, "not executable and has no known interpreter")

	// deleted after loading
	require.NoError(t, os.Remove(filepath.Join(root, "demo", "scripts", "many.sh")))
	_, err = lib.Run(ctx, "demo", "many.sh", nil)
	require.ErrorIs(t, err, ErrUnknownScript)
}

func TestRunTimeout(t *testing.T) {
	lib, err := Load(newDemo(t), Options{Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	start := time.Now()
	_, err = lib.Run(context.Background(), "demo", "slow.sh", nil)
	elapsed := time.Since(start)
	var re *RunError
	require.ErrorAs(t, err, &re)
	assert.True(t, re.TimedOut)
	assert.Contains(t, err.Error(), "timed out after 300ms")
	assert.Less(t, elapsed, 5*time.Second, "the process group is killed, background children included")
}

func TestRunLargeOutput(t *testing.T) {
	lib, err := Load(newDemo(t), Options{MaxOutput: 1000})
	require.NoError(t, err)
	out, err := lib.Run(context.Background(), "demo", "big.sh", nil)
	require.NoError(t, err)
	assert.True(t, out.Truncated)
	assert.Equal(t, 5000*100, out.Total)
	assert.Contains(t, out.Text, "[output truncated: 1000 of 500000 bytes shown]")
	assert.Less(t, len(out.Text), 1100)
}

func TestTools(t *testing.T) {
	lib, err := Load(newDemo(t), Options{})
	require.NoError(t, err)
	reg, err := tools.NewRegistry(lib.Tools()...)
	require.NoError(t, err)
	ctx := context.Background()
	call := func(name, args string) (string, bool) {
		return reg.Dispatch(ctx, name, json.RawMessage(args))
	}
	out, isErr := call(ToolList, `{}`)
	assert.False(t, isErr)
	assert.Contains(t, out, "- demo: A demo skill for tests.")
	assert.Contains(t, out, "- other: Second skill")

	out, isErr = call(ToolShow, `{"skill":"demo"}`)
	assert.False(t, isErr)
	assert.Contains(t, out, "Use greet.sh to greet.")

	out, isErr = call(ToolScripts, `{"skill":"demo"}`)
	assert.False(t, isErr)
	assert.Contains(t, out, "greet.sh: Greets someone (usage: <who> [mood])")
	assert.Contains(t, out, "one of happy, grumpy")
	assert.Contains(t, out, "plain.sh (undeclared")

	out, isErr = call(ToolRun, `{"skill":"demo","script":"greet.sh","args":["Bob"]}`)
	assert.False(t, isErr, out)
	assert.Contains(t, out, "hello Bob plain")

	out, isErr = call(ToolRun, `{"skill":"demo","script":"plain.sh"}`)
	assert.True(t, isErr)
	assert.Contains(t, out, "exited with status 3")
	assert.Contains(t, out, "oops", "the failing script's output reaches the model")

	out, isErr = call(ToolRun, `{"skill":"demo","script":"greet.sh","args":["B0b"]}`)
	assert.True(t, isErr)
	assert.Contains(t, out, "does not match")

	out, isErr = call(ToolShow, `{"skill":"ghost"}`)
	assert.True(t, isErr)
	assert.Contains(t, out, "unknown skill")
}
