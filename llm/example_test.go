package llm_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/tools"
	"github.com/tmc/langchaingo/llms"
)

func ExampleDetect() {
	env := llm.MapEnv(map[string]string{"OPENAI_BASE_URL": "http://localhost:8000/v1", "OLLAMA_HOST": "127.0.0.1:11434"})
	d, err := llm.Detect(env)
	fmt.Println(d.Provider, d.BaseURL, d.Source, err)

	_, err = llm.Detect(llm.MapEnv(nil))
	fmt.Println(err != nil)

	d, _ = llm.Detect(llm.MapEnv(nil), llm.OfflineFallback())
	fmt.Println(d.IsOffline())
	// Output:
	// openai http://localhost:8000/v1 OPENAI_BASE_URL <nil>
	// true
	// true
}

func ExampleTiers_Resolve() {
	tiers, err := llm.ParseTiersBytes([]byte("roles:\n  supervisor: {model: gpt-4.1-mini, temperature: 0}\n"))
	if err != nil {
		panic(err)
	}
	env := llm.MapEnv(map[string]string{"AGENTGRAPH_JUDGE_REASONING_EFFORT": "high"})
	det := llm.Detection{Provider: llm.OpenAI}
	sup, _ := tiers.Resolve(llm.RoleSupervisor, det, env)
	judge, _ := tiers.Resolve(llm.RoleJudge, det, env)
	fmt.Println(sup.Model, *sup.Temperature)
	fmt.Println(judge.Model, judge.ReasoningEffort)
	// Output:
	// gpt-4.1-mini 0
	// gpt-4o-mini high
}

func ExampleChoose() {
	model := llm.NewScripted(
		llm.CallTool("c1", llm.ChooseTool, map[string]string{"choice": "hacker"}), // outside the enum: retried
		llm.CallTool("c2", llm.ChooseTool, map[string]string{"choice": "new_user", "reason": "signup first"}),
	)
	c, err := llm.Choose(context.Background(), model,
		[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Who explores next?")},
		[]string{"new_user", "power_user", "FINISH"})
	fmt.Println(c.Option, c.Reason, err)
	// Output: new_user signup first <nil>
}

type cityArgs struct {
	City string `json:"city"`
}

func ExampleAgent_Run() {
	weather := tools.New("weather", "Weather for a city", func(_ context.Context, in cityArgs) (string, error) {
		if in.City != "Paris" {
			return "", fmt.Errorf("unknown city %q", in.City)
		}
		return "sunny", nil
	})
	reg, _ := tools.NewRegistry(weather)
	model := llm.NewScripted(
		llm.CallTool("1", "weather", map[string]string{"city": "Pariss"}),
		llm.CallTool("2", "weather", map[string]string{"city": "Paris"}),
		llm.Say("Sunny in Paris."),
	)
	a := &llm.Agent{Model: model, Tools: reg, MaxSteps: 5}
	res, err := a.Run(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")})
	if err != nil {
		panic(err)
	}
	for _, tc := range res.ToolCalls {
		fmt.Printf("%s %s -> %q error=%v\n", tc.Name, tc.Args, tc.Content, tc.IsError)
	}
	fmt.Println(res.Final, res.Steps)
	// Output:
	// weather {"city":"Pariss"} -> "error: tool \"weather\" failed: unknown city \"Pariss\"" error=true
	// weather {"city":"Paris"} -> "sunny" error=false
	// Sunny in Paris. 3
}

func ExampleTruncate() {
	s := strings.Repeat("a", 50) + strings.Repeat("z", 50)
	fmt.Println(llm.Truncate(s, 60))
	// Output:
	// aaaaaaaaaaaaaaaaaa
	// [… 65 characters cut …]
	// zzzzzzzzzzzzzzzzz
}

func ExampleMeter() {
	m := llm.NewMeter(nil)
	m.Record(llm.RoleSupervisor, "gpt-4o-mini", llm.Usage{Calls: 1, InputTokens: 12000, OutputTokens: 800})
	m.Record(llm.RolePersona, "claude-3-5-haiku-latest", llm.Usage{Calls: 1, InputTokens: 3000, OutputTokens: 500})
	fmt.Print(m.Summary())
	// Output:
	// persona      calls=1 in=3000 out=500 cost=$0.004400
	// supervisor   calls=1 in=12000 out=800 cost=$0.002280
	// total        calls=2 in=15000 out=1300 cost=$0.006680
}
