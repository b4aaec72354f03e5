package team

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Failure classifies why a sandbox run did not pass.
type Failure string

const (
	FailureNone        Failure = ""             // the run passed
	FailureBuild       Failure = "build"        // the code or the tests do not compile
	FailureTests       Failure = "tests"        // one or more tests failed
	FailureRace        Failure = "race"         // the race detector reported a data race
	FailureTimeout     Failure = "timeout"      // the tests ran past the test timeout (e.g. an infinite loop)
	FailurePanic       Failure = "panic"        // the test binary panicked
	FailureOutputLimit Failure = "output-limit" // the run wrote more than the output cap and was stopped
	FailureKilled      Failure = "killed"       // the subprocess outlived the sandbox deadline and was killed
	FailureNoTests     Failure = "no-tests"     // the package built but ran no tests
)

// TestResult is the outcome of one sandbox run.
type TestResult struct {
	Passed   bool
	ExitCode int // of go test; -1 when it was killed or did not start
	// Output is the human-readable test output (the Output of every
	// go test -json event, and any stderr), capped by SandboxConfig.MaxOutput.
	Output string
	// PassCount, FailCount and SkipCount count tests and subtests. A test
	// still running when the binary died (timeout, panic) counts as failed.
	PassCount, FailCount, SkipCount int
	FailedTests                     []string
	Failure                         Failure
	// ErrorSummary is one short paragraph saying what went wrong, for a
	// model's prompt and for the terminal.
	ErrorSummary string
	// Failures is the failure section: the output of the failed tests, the
	// build errors, or the timeout dump (trimmed to a few KiB).
	Failures  string
	Truncated bool // output hit the cap
	Duration  time.Duration
}

// Total is the number of tests that reported a result.
func (r TestResult) Total() int { return r.PassCount + r.FailCount + r.SkipCount }

// testEvent is one line of go test -json (test2json plus, since Go 1.24,
// build-output events).
type testEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

// maxFailures bounds the failure section fed to a model.
const maxFailures = 6 << 10

// parseTestJSON turns a go test -json stream into a TestResult (without the
// fields the sandbox fills in). Lines that are not JSON are kept as output;
// a last line cut off by the output cap is ignored.
func parseTestJSON(stream []byte) (TestResult, parseInfo) {
	var (
		info      parseInfo
		res       TestResult
		output    strings.Builder
		build     strings.Builder
		perTest   = map[string]*strings.Builder{}
		running   []string
		pkgOutput strings.Builder
		pkgFailed bool
		failed    []string
	)
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev testEvent
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			output.Write(line)
			output.WriteByte('\n')
			continue
		}
		switch ev.Action {
		case "build-output":
			build.WriteString(ev.Output)
			output.WriteString(ev.Output)
			continue
		case "build-fail":
			res.Failure = FailureBuild
			continue
		}
		output.WriteString(ev.Output)
		if ev.Test == "" {
			switch ev.Action {
			case "output":
				pkgOutput.WriteString(ev.Output)
			case "fail":
				pkgFailed = true
				if ev.FailedBuild != "" {
					res.Failure = FailureBuild
				}
			}
			continue
		}
		switch ev.Action {
		case "run":
			running = append(running, ev.Test)
		case "output":
			b := perTest[ev.Test]
			if b == nil {
				b = &strings.Builder{}
				perTest[ev.Test] = b
			}
			b.WriteString(ev.Output)
		case "pass", "fail", "skip":
			running = slices.DeleteFunc(running, func(s string) bool { return s == ev.Test })
			switch ev.Action {
			case "pass":
				res.PassCount++
			case "skip":
				res.SkipCount++
			case "fail":
				res.FailCount++
				failed = append(failed, ev.Test)
			}
		}
	}

	// Tests that never finished were running when the binary died.
	if pkgFailed || len(running) > 0 {
		for _, t := range running {
			res.FailCount++
			failed = append(failed, t)
		}
	}
	res.FailedTests = failed
	res.Output = strings.TrimRight(output.String(), "\n")

	var fs strings.Builder
	if build.Len() > 0 {
		fs.WriteString(build.String())
	}
	for _, t := range failed {
		if b := perTest[t]; b != nil {
			fs.WriteString(b.String())
		}
	}
	if pkgFailed && res.Failure != FailureBuild {
		fs.WriteString(pkgOutput.String())
	}
	res.Failures = capText(strings.TrimRight(fs.String(), "\n"), maxFailures)
	for _, t := range failed {
		if b := perTest[t]; b != nil && strings.Contains(b.String(), "WARNING: DATA RACE") {
			info.raced = append(info.raced, t)
		}
	}
	res.Passed = !pkgFailed && res.FailCount == 0 && res.Failure == FailureNone && res.PassCount > 0
	return res, info
}

// parseInfo is what parseTestJSON learns beyond the TestResult.
type parseInfo struct {
	raced []string // failed tests whose output has a race report
}

// markOutputLimit records that the run was stopped for writing too much.
func (r *TestResult) markOutputLimit(limit int) {
	r.Passed = false
	r.Failure = FailureOutputLimit
	r.Truncated = true
	r.ErrorSummary = fmt.Sprintf("output flood: the run wrote more than %d bytes and was stopped; "+
		"tests must not print unbounded output", limit)
}

// markKilled records that the subprocess was killed at the sandbox deadline.
func (r *TestResult) markKilled(after time.Duration) {
	r.Passed = false
	r.Failure = FailureKilled
	r.ErrorSummary = fmt.Sprintf("killed: go test did not finish within %s (build and tests)", after)
}

var (
	reTimeout    = regexp.MustCompile(`panic: test timed out after (\S+)`)
	rePanic      = regexp.MustCompile(`(?m)^panic: (.*)$`)
	reAssertLine = regexp.MustCompile(`(?m)^\s+(\S+_test\.go:\d+: .*)$`)
	reRaceAccess = regexp.MustCompile(`(?m)^(?:Previous )?(?:[Ww]rite|[Rr]ead) at 0x[0-9a-f]+ by goroutine \d+:\n\s+(\S+)\n\s+(\S+)`)
)

// finish classifies the failure (unless already known) and writes the
// error summary.
func (r *TestResult) finish(info parseInfo, stderr string) {
	if r.Failure == FailureOutputLimit || r.Failure == FailureKilled {
		return
	}
	all := r.Output
	switch {
	case r.Failure == FailureBuild:
		r.ErrorSummary = "build failed (compiler or go vet):\n" + firstLines(buildErrors(r.Failures+"\n"+stderr), 8)
		return
	case r.Passed && r.ExitCode != 0:
		r.Passed = false
		r.Failure = FailureTests
		r.ErrorSummary = fmt.Sprintf("go test exited with code %d although no test failed (a TestMain or os.Exit?)", r.ExitCode)
		if o := strings.TrimSpace(stderr); o != "" {
			r.ErrorSummary += ":\n" + firstLines(o, 8)
		}
		return
	case r.Passed:
		r.Failure = FailureNone
		r.ErrorSummary = ""
		return
	case reTimeout.MatchString(all):
		r.Failure = FailureTimeout
		m := reTimeout.FindStringSubmatch(all)
		r.ErrorSummary = fmt.Sprintf("timeout: the tests ran longer than %s and were stopped (still running: %s); "+
			"look for an infinite loop or a deadlock", m[1], listOr(r.runningAtDeath(), "unknown"))
		return
	case strings.Contains(all, "WARNING: DATA RACE"):
		r.Failure = FailureRace
		var where []string
		for _, m := range reRaceAccess.FindAllStringSubmatch(all, 4) {
			where = appendUnique(where, fmt.Sprintf("%s at %s", shortFunc(m[1]), shortPath(m[2])))
		}
		r.ErrorSummary = fmt.Sprintf("data race detected by -race in %s; racing accesses: %s",
			listOr(info.raced, "the package"), listOr(where, "see output"))
	case rePanic.MatchString(all):
		r.Failure = FailurePanic
		m := rePanic.FindStringSubmatch(all)
		r.ErrorSummary = fmt.Sprintf("panic: %s (in %s)", m[1], listOr(r.FailedTests, "the package"))
	case r.Total() == 0 && r.FailCount == 0:
		r.Failure = FailureNoTests
		r.ErrorSummary = "no tests ran: the test file has no Test functions, or none matched"
		if strings.TrimSpace(r.Failures) != "" {
			r.ErrorSummary += ":\n" + firstLines(r.Failures, 8)
		}
		return
	default:
		r.Failure = FailureTests
	}
	if r.Failure == FailureTests && r.FailCount == 0 {
		r.ErrorSummary = fmt.Sprintf("no test failed, but the test binary failed (exit code %d; a TestMain or os.Exit?):\n%s",
			r.ExitCode, firstLines(r.Failures, 8))
		return
	}
	if r.Failure == FailureTests || r.Failure == FailurePanic {
		msg := fmt.Sprintf("%d of %d tests failed: %s", r.FailCount, r.Total(), listOr(r.FailedTests, "?"))
		var lines []string
		for _, m := range reAssertLine.FindAllStringSubmatch(r.Failures, 6) {
			lines = appendUnique(lines, m[1])
		}
		if len(lines) > 0 {
			msg += "\n" + strings.Join(lines, "\n")
		}
		if r.Failure == FailurePanic {
			r.ErrorSummary += "\n" + msg
		} else {
			r.ErrorSummary = msg
		}
	}
}

// runningAtDeath lists failed tests that have no --- FAIL line (they were
// running when the binary died).
func (r *TestResult) runningAtDeath() []string {
	var out []string
	for _, t := range r.FailedTests {
		if !strings.Contains(r.Output, "--- FAIL: "+t+" ") {
			out = append(out, t)
		}
	}
	return out
}

func buildErrors(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "FAIL") {
			continue
		}
		out = appendUnique(out, l)
	}
	if len(out) == 0 {
		return "(no compiler output)"
	}
	return strings.Join(out, "\n")
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}

func listOr(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	return strings.Join(xs, ", ")
}

func appendUnique(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// shortFunc drops the import path before a function's package name
// ("sandbox.test/calc.Sum()" → "calc.Sum()").
func shortFunc(f string) string {
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		return f[i+1:]
	}
	return f
}

// shortPath keeps the file name and line of a stack frame path.
func shortPath(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.Index(p, " +0x"); i >= 0 {
		p = p[:i]
	}
	return p
}

// capText keeps at most n bytes of s, cutting at a line boundary.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	if i := strings.LastIndexByte(cut, '\n'); i > n/2 {
		cut = cut[:i]
	}
	return cut + fmt.Sprintf("\n... (%d more bytes)", len(s)-len(cut))
}
