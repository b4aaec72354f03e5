package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentgraph/agentgraph/tools"
)

type greetArgs struct {
	Name  string `json:"name" jsonschema:"description=who to greet"`
	Times int    `json:"times,omitempty" jsonschema:"description=how often (default 1)"`
}

func Example() {
	greet := tools.New("greet", "Greets someone.", func(ctx context.Context, in greetArgs) (string, error) {
		n := max(in.Times, 1)
		return strings.TrimSpace(strings.Repeat("hello "+in.Name+" ", n)), nil
	})
	reg, err := tools.NewRegistry(greet)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	fmt.Println(reg.Dispatch(ctx, "greet", json.RawMessage(`{"name":"Ada","times":2}`)))
	fmt.Println(reg.Dispatch(ctx, "greet", json.RawMessage(`{"name":"Ada","loud":true}`)))
	fmt.Println(reg.Dispatch(ctx, "greeet", json.RawMessage(`{}`)))
	fmt.Println(string(greet.Schema()))
	// Output:
	// hello Ada hello Ada false
	// error: invalid arguments for tool "greet": unknown field(s) "loud"; allowed fields: name (string), times (integer, optional) true
	// error: unknown tool "greeet"; available tools: greet true
	// {"properties":{"name":{"type":"string","description":"who to greet"},"times":{"type":"integer","description":"how often (default 1)"}},"additionalProperties":false,"type":"object","required":["name"]}
}
