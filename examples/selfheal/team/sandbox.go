package team

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sandbox defaults.
const (
	DefaultTestTimeout  = 30 * time.Second
	DefaultBuildTimeout = 4 * time.Minute
	DefaultMaxOutput    = 1 << 20 // 1 MiB
)

// SandboxConfig configures a Sandbox. The zero value is usable: every zero
// field takes its default.
type SandboxConfig struct {
	// GoBin is the go command; default: "go" looked up on PATH.
	GoBin string
	// TestTimeout is passed to go test as -timeout: the test binary panics
	// with a goroutine dump when a run takes longer (an infinite loop).
	TestTimeout time.Duration
	// BuildTimeout is the extra time allowed for compiling, on top of
	// TestTimeout; when the whole subprocess outlives both, its process group
	// is killed.
	BuildTimeout time.Duration
	// MaxOutput caps the bytes read from the subprocess (stdout and stderr
	// together). When a run writes more, it is stopped and reported as
	// FailureOutputLimit.
	MaxOutput int
	// NoRace turns off the race detector (it is on by default and needs cgo).
	NoRace bool
	// GoCache, GoModCache and GoPath are handed to the subprocess; defaults
	// come from `go env`. Sharing the build cache makes runs after the first
	// fast (the race-instrumented standard library is built once).
	GoCache, GoModCache, GoPath string
	// Network selects network isolation; see NetworkMode.
	Network NetworkMode
	// Logger receives debug logs; default: slog.Default().
	Logger *slog.Logger
}

// NetworkMode says how the sandbox keeps the subprocess off the network.
type NetworkMode int

const (
	// NetworkAuto runs the subprocess in a fresh network namespace
	// (unshare -rn) when the system allows it, and otherwise relies on the
	// clean environment and GOPROXY=off.
	NetworkAuto NetworkMode = iota
	// NetworkEnvOnly never uses namespaces: GOPROXY=off and a clean
	// environment only.
	NetworkEnvOnly
	// NetworkIsolated requires a network namespace; NewSandbox fails when
	// one cannot be made.
	NetworkIsolated
)

// Sandbox runs Go code and its tests in a fresh temporary module, in a
// subprocess with a clean environment, a timeout and a cap on output.
// It is deterministic and costs no tokens. A Sandbox is safe for concurrent
// use; each Run gets its own directory.
type Sandbox struct {
	cfg      SandboxConfig
	goroot   string
	isolated bool
	unshare  string
}

// NewSandbox checks the configuration, resolves the go command and the
// caches, and probes network isolation.
func NewSandbox(ctx context.Context, cfg SandboxConfig) (*Sandbox, error) {
	if cfg.TestTimeout <= 0 {
		cfg.TestTimeout = DefaultTestTimeout
	}
	if cfg.BuildTimeout <= 0 {
		cfg.BuildTimeout = DefaultBuildTimeout
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.GoBin == "" {
		cfg.GoBin = "go"
	}
	bin, err := exec.LookPath(cfg.GoBin)
	if err != nil {
		return nil, fmt.Errorf("sandbox: go command: %w", err)
	}
	cfg.GoBin = bin
	out, err := exec.CommandContext(ctx, bin, "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("sandbox: go env: %w", err)
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(vals) != 4 {
		return nil, fmt.Errorf("sandbox: go env: unexpected output %q", out)
	}
	for i, dst := range []*string{&cfg.GoCache, &cfg.GoModCache, &cfg.GoPath} {
		if *dst == "" {
			*dst = vals[i]
		}
	}
	s := &Sandbox{cfg: cfg, goroot: vals[3]}
	if cfg.Network != NetworkEnvOnly {
		s.unshare, s.isolated = probeNetns(ctx)
		if cfg.Network == NetworkIsolated && !s.isolated {
			return nil, errors.New("sandbox: network isolation requested but unshare -rn is not available")
		}
	}
	return s, nil
}

// NetworkIsolated reports whether runs happen in their own network namespace.
func (s *Sandbox) NetworkIsolated() bool { return s.isolated }

// Config returns the effective configuration.
func (s *Sandbox) Config() SandboxConfig { return s.cfg }

// ErrBadSource is returned (wrapped) by Run when the code or the tests are
// not Go files the sandbox can lay out (no package clause, mismatched
// packages). Compile errors are not ErrBadSource: they are a TestResult
// with FailureBuild.
var ErrBadSource = errors.New("bad source")

// Run writes code and tests into a fresh module and runs go test -json on
// it. Test failures, build failures, timeouts and floods are reported in the
// TestResult; the error is for what stops the sandbox itself from running
// (bad layout, no temp dir, go not startable, ctx cancelled).
func (s *Sandbox) Run(ctx context.Context, code, tests string) (TestResult, error) {
	pkg, err := packageName("code", code)
	if err != nil {
		return TestResult{}, err
	}
	tpkg, err := packageName("tests", tests)
	if err != nil {
		return TestResult{}, err
	}
	if tpkg != pkg && tpkg != pkg+"_test" {
		return TestResult{}, fmt.Errorf("sandbox: %w: tests are package %q, code is package %q (want %q or %q)",
			ErrBadSource, tpkg, pkg, pkg, pkg+"_test")
	}

	dir, err := os.MkdirTemp("", "selfheal-sandbox-*")
	if err != nil {
		return TestResult{}, fmt.Errorf("sandbox: temp dir: %w", err)
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil {
			s.cfg.Logger.Warn("sandbox: cleanup", "dir", dir, "err", err)
		}
	}()
	home := filepath.Join(dir, "home")
	src := filepath.Join(dir, "src")
	for _, d := range []string{home, src} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return TestResult{}, fmt.Errorf("sandbox: %w", err)
		}
	}
	files := map[string]string{
		"go.mod":         fmt.Sprintf("module %s\n\ngo 1.26\n", s.modulePath(pkg, tests)),
		pkg + ".go":      code,
		pkg + "_test.go": tests,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			return TestResult{}, fmt.Errorf("sandbox: write %s: %w", name, err)
		}
	}

	args := []string{"test", "-json", "-count=1", "-timeout=" + s.cfg.TestTimeout.String()}
	if !s.cfg.NoRace {
		args = append(args, "-race")
	}
	args = append(args, "./...")
	name, argv := s.cfg.GoBin, args
	if s.isolated {
		name, argv = s.unshare, append([]string{"-rn", "--", s.cfg.GoBin}, args...)
	}

	runCtx, cancel := context.WithTimeout(ctx, s.cfg.TestTimeout+s.cfg.BuildTimeout)
	defer cancel()
	limitCtx, stop := context.WithCancelCause(runCtx)
	defer stop(nil)

	cmd := exec.CommandContext(limitCtx, name, argv...)
	cmd.Dir = src
	cmd.Env = s.env(home)
	killGroup(cmd)
	out := newCappedOutput(s.cfg.MaxOutput, func() { stop(errOutputLimit) })
	cmd.Stdout = out.stream(0)
	cmd.Stderr = out.stream(1)

	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start)

	stdout, stderr, truncated := out.result()
	res, info := parseTestJSON(stdout)
	res.Duration = elapsed
	res.Truncated = truncated
	res.ExitCode = -1
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	if len(bytes.TrimSpace(stderr)) > 0 {
		res.Output = joinNonEmpty(res.Output, strings.TrimRight(string(stderr), "\n"))
	}

	switch {
	case errors.Is(context.Cause(limitCtx), errOutputLimit):
		res.markOutputLimit(s.cfg.MaxOutput)
	case ctx.Err() != nil:
		return res, fmt.Errorf("sandbox: %w", ctx.Err())
	case runCtx.Err() != nil:
		res.markKilled(s.cfg.TestTimeout + s.cfg.BuildTimeout)
	case runErr != nil && cmd.ProcessState == nil:
		return res, fmt.Errorf("sandbox: start go test: %w", runErr)
	}
	res.finish(info, string(stderr))
	s.cfg.Logger.Debug("sandbox: run", "passed", res.Passed, "pass", res.PassCount, "fail", res.FailCount,
		"kind", res.Failure, "exit", res.ExitCode, "elapsed", elapsed)
	return res, nil
}

var errOutputLimit = errors.New("output limit exceeded")

// env is the subprocess environment: nothing from the caller's environment
// but PATH.
func (s *Sandbox) env(home string) []string {
	cgo := "1"
	if s.cfg.NoRace {
		cgo = "0"
	}
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"GOCACHE=" + s.cfg.GoCache,
		"GOMODCACHE=" + s.cfg.GoModCache,
		"GOPATH=" + s.cfg.GoPath,
		"GOFLAGS=-mod=mod",
		"GOPROXY=off",
		"GOTOOLCHAIN=local",
		"CGO_ENABLED=" + cgo,
	}
}

// packageName parses just the package clause of src.
func packageName(what, src string) (string, error) {
	if strings.TrimSpace(src) == "" {
		return "", fmt.Errorf("sandbox: %w: %s is empty", ErrBadSource, what)
	}
	f, err := parser.ParseFile(token.NewFileSet(), what+".go", src, parser.PackageClauseOnly)
	if err != nil {
		return "", fmt.Errorf("sandbox: %w: %s: %v", ErrBadSource, what, err)
	}
	if f.Name.Name == "main" {
		return "", fmt.Errorf("sandbox: %w: %s is package main; use a library package", ErrBadSource, what)
	}
	return f.Name.Name, nil
}

// modulePath chooses the sandbox module's path. An external test package
// (package x_test) imports the code by some path ending in /x or equal to x:
// that path, unless it names a standard library package, is the module
// path. Otherwise the path is "sandbox.test/<pkg>", which cannot collide
// with the standard library (a module named "strings" would).
func (s *Sandbox) modulePath(pkg, tests string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "tests.go", tests, parser.ImportsOnly)
	if err == nil {
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil || path.Base(p) != pkg || !reModPath.MatchString(p) || strings.Contains(p, "..") {
				continue
			}
			if _, err := os.Stat(filepath.Join(s.goroot, "src", filepath.FromSlash(p))); err == nil {
				continue // a standard library package
			}
			return p
		}
	}
	return "sandbox.test/" + pkg
}

// reModPath is a conservative module path: slash-separated elements of
// letters, digits and ._~- (see the go.mod reference).
var reModPath = regexp.MustCompile(`^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$`)

// probeNetns reports whether `unshare -rn` works here.
func probeNetns(ctx context.Context) (string, bool) {
	bin, err := exec.LookPath("unshare")
	if err != nil {
		return "", false
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := exec.CommandContext(ctx, bin, "-rn", "--", "true").Run(); err != nil {
		return "", false
	}
	return bin, true
}

// cappedOutput collects stdout and stderr up to a shared limit; the first
// write past the limit calls onLimit (which stops the process) and the rest
// is discarded.
type cappedOutput struct {
	mu      sync.Mutex
	limit   int
	n       int
	bufs    [2]bytes.Buffer
	over    bool
	onLimit func()
}

func newCappedOutput(limit int, onLimit func()) *cappedOutput {
	return &cappedOutput{limit: limit, onLimit: onLimit}
}

type cappedStream struct {
	c *cappedOutput
	i int
}

func (c *cappedOutput) stream(i int) *cappedStream { return &cappedStream{c: c, i: i} }

func (w *cappedStream) Write(p []byte) (int, error) {
	c := w.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over {
		return len(p), nil
	}
	room := c.limit - c.n
	if len(p) > room {
		c.bufs[w.i].Write(p[:room])
		c.n = c.limit
		c.over = true
		c.onLimit()
		return len(p), nil
	}
	c.bufs[w.i].Write(p)
	c.n += len(p)
	return len(p), nil
}

func (c *cappedOutput) result() (stdout, stderr []byte, truncated bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.bufs[0].Bytes()), bytes.Clone(c.bufs[1].Bytes()), c.over
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
