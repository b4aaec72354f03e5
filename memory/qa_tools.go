package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// Tool names.
const (
	RecallToolName      = "recall_past_findings"
	ObservationToolName = "record_observation"
)

// qaDecodeArgs decodes a tool's JSON arguments strictly: one object, no
// unknown fields, nothing after it.
func qaDecodeArgs(tool string, args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w: bad arguments: %v", tool, ErrInvalidQAInput, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w: bad arguments: trailing data after the JSON object", tool, ErrInvalidQAInput)
	}
	return nil
}

// RecallTool is the recall_past_findings agent tool: a search over the bug
// catalog, agent observations and quirks of the app. The query goes to the
// Store as SearchQuery.Query, so a back-end with an embedder ranks by meaning
// and the others by keywords. It satisfies tools.Tool.
type RecallTool struct{ qa *QA }

// RecallTool returns the recall_past_findings tool over this memory.
func (q *QA) RecallTool() *RecallTool { return &RecallTool{qa: q} }

// Name implements tools.Tool.
func (*RecallTool) Name() string { return RecallToolName }

// Description implements tools.Tool.
func (*RecallTool) Description() string {
	return "Search what earlier QA sessions learned about this app: known bugs (with status and how often seen), agent observations and page quirks. Use it before testing a page to avoid re-reporting known bugs and to re-check risky areas."
}

// Schema implements tools.Tool.
func (*RecallTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"query":{"type":"string","minLength":1,"maxLength":500,"description":"words or a question, e.g. \"checkout server error\""},` +
		`"kinds":{"type":"array","items":{"type":"string","enum":["bugs","observations","quirks"]},"uniqueItems":true,"description":"what to search; default all three"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":20,"description":"results to return; default 5"}` +
		`},"required":["query"],"additionalProperties":false}`)
}

type recallArgs struct {
	Query string   `json:"query"`
	Kinds []string `json:"kinds"`
	Limit *int     `json:"limit"`
}

// Call implements tools.Tool.
func (t *RecallTool) Call(ctx context.Context, raw json.RawMessage) (string, error) {
	var a recallArgs
	if err := qaDecodeArgs(RecallToolName, raw, &a); err != nil {
		return "", err
	}
	a.Query = strings.TrimSpace(a.Query)
	if a.Query == "" {
		return "", fmt.Errorf("%s: %w: \"query\" is required", RecallToolName, ErrInvalidQAInput)
	}
	if len([]rune(a.Query)) > 500 {
		return "", fmt.Errorf("%s: %w: \"query\" is longer than 500 characters", RecallToolName, ErrInvalidQAInput)
	}
	limit := 5
	if a.Limit != nil {
		if *a.Limit < 1 || *a.Limit > 20 {
			return "", fmt.Errorf("%s: %w: \"limit\" must be 1..20, got %d", RecallToolName, ErrInvalidQAInput, *a.Limit)
		}
		limit = *a.Limit
	}
	kinds := []QAKind{KindBugs, KindObservations, KindQuirks}
	if len(a.Kinds) > 0 {
		kinds = kinds[:0:0]
		for _, k := range a.Kinds {
			kind := QAKind(k)
			if kind != KindBugs && kind != KindObservations && kind != KindQuirks {
				return "", fmt.Errorf("%s: %w: unknown kind %q (want bugs, observations or quirks)", RecallToolName, ErrInvalidQAInput, k)
			}
			if !qaContainsKind(kinds, kind) {
				kinds = append(kinds, kind)
			}
		}
	}
	hits, err := t.qa.Recall(ctx, a.Query, kinds, limit)
	if !IsCorruptOnly(err) {
		return "", fmt.Errorf("%s: %w", RecallToolName, err)
	}
	if err != nil {
		// The model gets what could be read; the damage is the operator's.
		t.qa.log.Warn("qa memory: recall skipped records that do not decode", "err", err)
	}
	if len(hits) == 0 {
		return fmt.Sprintf("No past findings match %q.", a.Query), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d past finding(s) for %q:\n", len(hits), a.Query)
	for i, h := range hits {
		fmt.Fprintf(&b, "%d. %s\n", i+1, h.Text)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func qaContainsKind(list []QAKind, k QAKind) bool {
	for _, v := range list {
		if v == k {
			return true
		}
	}
	return false
}

// RecallHit is one result of Recall.
type RecallHit struct {
	Kind  QAKind
	Key   string
	Score float64
	Text  string // one line for a model
}

// Recall searches the given kinds (bugs, observations, quirks) for query and
// returns at most limit hits, best first. Ranking is the Store's: keywords, or
// embeddings when the back-end has an embedder. Items the Store scores 0 or
// less (no match) are left out.
func (q *QA) Recall(ctx context.Context, query string, kinds []QAKind, limit int) ([]RecallHit, error) {
	if limit <= 0 {
		limit = 5
	}
	var hits []RecallHit
	var bad storekit.CorruptSet
	for _, kind := range kinds {
		items, err := q.store.Search(ctx, q.Namespace(kind), graph.SearchQuery{Query: query, Limit: limit})
		if err := bad.Keep(err); err != nil {
			return nil, fmt.Errorf("recall %s: %w", kind, err)
		}
		for _, it := range items {
			if it.Score <= 0 {
				continue
			}
			text, err := qaRecallText(kind, it.Value)
			if err != nil {
				q.log.Warn("qa memory: skipping undecodable item", "kind", kind, "key", it.Key, "err", err)
				bad.Add(it.Namespace, it.Key, err)
				continue
			}
			hits = append(hits, RecallHit{Kind: kind, Key: it.Key, Score: it.Score, Text: text})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, bad.Err()
}

func qaRecallText(kind QAKind, raw json.RawMessage) (string, error) {
	switch kind {
	case KindBugs:
		var b BugEntry
		if err := json.Unmarshal(raw, &b); err != nil {
			return "", err
		}
		s := fmt.Sprintf("bug %s [%s, %s] %s on %s, seen %d× (last %s)", b.Fingerprint, b.Status, b.Severity, b.Kind, b.Page, b.SeenCount, b.LastSeen.Format("2006-01-02"))
		if b.Title != "" {
			s += ": " + qaOneLine(b.Title, 120)
		}
		if b.Evidence != "" {
			s += " — " + qaOneLine(b.Evidence, 160)
		}
		return s, nil
	case KindObservations:
		var o Observation
		if err := json.Unmarshal(raw, &o); err != nil {
			return "", err
		}
		s := "observation"
		if o.Persona != "" {
			s += " by " + o.Persona
		}
		if o.Page != "" {
			s += " on " + o.Page
		}
		return s + ": " + qaOneLine(o.Text, 300), nil
	case KindQuirks:
		var k Quirk
		if err := json.Unmarshal(raw, &k); err != nil {
			return "", err
		}
		return fmt.Sprintf("quirk on %s: %s", k.Page, qaOneLine(k.Text, 300)), nil
	}
	return "", fmt.Errorf("no recall text for kind %q", kind)
}

// ObservationTool is the record_observation agent tool: it stores a note for
// later sessions. It satisfies tools.Tool.
type ObservationTool struct {
	qa       *QA
	persona  string
	threadID string
}

// ObservationTool returns the record_observation tool for a persona's agent
// in a mission thread (both may be empty).
func (q *QA) ObservationTool(persona, threadID string) *ObservationTool {
	return &ObservationTool{qa: q, persona: persona, threadID: threadID}
}

// Name implements tools.Tool.
func (*ObservationTool) Name() string { return ObservationToolName }

// Description implements tools.Tool.
func (*ObservationTool) Description() string {
	return "Save a note for future QA sessions of this app: something surprising, a workaround, a suspicion to re-check, or a quirk of a page (set quirk=true for behaviour that is odd but not a bug). Bugs themselves are reported by the bug oracles, not here."
}

// Schema implements tools.Tool.
func (*ObservationTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"text":{"type":"string","minLength":1,"maxLength":2000,"description":"the note"},` +
		`"page":{"type":"string","description":"URL or path of the page it is about, if any"},` +
		`"tags":{"type":"array","items":{"type":"string","maxLength":40},"maxItems":10,"description":"short labels"},` +
		`"quirk":{"type":"boolean","description":"true: a lasting quirk of the page (needs page)"}` +
		`},"required":["text"],"additionalProperties":false}`)
}

type observationArgs struct {
	Text  string   `json:"text"`
	Page  string   `json:"page"`
	Tags  []string `json:"tags"`
	Quirk bool     `json:"quirk"`
}

// Call implements tools.Tool.
func (t *ObservationTool) Call(ctx context.Context, raw json.RawMessage) (string, error) {
	var a observationArgs
	if err := qaDecodeArgs(ObservationToolName, raw, &a); err != nil {
		return "", err
	}
	a.Text = strings.TrimSpace(a.Text)
	switch {
	case a.Text == "":
		return "", fmt.Errorf("%s: %w: \"text\" is required", ObservationToolName, ErrInvalidQAInput)
	case len([]rune(a.Text)) > maxTextLen:
		return "", fmt.Errorf("%s: %w: \"text\" is longer than %d characters", ObservationToolName, ErrInvalidQAInput, maxTextLen)
	case len(a.Tags) > 10:
		return "", fmt.Errorf("%s: %w: at most 10 tags", ObservationToolName, ErrInvalidQAInput)
	case a.Quirk && strings.TrimSpace(a.Page) == "":
		return "", fmt.Errorf("%s: %w: a quirk needs \"page\"", ObservationToolName, ErrInvalidQAInput)
	}
	for _, tag := range a.Tags {
		if tag = strings.TrimSpace(tag); tag == "" || len([]rune(tag)) > 40 {
			return "", fmt.Errorf("%s: %w: tags must be 1..40 characters", ObservationToolName, ErrInvalidQAInput)
		}
	}
	if a.Quirk {
		k, err := t.qa.AddQuirk(ctx, a.Page, a.Text, t.persona)
		if err != nil {
			return "", fmt.Errorf("%s: %w", ObservationToolName, err)
		}
		return fmt.Sprintf("Recorded quirk of %s (seen %d×).", k.Page, k.Count), nil
	}
	o, err := t.qa.AddObservation(ctx, Observation{Text: a.Text, Page: a.Page, Persona: t.persona, ThreadID: t.threadID, Tags: a.Tags})
	if err != nil {
		return "", fmt.Errorf("%s: %w", ObservationToolName, err)
	}
	return "Recorded observation " + o.ID + ".", nil
}
