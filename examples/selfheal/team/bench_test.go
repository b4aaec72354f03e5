package team

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

func BenchmarkParseArchitect(b *testing.B) {
	task := RateLimiterTask()
	reply := "## Specifications\n" + task.Spec + "\n\n## Tests\n```go\n" + task.Tests + "```\n"
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseArchitect(reply); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseDebugger(b *testing.B) {
	task := RateLimiterTask()
	reply := "DIAGNOSIS:\n" + task.Diagnosis + "\n\nPATCHED_CODE:\n```go\n" + task.Fixed + "```\n"
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseDebugger(reply, "ratelimit"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseTestJSON parses a go test -json stream of 200 tests with
// 10 output lines each, one in ten failing.
func BenchmarkParseTestJSON(b *testing.B) {
	var sb strings.Builder
	for i := range 200 {
		fmt.Fprintf(&sb, `{"Action":"run","Package":"p","Test":"Test%d"}`+"\n", i)
		for j := range 10 {
			fmt.Fprintf(&sb, `{"Action":"output","Package":"p","Test":"Test%d","Output":"    p_test.go:%d: line %d\n"}`+"\n", i, j, j)
		}
		act := "pass"
		if i%10 == 0 {
			act = "fail"
		}
		fmt.Fprintf(&sb, `{"Action":"%s","Package":"p","Test":"Test%d"}`+"\n", act, i)
	}
	sb.WriteString(`{"Action":"fail","Package":"p"}` + "\n")
	stream := []byte(sb.String())
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r, _ := parseTestJSON(stream)
		if r.FailCount != 20 {
			b.Fatalf("FailCount = %d", r.FailCount)
		}
	}
}

// BenchmarkSandboxRun runs the built-in task's fixed code and tests through
// the sandbox (warm build cache), with and without -race.
func BenchmarkSandboxRun(b *testing.B) {
	task := RateLimiterTask()
	for _, c := range []struct {
		name   string
		noRace bool
	}{{"race", false}, {"norace", true}} {
		b.Run(c.name, func(b *testing.B) {
			sb, err := NewSandbox(context.Background(), SandboxConfig{NoRace: c.noRace})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				r, err := sb.Run(context.Background(), task.Fixed, task.Tests)
				if err != nil || !r.Passed {
					b.Fatalf("err %v, passed %v: %s", err, r.Passed, r.Output)
				}
			}
		})
	}
}

// BenchmarkOfflineRun is one whole offline run: four scripted model turns
// and two sandbox runs (fail with a race, then pass).
func BenchmarkOfflineRun(b *testing.B) {
	task := RateLimiterTask()
	sb, err := NewSandbox(context.Background(), SandboxConfig{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		tm, err := New(Config{Models: task.ScriptedModels(), Sandbox: sb})
		if err != nil {
			b.Fatal(err)
		}
		final, err := tm.Run(context.Background(), task.Request, nil)
		if err != nil || final.Status != StatusPassed {
			b.Fatalf("err %v, status %s", err, final.Status)
		}
	}
}
