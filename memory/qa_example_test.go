package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentgraph/agentgraph/memory"
)

func exampleClock() func() time.Time {
	t := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Minute); return t }
}

// A bug seen twice is one catalog entry; the supervisor's context names the
// risky pages, and the open bugs become regression missions.
func ExampleQA() {
	ctx := context.Background()
	qa, err := memory.NewQA(memory.NewInMemoryStore(), "http://localhost:8080",
		memory.WithQAClock(exampleClock()), memory.WithQALogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	for _, id := range []string{"17", "23"} {
		rec, err := qa.RecordBug(ctx, memory.BugReport{
			Kind: "http_5xx", Severity: "high", URL: "/orders/" + id,
			Title: "Order page fails", Evidence: "GET /api/orders/" + id + " returned 500",
			Persona: "adversarial", TapeIndex: 3,
		})
		if err != nil {
			panic(err)
		}
		fmt.Printf("new=%v seen=%d page=%s\n", rec.New, rec.Entry.SeenCount, rec.Entry.Page)
	}
	if _, err := qa.AddQuirk(ctx, "/login", "Submit is enabled only after the password field loses focus", "new_user"); err != nil {
		panic(err)
	}

	text, err := qa.SupervisorContext(ctx, 600)
	if err != nil {
		panic(err)
	}
	fmt.Println(text)

	missions, err := qa.RegressionMissions(ctx)
	if err != nil {
		panic(err)
	}
	for _, m := range missions {
		fmt.Println(m.StartURL, len(m.Fingerprints))
	}
	// Output:
	// new=true seen=1 page=/orders/{n}
	// new=false seen=2 page=/orders/{n}
	// QA memory for http://localhost:8080:
	// High-risk pages:
	// - /orders/{n} (risk 10.0: 1 open bug)
	// - /login (risk 1.0: 1 quirk)
	// Open bugs:
	// - [high] http_5xx on /orders/{n}, seen 2×: Order page fails (id 1eb161d0e2dab48c)
	// Known quirks:
	// - /login: Submit is enabled only after the password field loses focus
	// http://localhost:8080/orders/23 1
}

// The agent tools satisfy tools.Tool; a model calls them with JSON arguments.
func ExampleQA_RecallTool() {
	ctx := context.Background()
	qa, err := memory.NewQA(memory.NewInMemoryStore(), "http://localhost:8080", memory.WithQAClock(exampleClock()))
	if err != nil {
		panic(err)
	}
	note := qa.ObservationTool("power_user", "mission-1")
	if _, err := note.Call(ctx, json.RawMessage(`{"text":"Bulk delete asks for no confirmation","page":"/items"}`)); err != nil {
		panic(err)
	}
	recall := qa.RecallTool()
	out, err := recall.Call(ctx, json.RawMessage(`{"query":"bulk delete"}`))
	fmt.Println(out, err)
	_, err = recall.Call(ctx, json.RawMessage(`{"query":"x","top":3}`))
	fmt.Println(err)
	// Output:
	// 1 past finding(s) for "bulk delete":
	// 1. observation by power_user on /items: Bulk delete asks for no confirmation <nil>
	// recall_past_findings: qa memory: invalid input: bad arguments: json: unknown field "top"
}

// Reflection after a batch: offline rules turn sessions and bugs into each
// persona's prompt supplement.
func ExampleQA_Reflect() {
	ctx := context.Background()
	qa, err := memory.NewQA(memory.NewInMemoryStore(), "http://localhost:8080", memory.WithQAClock(exampleClock()))
	if err != nil {
		panic(err)
	}
	if _, err := qa.RecordBug(ctx, memory.BugReport{Kind: "xss_executed", Severity: "critical", URL: "/search", Evidence: "alert fired", Payload: "<svg onload=alert(1)>", Persona: "adversarial"}); err != nil {
		panic(err)
	}
	if err := qa.SaveSession(ctx, memory.SessionSummary{ThreadID: "m-1", Personas: []string{"adversarial"}, Pages: []string{"/search"}}); err != nil {
		panic(err)
	}
	if _, err := qa.Reflect(ctx, memory.ReflectOptions{}); err != nil { // offline: memory.RuleReflector
		panic(err)
	}
	s, err := qa.Supplement(ctx, "adversarial")
	fmt.Println(s, err)
	// Output:
	// Learned from 1 past session(s) of adversarial:
	// - Pages where you found bugs (start there, re-check them): /search (1).
	// - Inputs that found bugs (try them and variants on other fields): "<svg onload=alert(1)>".
	// - Bug kinds you found: xss_executed (1). <nil>
}
