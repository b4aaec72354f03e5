package skills

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Options configure a Library.
type Options struct {
	// Timeout bounds each script run (0: DefaultTimeout, 60s).
	Timeout time.Duration
	// MaxOutput caps the bytes of output kept per run, stdout and stderr
	// together (0: DefaultMaxOutput, 64 KiB); the rest is counted and dropped.
	MaxOutput int
	// Env is the scripts' environment (nil: PATH, HOME, LANG and TMPDIR of
	// this process). SKILL_NAME and SKILL_DIR are always added.
	Env []string
	// Interpreters maps a file extension to the program that runs a script
	// that is not executable (nil: .sh bash, .py python3, .js node).
	Interpreters map[string]string
}

// Library is a set of skills, loaded from a folder of skill folders.
type Library struct {
	skills map[string]*Skill
	opts   Options
}

// Load reads every subfolder of root that holds a SKILL.md.
func Load(root string, opts Options) (*Library, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	l := New(opts)
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err != nil {
			continue
		}
		s, err := LoadSkill(dir)
		if err != nil {
			return nil, err
		}
		if err := l.Add(s); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// New returns an empty library.
func New(opts Options) *Library {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.Interpreters == nil {
		opts.Interpreters = map[string]string{".sh": "bash", ".py": "python3", ".js": "node"}
	}
	if opts.Env == nil {
		for _, k := range []string{"PATH", "HOME", "LANG", "TMPDIR"} {
			if v, ok := os.LookupEnv(k); ok {
				opts.Env = append(opts.Env, k+"="+v)
			}
		}
	}
	return &Library{skills: map[string]*Skill{}, opts: opts}
}

// Add adds a skill; a second skill of the same name is an error.
func (l *Library) Add(s *Skill) error {
	if _, dup := l.skills[s.Name]; dup {
		return fmt.Errorf("skills: two skills named %q", s.Name)
	}
	l.skills[s.Name] = s
	return nil
}

// Get returns the named skill.
func (l *Library) Get(name string) (*Skill, bool) { s, ok := l.skills[name]; return s, ok }

// List returns the skills sorted by name.
func (l *Library) List() []*Skill {
	out := make([]*Skill, 0, len(l.skills))
	for _, s := range l.skills {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Errors callers branch on.
var (
	ErrUnknownSkill  = errors.New("unknown skill")
	ErrUnknownScript = errors.New("unknown script")
	ErrBadArguments  = errors.New("bad arguments")
)

// Output is the result of a script run.
type Output struct {
	Text      string // stdout and stderr interleaved, capped at MaxOutput
	Truncated bool
	Total     int // bytes the script wrote
	ExitCode  int
	Duration  time.Duration
}

// RunError reports a run that did not exit 0: a non-zero exit, a timeout or
// a failure to start. Output holds what the script wrote.
type RunError struct {
	Skill, Script string
	TimedOut      bool
	Timeout       time.Duration
	Output        Output
	Err           error
}

func (e *RunError) Error() string {
	switch {
	case e.TimedOut:
		return fmt.Sprintf("skill %s: script %s timed out after %v", e.Skill, e.Script, e.Timeout)
	case e.Output.ExitCode > 0:
		return fmt.Sprintf("skill %s: script %s exited with status %d", e.Skill, e.Script, e.Output.ExitCode)
	}
	return fmt.Sprintf("skill %s: script %s: %v", e.Skill, e.Script, e.Err)
}

func (e *RunError) Unwrap() error { return e.Err }

// Run runs a skill's script with args, without a shell: the script is
// executed directly when it is executable, else through the interpreter of
// its extension; args are validated first (see ScriptSpec and SafeArg). The
// working directory is the skill's folder.
func (l *Library) Run(ctx context.Context, skill, script string, args []string) (Output, error) {
	s, ok := l.skills[skill]
	if !ok {
		return Output{}, fmt.Errorf("skills: %w %q (known: %s)", ErrUnknownSkill, skill, strings.Join(l.names(), ", "))
	}
	sc, ok := s.Scripts[script]
	if !ok {
		return Output{}, fmt.Errorf("skills: skill %s: %w %q (scripts: %s)", skill, ErrUnknownScript, script, strings.Join(s.ScriptNames(), ", "))
	}
	if err := sc.validate(args); err != nil {
		return Output{}, fmt.Errorf("skills: skill %s: script %s: %w: %v", skill, script, ErrBadArguments, err)
	}
	// The file must still be there, inside the skill's scripts folder.
	real, err := filepath.EvalSymlinks(sc.Path)
	if err != nil {
		return Output{}, fmt.Errorf("skills: skill %s: %w %q: %v", skill, ErrUnknownScript, script, err)
	}
	info, err := os.Stat(real)
	if err != nil || !info.Mode().IsRegular() {
		return Output{}, fmt.Errorf("skills: skill %s: %w %q: not a regular file", skill, ErrUnknownScript, script)
	}
	prog, argv := real, args
	if info.Mode().Perm()&0o111 == 0 {
		interp, ok := l.opts.Interpreters[filepath.Ext(script)]
		if !ok {
			return Output{}, fmt.Errorf("skills: skill %s: script %s is not executable and has no known interpreter", skill, script)
		}
		prog, argv = interp, append([]string{real}, args...)
	}

	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, argv...)
	cmd.Dir = s.Dir
	cmd.Env = append(append([]string(nil), l.opts.Env...), "SKILL_NAME="+s.Name, "SKILL_DIR="+s.Dir)
	out := &capped{max: l.opts.MaxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	runErr := cmd.Run()
	res := Output{Text: out.String(), Truncated: out.total > out.max, Total: out.total, Duration: time.Since(start)}
	if res.Truncated {
		res.Text += fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", out.max, out.total)
	}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	if runErr == nil {
		return res, nil
	}
	re := &RunError{Skill: skill, Script: script, Timeout: l.opts.Timeout, Output: res, Err: runErr}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		re.TimedOut = true
	}
	return res, re
}

func (l *Library) names() []string {
	var n []string
	for _, s := range l.List() {
		n = append(n, s.Name)
	}
	return n
}

// capped keeps the first max bytes written and counts the rest.
type capped struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	max   int
	total int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += len(p)
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.ToValidUTF8(c.buf.String(), "\uFFFD")
}
