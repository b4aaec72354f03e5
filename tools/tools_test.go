package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/tools"
)

type inner struct {
	Depth int `json:"depth"`
}

type searchArgs struct {
	Query  string   `json:"query" jsonschema:"description=text to find"`
	Limit  int      `json:"limit,omitempty"`
	Mode   string   `json:"mode,omitempty" jsonschema:"enum=fast,enum=exact"`
	Tags   []string `json:"tags,omitempty"`
	Nested *inner   `json:"nested,omitempty"`
}

func newSearch(t *testing.T) *tools.Typed[searchArgs] {
	t.Helper()
	st, err := tools.Define("search", "Searches.", func(ctx context.Context, in searchArgs) (string, error) {
		switch in.Query {
		case "boom":
			panic("kaboom")
		case "fail":
			return "", errors.New("backend down")
		}
		b, _ := json.Marshal(in)
		return string(b), nil
	})
	require.NoError(t, err)
	return st
}

func TestSchemaIsStrict(t *testing.T) {
	var s struct {
		Type                 string                     `json:"type"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Schema               string                     `json:"$schema"`
	}
	require.NoError(t, json.Unmarshal(newSearch(t).Schema(), &s))
	assert.Equal(t, "object", s.Type)
	assert.Equal(t, []string{"query"}, s.Required)
	require.NotNil(t, s.AdditionalProperties)
	assert.False(t, *s.AdditionalProperties)
	assert.Len(t, s.Properties, 5)
	assert.Contains(t, string(s.Properties["mode"]), `"enum":["fast","exact"]`)
	assert.Contains(t, string(s.Properties["nested"]), `"additionalProperties":false`)
	assert.Empty(t, s.Schema, "no $schema noise for model APIs")
}

func TestDefineRejectsBadDefinitions(t *testing.T) {
	ok := func(context.Context, searchArgs) (string, error) { return "", nil }
	_, err := tools.Define("has space", "", ok)
	assert.ErrorContains(t, err, "tool name")
	_, err = tools.Define[searchArgs]("x", "", nil)
	assert.ErrorContains(t, err, "nil function")
	_, err = tools.Define("x", "", func(context.Context, string) (string, error) { return "", nil })
	assert.ErrorContains(t, err, "not a struct")
	assert.Panics(t, func() { tools.New("", "", ok) })
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, args, field string
		want              []string
	}{
		{"not json", `{"query":`, "", []string{"JSON object", "malformed JSON"}},
		{"array", `[1,2]`, "", []string{"must be a JSON object"}},
		{"missing required", `{"limit":3}`, "query", []string{`missing required field "query"`, "query (string)", "limit (integer, optional)"}},
		{"null required", `{"query":null}`, "query", []string{`missing required field "query"`}},
		{"unknown field", `{"query":"a","colour":"red"}`, "colour", []string{`unknown field(s) "colour"`, "allowed fields: query"}},
		{"wrong type", `{"query":"a","limit":"ten"}`, "limit", []string{`field "limit": expected an integer, got JSON string`}},
		{"wrong type string", `{"query":5}`, "query", []string{`field "query": expected a string, got JSON number`}},
		{"wrong elem", `{"query":"a","tags":[1]}`, "tags", []string{`expected a string`}},
		{"enum", `{"query":"a","mode":"slow"}`, "mode", []string{`"slow" is not allowed; expected one of "fast", "exact"`}},
		{"nested unknown", `{"query":"a","nested":{"depth":1,"x":2}}`, "x", []string{`unknown nested field "x"`}},
		{"nested type", `{"query":"a","nested":{"depth":"deep"}}`, "nested.depth", []string{`expected an integer`}},
		{"trailing garbage", `{"query":"a"} {}`, "", []string{}},
	}
	st := newSearch(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := st.Decode(json.RawMessage(tc.args))
			if tc.name == "trailing garbage" {
				// json.Unmarshal of the top map rejects it already.
				require.Error(t, err)
				return
			}
			var ae *tools.ArgumentError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "search", ae.Tool)
			assert.Equal(t, tc.field, ae.Field)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestDecodeOK(t *testing.T) {
	st := newSearch(t)
	in, err := st.Decode(json.RawMessage(`{"query":"q","limit":2,"mode":"exact","tags":["a"],"nested":{"depth":3}}`))
	require.NoError(t, err)
	assert.Equal(t, searchArgs{Query: "q", Limit: 2, Mode: "exact", Tags: []string{"a"}, Nested: &inner{Depth: 3}}, in)

	type noArgs struct{}
	nt := tools.New("ping", "", func(context.Context, noArgs) (string, error) { return "pong", nil })
	for _, a := range []string{"", "null", " {} "} {
		out, err := nt.Call(context.Background(), json.RawMessage(a))
		require.NoError(t, err, "args %q", a)
		assert.Equal(t, "pong", out)
	}
}

func TestRegistry(t *testing.T) {
	type noArgs struct{}
	ping := tools.New("ping", "Pings.", func(context.Context, noArgs) (string, error) { return "pong", nil })
	reg, err := tools.NewRegistry(newSearch(t), ping)
	require.NoError(t, err)
	assert.Equal(t, []string{"search", "ping"}, reg.Names())
	require.Len(t, reg.List(), 2)
	assert.Equal(t, "ping", reg.List()[1].Name())
	_, ok := reg.Get("ping")
	assert.True(t, ok)

	assert.ErrorContains(t, reg.Register(ping), `duplicate tool name "ping"`)
	assert.ErrorContains(t, reg.Register(nil), "nil tool")
	assert.Len(t, reg.Names(), 2, "failed registrations add nothing")

	ctx := context.Background()
	tests := []struct {
		name, tool, args string
		isErr            bool
		want             string
		errAs            any
	}{
		{"ok", "search", `{"query":"x"}`, false, `"query":"x"`, nil},
		{"unknown tool", "serch", `{}`, true, `unknown tool "serch"; available tools: search, ping`, new(*tools.UnknownToolError)},
		{"bad json", "search", `{"query"`, true, "not valid JSON", new(*tools.ArgumentError)},
		{"bad args", "search", `{"q":"x"}`, true, `unknown field(s) "q"`, new(*tools.ArgumentError)},
		{"tool error", "search", `{"query":"fail"}`, true, `tool "search" failed: backend down`, new(*tools.ToolError)},
		{"panic", "search", `{"query":"boom"}`, true, `tool "search" crashed (panic: kaboom)`, new(*tools.PanicError)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, isErr := reg.Dispatch(ctx, tc.tool, json.RawMessage(tc.args))
			assert.Equal(t, tc.isErr, isErr)
			assert.Contains(t, out, tc.want)
			_, err := reg.Call(ctx, tc.tool, json.RawMessage(tc.args))
			if tc.errAs == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorAs(t, err, tc.errAs)
			}
		})
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = reg.Call(cctx, "ping", nil)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestRegistryConcurrent(t *testing.T) {
	reg := &tools.Registry{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			type a struct{}
			name := string(rune('a' + i))
			_ = reg.Register(tools.New(name, "", func(context.Context, a) (string, error) { return name, nil }))
			out, isErr := reg.Dispatch(context.Background(), name, nil)
			assert.False(t, isErr)
			assert.Equal(t, name, out)
		})
	}
	wg.Wait()
	assert.Len(t, reg.List(), 8)
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"query":"a"}`, `{"query":1}`, `[`, `null`, `{"nested":{"depth":1}}`, `{"mode":"fast","query":""}`} {
		f.Add(s)
	}
	st, err := tools.Define("search", "", func(context.Context, searchArgs) (string, error) { return "", nil })
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, s string) {
		_, err := st.Decode(json.RawMessage(s))
		if err != nil {
			var ae *tools.ArgumentError
			require.ErrorAs(t, err, &ae)
			require.NotEmpty(t, ae.Error())
		}
	})
}
