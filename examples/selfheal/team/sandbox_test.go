package team

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sumCode = `package calc

// Sum adds the numbers.
func Sum(xs ...int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}
`

const sumTests = `package calc

import "testing"

func TestSum(t *testing.T) {
	cases := []struct {
		in   []int
		want int
	}{{nil, 0}, {[]int{1}, 1}, {[]int{1, 2, 3}, 6}}
	for _, c := range cases {
		if got := Sum(c.in...); got != c.want {
			t.Errorf("Sum(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestSumNegative(t *testing.T) {
	if got := Sum(-1, 1); got != 0 {
		t.Fatalf("Sum(-1, 1) = %d, want 0", got)
	}
}
`

func newTestSandbox(t *testing.T, cfg SandboxConfig) *Sandbox {
	t.Helper()
	sb, err := NewSandbox(context.Background(), cfg)
	require.NoError(t, err)
	return sb
}

func TestSandbox(t *testing.T) {
	cases := []struct {
		name        string
		cfg         SandboxConfig
		code, tests string
		check       func(t *testing.T, r TestResult)
	}{
		{
			name: "passing code", code: sumCode, tests: sumTests,
			check: func(t *testing.T, r TestResult) {
				assert.True(t, r.Passed, r.Output)
				assert.Equal(t, 0, r.ExitCode)
				assert.Equal(t, 2, r.PassCount)
				assert.Zero(t, r.FailCount)
				assert.Equal(t, FailureNone, r.Failure)
				assert.Empty(t, r.ErrorSummary)
				assert.Contains(t, r.Output, "--- PASS: TestSum")
			},
		},
		{
			name: "failing code", code: strings.Replace(sumCode, "total += x", "total += x * x", 1), tests: sumTests,
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, 1, r.ExitCode)
				assert.Equal(t, FailureTests, r.Failure)
				assert.Equal(t, 0, r.PassCount)
				assert.Equal(t, 2, r.FailCount)
				assert.ElementsMatch(t, []string{"TestSum", "TestSumNegative"}, r.FailedTests)
				assert.Contains(t, r.ErrorSummary, "2 of 2 tests failed")
				assert.Contains(t, r.ErrorSummary, "Sum([1 2 3]) = 14, want 6")
				assert.Contains(t, r.Failures, "Sum(-1, 1) = 2, want 0")
			},
		},
		{
			name: "external test package", code: sumCode,
			tests: "package calc_test\n\nimport (\n\t\"calc\"\n\t\"testing\"\n)\n\n" +
				"func TestSum(t *testing.T) {\n\tif calc.Sum(1, 2) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n",
			check: func(t *testing.T, r TestResult) {
				assert.True(t, r.Passed, r.Output)
				assert.Equal(t, 1, r.PassCount)
			},
		},
		{
			name: "tests that do not parse", code: sumCode, tests: "package calc\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { Sum. }\n",
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, FailureBuild, r.Failure)
				assert.Contains(t, r.ErrorSummary, "calc_test.go:5")
			},
		},
		{
			name: "external test package importing a module path", code: sumCode,
			tests: "package calc_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/team/calc\"\n)\n\n" +
				"func TestSum(t *testing.T) {\n\tif calc.Sum(1, 2) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n",
			check: func(t *testing.T, r TestResult) {
				assert.True(t, r.Passed, r.Output)
				assert.Equal(t, 1, r.PassCount)
			},
		},
		{
			name:  "package named like a standard library package",
			code:  "package strings\n\n// Twice repeats s.\nfunc Twice(s string) string { return s + s }\n",
			tests: "package strings\n\nimport \"testing\"\n\nfunc TestTwice(t *testing.T) {\n\tif Twice(\"a\") != \"aa\" {\n\t\tt.Fatal(\"twice\")\n\t}\n}\n",
			check: func(t *testing.T, r TestResult) {
				assert.True(t, r.Passed, r.Output)
				assert.Equal(t, 1, r.PassCount)
			},
		},
		{
			name: "code that does not compile", code: strings.Replace(sumCode, "return total", "return totl", 1), tests: sumTests,
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, FailureBuild, r.Failure)
				assert.NotZero(t, r.ExitCode)
				assert.Zero(t, r.PassCount)
				assert.Contains(t, r.ErrorSummary, "build failed")
				assert.Contains(t, r.ErrorSummary, "undefined: totl")
				assert.Contains(t, r.ErrorSummary, "calc.go:")
			},
		},
		{
			name:  "infinite loop is cut off",
			cfg:   SandboxConfig{TestTimeout: 3 * time.Second},
			code:  sumCode + "\n// Spin never returns.\nfunc Spin() int {\n\tn := 0\n\tfor {\n\t\tn++\n\t}\n}\n",
			tests: sumTests + "\nfunc TestSpin(t *testing.T) {\n\tSpin()\n}\n",
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, FailureTimeout, r.Failure)
				assert.Equal(t, 2, r.PassCount)
				assert.Equal(t, 1, r.FailCount)
				assert.Equal(t, []string{"TestSpin"}, r.FailedTests)
				assert.Contains(t, r.ErrorSummary, "timeout")
				assert.Contains(t, r.ErrorSummary, "3s")
				assert.Contains(t, r.ErrorSummary, "TestSpin")
				assert.Contains(t, r.Failures, "panic: test timed out")
			},
		},
		{
			name:  "output flood is capped",
			cfg:   SandboxConfig{MaxOutput: 64 << 10},
			code:  sumCode,
			tests: sumTests + "\nfunc TestFlood(t *testing.T) {\n\tfor {\n\t\tt.Log(\"flood flood flood flood flood flood flood flood\")\n\t}\n}\n",
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, FailureOutputLimit, r.Failure)
				assert.True(t, r.Truncated)
				assert.LessOrEqual(t, len(r.Output), 64<<10)
				assert.Contains(t, r.ErrorSummary, "output flood")
				assert.Less(t, r.Duration, 2*time.Minute, "the flood must stop the run, not the timeout")
			},
		},
		{
			name:  "data race caught by -race",
			code:  "package counter\n\nvar n int\n\n// Inc increments a shared counter without locking.\nfunc Inc() { n++ }\n",
			tests: "package counter\n\nimport (\n\t\"sync\"\n\t\"testing\"\n)\n\nfunc TestInc(t *testing.T) {\n\tvar wg sync.WaitGroup\n\tfor range 8 {\n\t\twg.Add(1)\n\t\tgo func() { defer wg.Done(); Inc() }()\n\t}\n\twg.Wait()\n}\n",
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, FailureRace, r.Failure)
				assert.Equal(t, []string{"TestInc"}, r.FailedTests)
				assert.Contains(t, r.ErrorSummary, "data race")
				assert.Contains(t, r.ErrorSummary, "racing accesses: counter.Inc() at counter.go:6")
			},
		},
		{
			name:  "panic",
			code:  sumCode + "\n// Boom panics.\nfunc Boom() { var m map[string]int; m[\"x\"] = 1 }\n",
			tests: sumTests + "\nfunc TestBoom(t *testing.T) { Boom() }\n",
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, FailurePanic, r.Failure)
				assert.Contains(t, r.FailedTests, "TestBoom")
				assert.Contains(t, r.ErrorSummary, "assignment to entry in nil map")
			},
		},
		{
			name:  "third-party import with GOPROXY=off",
			code:  "package calc\n\nimport \"github.com/example/nothere\"\n\n// Sum uses a module that is not there.\nfunc Sum(xs ...int) int { return nothere.Sum(xs...) }\n",
			tests: sumTests,
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, FailureBuild, r.Failure)
				assert.Contains(t, r.ErrorSummary, "module lookup disabled by GOPROXY=off")
			},
		},
		{
			name: "go vet failure", code: strings.Replace(sumCode, "package calc\n", "package calc\n\nimport \"fmt\"\n", 1) + "\n// Show formats badly.\nfunc Show() string { return fmt.Sprintf(\"%d\", \"x\") }\n",
			tests: sumTests,
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, FailureBuild, r.Failure)
				assert.Contains(t, r.ErrorSummary, "go vet")
				assert.Contains(t, r.ErrorSummary, "fmt.Sprintf format %d has arg")
			},
		},
		{
			name:  "TestMain exits non-zero after passing tests",
			code:  sumCode,
			tests: strings.Replace(sumTests, "import \"testing\"", "import (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(3)\n}", 1),
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, FailureTests, r.Failure)
				assert.Equal(t, 2, r.PassCount)
				assert.Zero(t, r.FailCount)
				assert.Equal(t, 1, r.ExitCode)
				assert.Contains(t, r.ErrorSummary, "no test failed, but the test binary failed")
			},
		},
		{
			name: "no tests", code: sumCode, tests: "package calc\n",
			check: func(t *testing.T, r TestResult) {
				assert.False(t, r.Passed)
				assert.Equal(t, FailureNoTests, r.Failure)
				assert.Contains(t, r.ErrorSummary, "no tests ran")
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sb := newTestSandbox(t, c.cfg)
			r, err := sb.Run(context.Background(), c.code, c.tests)
			require.NoError(t, err)
			c.check(t, r)
		})
	}
}

func TestSandboxBadSource(t *testing.T) {
	sb := newTestSandbox(t, SandboxConfig{NoRace: true})
	cases := []struct {
		name, code, tests, want string
	}{
		{"empty code", "", sumTests, "code is empty"},
		{"no package clause", "func F() {}", sumTests, "code"},
		{"package main", "package main\nfunc main() {}", sumTests, "package main"},
		{"mismatched packages", sumCode, "package other\n", `tests are package "other"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := sb.Run(context.Background(), c.code, c.tests)
			require.ErrorIs(t, err, ErrBadSource)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestSandboxCleanEnvironment(t *testing.T) {
	t.Setenv("SELFHEAL_SECRET", "do-not-leak")
	sb := newTestSandbox(t, SandboxConfig{})
	tests := "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestEnv(t *testing.T) {\n\tif v := os.Getenv(\"SELFHEAL_SECRET\"); v != \"\" {\n\t\tt.Fatalf(\"leaked %q\", v)\n\t}\n\tif v := os.Getenv(\"GOPROXY\"); v != \"off\" {\n\t\tt.Fatalf(\"GOPROXY=%q\", v)\n\t}\n}\n"
	r, err := sb.Run(context.Background(), sumCode, tests)
	require.NoError(t, err)
	assert.True(t, r.Passed, r.Output)
}

func TestSandboxCancelled(t *testing.T) {
	sb := newTestSandbox(t, SandboxConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := sb.Run(ctx, sumCode, sumTests)
	require.ErrorIs(t, err, context.Canceled)
}

func TestParseTestJSONTruncatedLine(t *testing.T) {
	stream := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA"}
not json at all
{"Action":"output","Package":"p","Test":"TestB","Outp`
	r, _ := parseTestJSON([]byte(stream))
	assert.Equal(t, 1, r.PassCount)
	assert.Contains(t, r.Output, "not json at all")
}

func TestSandboxNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	tests := fmt.Sprintf("package calc\n\nimport (\n\t\"net\"\n\t\"testing\"\n\t\"time\"\n)\n\n"+
		"func TestDial(t *testing.T) {\n\tc, err := net.DialTimeout(\"tcp\", %q, 2*time.Second)\n\tif err == nil {\n\t\tc.Close()\n\t\tt.Fatal(\"network reachable\")\n\t}\n}\n",
		ln.Addr().String())

	envOnly := newTestSandbox(t, SandboxConfig{Network: NetworkEnvOnly, NoRace: true})
	assert.False(t, envOnly.NetworkIsolated())
	r, err := envOnly.Run(context.Background(), sumCode, tests)
	require.NoError(t, err)
	assert.False(t, r.Passed, "without a namespace the loopback listener is reachable")
	assert.Contains(t, r.Failures, "network reachable")

	auto := newTestSandbox(t, SandboxConfig{NoRace: true})
	if !auto.NetworkIsolated() {
		t.Log("unshare -rn is not available here: NetworkAuto falls back to the environment only")
		_, err := NewSandbox(context.Background(), SandboxConfig{Network: NetworkIsolated})
		assert.ErrorContains(t, err, "network isolation requested")
		return
	}
	r, err = auto.Run(context.Background(), sumCode, tests)
	require.NoError(t, err)
	assert.True(t, r.Passed, "in its own network namespace the run cannot reach the host: %s", r.Output)
}
