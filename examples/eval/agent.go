package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
	"github.com/mxschmitt/playwright-go"
	"github.com/tmc/langchaingo/llms"
)

// Claim is what an agent says about its attempt. The runner does not trust
// it: Success is compared with the graders' verdict.
type Claim struct {
	Success bool    `json:"success"`
	Answer  string  `json:"answer,omitempty"`
	Steps   int     `json:"steps"`
	CostUSD float64 `json:"cost_usd"`
	// Page, when set, is the final page to grade instead of the trial
	// session's (for agents that drive a page of their own). The runner
	// closes it after grading.
	Page playwright.Page `json:"-"`
}

// Agent attempts one task on the stage it is given. The stage's session is
// already on the start URL; every action counts as a step and the budget is
// Stage.Task.Steps.
type Agent interface {
	Name() string
	Attempt(ctx context.Context, st Stage) (Claim, error)
}

// Script is a scripted agent's plan for one task: fixed intents, then a
// claim.
type Script struct {
	Intents []browser.Intent
	Claim   bool
	Answer  string
}

// Scripted replays a fixed intent list per task id; it needs no model. A
// task without a script is attempted with no action and claimed as failed.
type Scripted struct {
	Scripts map[string]Script
}

// Name is "scripted".
func (a *Scripted) Name() string { return "scripted" }

// Attempt runs the task's intents within the step budget and returns the
// scripted claim (stopping early, without a claim, when an intent fails).
func (a *Scripted) Attempt(ctx context.Context, st Stage) (Claim, error) {
	sc, ok := a.Scripts[st.Task.ID]
	if !ok {
		return Claim{}, nil
	}
	c := Claim{Success: sc.Claim, Answer: sc.Answer}
	for _, in := range sc.Intents {
		if c.Steps >= st.Task.Steps {
			return c, nil // budget spent; the claim stands, the graders decide
		}
		c.Steps++
		if r := st.Session.Do(ctx, in); !r.OK {
			return Claim{Steps: c.Steps, Answer: "failed: " + r.Error}, nil
		}
	}
	return c, nil
}

// ModelAgent is a plan → act → observe → reflect graph over browser: the
// model writes a plan, then picks one JSON intent per step (or finishes
// with a claim); the step budget is a hard limit enforced by the graph.
type ModelAgent struct {
	Model llms.Model
	// Cost, when set, reports the dollars spent so far (e.g. an llm.Meter's
	// Total().CostUSD); the claim carries the trial's share.
	Cost func() float64
}

// Name is "model".
func (a *ModelAgent) Name() string { return "model" }

// loopState is the agent graph's state.
type loopState struct {
	Task    string
	Plan    string
	Intent  string
	Next    string // act's choice: observe, reflect or end
	Obs     string
	Steps   int
	Done    bool
	Success bool
	Answer  string
	Log     []string // append
}

// decision is the model's reply in the act node.
type decision struct {
	Intent *browser.Intent `json:"intent,omitempty"`
	Done   bool            `json:"done,omitempty"`
	// Success and Answer are the claim when Done.
	Success bool   `json:"success,omitempty"`
	Answer  string `json:"answer,omitempty"`
}

const actPrompt = `You control a browser to do a task. Reply with one JSON object and nothing else:
{"intent": {"action": "...", ...}} to act, or {"done": true, "success": true|false, "answer": "..."} to finish.
Actions: %s. Targets are snapshot refs (e12) or stable selectors (testid=…, role=button[name="…"], label=…, text=…, #id).`

// Attempt runs the graph for one task.
func (a *ModelAgent) Attempt(ctx context.Context, st Stage) (Claim, error) {
	if a.Model == nil {
		return Claim{}, fmt.Errorf("model agent: no model")
	}
	cost0 := 0.0
	if a.Cost != nil {
		cost0 = a.Cost()
	}
	budget := st.Task.Steps
	acts := make([]string, 0, len(browser.Actions()))
	for _, x := range browser.Actions() {
		acts = append(acts, string(x))
	}
	ask := func(ctx context.Context, system, human string) (string, error) {
		resp, err := a.Model.GenerateContent(ctx, []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, system),
			llms.TextParts(llms.ChatMessageTypeHuman, human),
		}, llms.WithTemperature(0))
		if err != nil {
			return "", err
		}
		if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
			return "", fmt.Errorf("empty reply")
		}
		return resp.Choices[0].Content, nil
	}
	g := graph.New[loopState](graph.Reducer(func(s *loopState) *[]string { return &s.Log }, state.Append[string]))
	g.AddNode("plan", func(ctx context.Context, s loopState) (loopState, error) {
		snap, _ := st.Session.Snapshot(ctx)
		p, err := ask(ctx, "Write a short numbered plan (at most 5 lines) for the browser task.", "Task: "+s.Task+"\nPage:\n"+snap.Text)
		if err != nil {
			return loopState{}, fmt.Errorf("plan: %w", err)
		}
		return loopState{Plan: p, Obs: snap.Text, Log: []string{"plan: " + p}}, nil
	})
	g.AddNode("act", func(ctx context.Context, s loopState) (loopState, error) {
		reply, err := ask(ctx, fmt.Sprintf(actPrompt, strings.Join(acts, ", ")),
			fmt.Sprintf("Task: %s\nPlan:\n%s\nSteps left: %d\nLast observation:\n%s", s.Task, s.Plan, budget-s.Steps, s.Obs))
		if err != nil {
			return loopState{}, fmt.Errorf("act: %w", err)
		}
		var d decision
		if err := json.Unmarshal([]byte(extractJSON(reply)), &d); err != nil || (!d.Done && d.Intent == nil) {
			// an unusable reply costs a step and is shown to the model
			return loopState{Next: "reflect", Obs: "your reply was not a JSON decision: " + clipText(reply, 200), Steps: s.Steps + 1, Log: []string{"bad reply"}}, nil
		}
		if d.Done {
			return loopState{Next: graph.End, Done: true, Success: d.Success, Answer: d.Answer, Log: []string{"done"}}, nil
		}
		raw, _ := json.Marshal(d.Intent)
		return loopState{Next: "observe", Intent: string(raw)}, nil
	})
	g.AddNode("observe", func(ctx context.Context, s loopState) (loopState, error) {
		r := st.Session.Run(ctx, json.RawMessage(s.Intent))
		return loopState{Obs: clipText(r.Text(), 6000), Steps: s.Steps + 1, Log: []string{"act: " + s.Intent}}, nil
	})
	g.AddNode("reflect", func(ctx context.Context, s loopState) (loopState, error) {
		if s.Steps >= budget {
			return loopState{Done: true, Log: []string{"budget spent"}}, nil
		}
		return loopState{Log: []string{fmt.Sprintf("step %d of %d", s.Steps, budget)}}, nil
	})
	g.AddEdge(graph.Start, "plan")
	g.AddEdge("plan", "act")
	g.AddConditionalEdges("act", graph.Branch(func(_ context.Context, s loopState) (string, error) {
		return s.Next, nil
	}), "observe", "reflect", graph.End)
	g.AddEdge("observe", "reflect")
	g.AddConditionalEdges("reflect", graph.Branch(func(_ context.Context, s loopState) (string, error) {
		if s.Done {
			return graph.End, nil
		}
		return "act", nil
	}), "act", graph.End)
	app, err := g.Compile()
	if err != nil {
		return Claim{}, fmt.Errorf("model agent: %w", err)
	}
	out, err := app.Invoke(ctx, loopState{Task: st.Task.Task})
	c := Claim{Success: out.Success, Answer: out.Answer, Steps: out.Steps}
	if a.Cost != nil {
		c.CostUSD = a.Cost() - cost0
	}
	if err != nil {
		return c, fmt.Errorf("model agent: %w", err)
	}
	return c, nil
}

func extractJSON(s string) string {
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return s
	}
	return s[i : j+1]
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
