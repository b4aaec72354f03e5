package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	_ tools.Tool = (*RecallTool)(nil)
	_ tools.Tool = (*ObservationTool)(nil)
)

func TestToolSchemas(t *testing.T) {
	q, _ := newTestQA(t, newQAFakeStore())
	for _, tool := range []tools.Tool{q.RecallTool(), q.ObservationTool("p", "t")} {
		var schema struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		require.NoError(t, json.Unmarshal(tool.Schema(), &schema), tool.Name())
		assert.Equal(t, "object", schema.Type)
		require.NotNil(t, schema.AdditionalProperties)
		assert.False(t, *schema.AdditionalProperties)
		for _, r := range schema.Required {
			assert.Contains(t, schema.Properties, r)
		}
		assert.NotEmpty(t, tool.Description())
	}
	assert.Equal(t, "recall_past_findings", q.RecallTool().Name())
	assert.Equal(t, "record_observation", q.ObservationTool("", "").Name())
}

func seedRecall(t *testing.T, q *QA) BugEntry {
	t.Helper()
	ctx := context.Background()
	out, err := q.RecordBug(ctx, BugReport{Kind: "http_5xx", Severity: "high", URL: "/checkout", Title: "Checkout fails with a server error", Evidence: "POST /api/checkout returned 500"})
	require.NoError(t, err)
	_, err = q.AddObservation(ctx, Observation{Text: "Coupon field accepts negative discounts", Page: "/cart", Persona: "adversarial"})
	require.NoError(t, err)
	_, err = q.AddQuirk(ctx, "/login", "Login button stays disabled until the password field loses focus", "")
	require.NoError(t, err)
	return out.Entry
}

func TestRecallTool(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, _ *qaClock) {
		ctx := context.Background()
		bug := seedRecall(t, q)
		tool := q.RecallTool()

		out, err := tool.Call(ctx, json.RawMessage(`{"query":"checkout server error"}`))
		require.NoError(t, err)
		assert.Contains(t, out, bug.Fingerprint)
		assert.Contains(t, out, "[open, high] http_5xx on /checkout")
		assert.NotContains(t, out, "Login button")

		out, err = tool.Call(ctx, json.RawMessage(`{"query":"coupon discounts"}`))
		require.NoError(t, err)
		assert.Contains(t, out, "observation by adversarial on /cart: Coupon field accepts negative discounts")

		out, err = tool.Call(ctx, json.RawMessage(`{"query":"login password","kinds":["quirks"]}`))
		require.NoError(t, err)
		assert.Contains(t, out, "quirk on /login")

		out, err = tool.Call(ctx, json.RawMessage(`{"query":"password checkout coupon","kinds":["bugs","observations","quirks"],"limit":2}`))
		require.NoError(t, err)
		assert.Contains(t, out, "2 past finding(s)")
		assert.NotContains(t, out, "3.")

		out, err = tool.Call(ctx, json.RawMessage(`{"query":"login password","kinds":["bugs"]}`))
		require.NoError(t, err)
		assert.Contains(t, out, "No past findings")

		out, err = tool.Call(ctx, json.RawMessage(`{"query":"zebra unicorn"}`))
		require.NoError(t, err)
		assert.Equal(t, `No past findings match "zebra unicorn".`, out)
	})
}

func TestRecallToolBadArguments(t *testing.T) {
	q, _ := newTestQA(t, newQAFakeStore())
	tool := q.RecallTool()
	tests := []struct{ name, args, want string }{
		{"not json", `{"query":`, "bad arguments"},
		{"not an object", `["checkout"]`, "bad arguments"},
		{"unknown field", `{"query":"x","top_k":3}`, `unknown field "top_k"`},
		{"wrong type", `{"query":42}`, "bad arguments"},
		{"trailing data", `{"query":"x"} {"query":"y"}`, "trailing data"},
		{"missing query", `{}`, `"query" is required`},
		{"empty args", ``, `"query" is required`},
		{"blank query", `{"query":"   "}`, `"query" is required`},
		{"long query", `{"query":"` + strings.Repeat("a", 501) + `"}`, "longer than 500"},
		{"limit zero", `{"query":"x","limit":0}`, "1..20"},
		{"limit big", `{"query":"x","limit":21}`, "1..20"},
		{"unknown kind", `{"query":"x","kinds":["pages"]}`, `unknown kind "pages"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tool.Call(context.Background(), json.RawMessage(tt.args))
			require.Error(t, err)
			require.ErrorIs(t, err, ErrInvalidQAInput)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), RecallToolName)
		})
	}
}

func TestObservationTool(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, _ *qaClock) {
		ctx := context.Background()
		tool := q.ObservationTool("power_user", "mission-7")
		out, err := tool.Call(ctx, json.RawMessage(`{"text":"Bulk delete asks no confirmation","page":"/items?page=2","tags":["bulk","ux"]}`))
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(out, "Recorded observation "), out)
		obs, err := q.Observations(ctx)
		require.NoError(t, err)
		require.Len(t, obs, 1)
		assert.Equal(t, "Bulk delete asks no confirmation", obs[0].Text)
		assert.Equal(t, "/items?page={n}", obs[0].Page)
		assert.Equal(t, "power_user", obs[0].Persona)
		assert.Equal(t, "mission-7", obs[0].ThreadID)
		assert.Equal(t, []string{"bulk", "ux"}, obs[0].Tags)
		assert.Contains(t, out, obs[0].ID)

		out, err = tool.Call(ctx, json.RawMessage(`{"text":"Sort resets after paging","page":"/items","quirk":true}`))
		require.NoError(t, err)
		assert.Equal(t, "Recorded quirk of /items (seen 1×).", out)
		quirks, err := q.Quirks(ctx)
		require.NoError(t, err)
		require.Len(t, quirks, 1)
		assert.Equal(t, "power_user", quirks[0].Persona)

		// What one agent records, the next recalls.
		recalled, err := q.RecallTool().Call(ctx, json.RawMessage(`{"query":"bulk delete confirmation"}`))
		require.NoError(t, err)
		assert.Contains(t, recalled, "Bulk delete asks no confirmation")
	})
}

func TestObservationToolBadArguments(t *testing.T) {
	q, _ := newTestQA(t, newQAFakeStore())
	tool := q.ObservationTool("", "")
	tests := []struct{ name, args, want string }{
		{"not json", `nope`, "bad arguments"},
		{"unknown field", `{"text":"x","severity":"high"}`, `unknown field "severity"`},
		{"missing text", `{"page":"/a"}`, `"text" is required`},
		{"long text", `{"text":"` + strings.Repeat("b", maxTextLen+1) + `"}`, "longer than"},
		{"quirk without page", `{"text":"x","quirk":true}`, `needs "page"`},
		{"too many tags", `{"text":"x","tags":["1","2","3","4","5","6","7","8","9","10","11"]}`, "at most 10 tags"},
		{"empty tag", `{"text":"x","tags":[" "]}`, "tags must be"},
		{"bad page", `{"text":"x","page":"http://[::1"}`, "invalid input"},
		{"tags wrong type", `{"text":"x","tags":"a,b"}`, "bad arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tool.Call(context.Background(), json.RawMessage(tt.args))
			require.ErrorIs(t, err, ErrInvalidQAInput)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	obs, err := q.Observations(context.Background())
	require.NoError(t, err)
	assert.Empty(t, obs, "nothing is stored on bad input")
}

func TestToolsThroughRegistry(t *testing.T) {
	q, _ := newTestQA(t, NewInMemoryStore())
	reg, err := tools.NewRegistry(q.RecallTool(), q.ObservationTool("explorer", "m"))
	require.NoError(t, err)
	out, isErr := reg.Dispatch(context.Background(), ObservationToolName, json.RawMessage(`{"text":"Footer links 404 on /legal"}`))
	require.False(t, isErr, out)
	out, isErr = reg.Dispatch(context.Background(), RecallToolName, json.RawMessage(`{"query":"footer legal"}`))
	require.False(t, isErr, out)
	assert.Contains(t, out, "Footer links 404")
	out, isErr = reg.Dispatch(context.Background(), RecallToolName, json.RawMessage(`{"q":"footer"}`))
	assert.True(t, isErr)
	assert.Contains(t, out, `unknown field "q"`)
}

// qaConceptEmbedder maps words to concept axes, so that words with no letters
// in common ("payment", "checkout") land close together: a stand-in for a
// real embedding model.
type qaConceptEmbedder struct{}

var qaConcepts = map[string]int{
	"checkout": 0, "payment": 0, "pay": 0, "billing": 0,
	"login": 1, "signin": 1, "password": 1, "credentials": 1,
	"crash": 2, "error": 2, "failure": 2, "broken": 2, "500": 2,
	"coupon": 3, "discount": 3, "discounts": 3, "voucher": 3,
}

func (qaConceptEmbedder) vec(text string) []float32 {
	v := make([]float32, 5)
	v[4] = 0.01 // never the zero vector
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if i, ok := qaConcepts[w]; ok {
			v[i]++
		}
	}
	return v
}

func (e qaConceptEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		out[i] = e.vec(s)
	}
	return out, nil
}

func (e qaConceptEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return e.vec(text), nil
}

func TestRecallSemanticWithEmbedder(t *testing.T) {
	var st graph.Store = NewInMemoryStore(WithEmbedder(qaConceptEmbedder{}))
	q, _ := newTestQA(t, st)
	bug := seedRecall(t, q)
	ctx := context.Background()

	// No word of the query occurs in the bug; the embedding still finds it.
	hits, err := q.Recall(ctx, "payment failure", []QAKind{KindBugs, KindObservations, KindQuirks}, 3)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, KindBugs, hits[0].Kind)
	assert.Equal(t, bug.Fingerprint, hits[0].Key)

	out, err := q.RecallTool().Call(ctx, json.RawMessage(`{"query":"voucher","limit":1}`))
	require.NoError(t, err)
	assert.Contains(t, out, "Coupon field accepts negative discounts")

	// Without the embedder the same query finds nothing: keywords only.
	kw, _ := newTestQA(t, NewInMemoryStore())
	seedRecall(t, kw)
	hits, err = kw.Recall(ctx, "payment failure", []QAKind{KindBugs}, 3)
	require.NoError(t, err)
	assert.Empty(t, hits)
}
