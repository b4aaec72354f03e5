package team_test

import (
	"context"
	"fmt"

	"github.com/agentgraph/agentgraph/examples/selfheal/team"
)

func ExampleParseDebugger() {
	reply := "**Diagnosis:** Sum returns before the loop ends.\n\n" +
		"PATCHED_CODE:\n```go\npackage calc\n\nfunc Sum(xs []int) (n int) {\n\tfor _, x := range xs {\n\t\tn += x\n\t}\n\treturn n\n}\n```"
	out, err := team.ParseDebugger(reply, "calc")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Diagnosis)
	fmt.Print(out.Code)
	// Output:
	// Sum returns before the loop ends.
	// package calc
	//
	// func Sum(xs []int) (n int) {
	//	for _, x := range xs {
	//		n += x
	//	}
	//	return n
	// }
}

func ExampleParseArchitect() {
	_, err := team.ParseArchitect("Sure, here are some tests!")
	fmt.Println(err)
	// Output:
	// architect reply: no SPECIFICATIONS section found; start a line with "SPECIFICATIONS:" and describe the API and its behaviour
}

func ExampleSandbox_Run() {
	ctx := context.Background()
	sb, err := team.NewSandbox(ctx, team.SandboxConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	code := "package calc\n\nfunc Double(x int) int { return x + x }\n"
	tests := "package calc\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal(\"Double(2) != 4\")\n\t}\n}\n"
	res, err := sb.Run(ctx, code, tests)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Passed, res.PassCount, res.FailCount)
	// Output:
	// true 1 0
}

// The offline team: scripted models play the built-in task and the real
// sandbox runs their code.
func ExampleTeam_Run() {
	ctx := context.Background()
	sb, err := team.NewSandbox(ctx, team.SandboxConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	task := team.RateLimiterTask()
	t, err := team.New(team.Config{Models: task.ScriptedModels(), Sandbox: sb})
	if err != nil {
		fmt.Println(err)
		return
	}
	final, err := t.Run(ctx, task.Request, func(node string, up team.State) {
		if node == team.NodeSandbox {
			fmt.Printf("%s: passed=%v failure=%q\n", node, up.Results.Passed, up.Results.Failure)
			return
		}
		fmt.Println(node)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(final.Status, "after", final.Iteration, "debug round(s)")
	// Output:
	// architect
	// developer
	// sandbox: passed=false failure="race"
	// debugger
	// sandbox: passed=true failure=""
	// reviewer
	// passed after 1 debug round(s)
}
