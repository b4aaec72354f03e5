package storekit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/agentgraph/agentgraph/graph"
)

// Embedder is memory.Embedder: it turns text into vectors for semantic
// search (the method set of langchaingo's embeddings.Embedder).
type Embedder interface {
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// ErrInvalidStoreInput is memory.ErrInvalidStoreInput.
var ErrInvalidStoreInput = errors.New("store: invalid input")

// ErrStoreCorrupt is memory.ErrStoreCorrupt.
var ErrStoreCorrupt = errors.New("store: corrupt item")

// Defaults of Search and ListNamespaces.
const (
	DefaultSearchLimit    = 10
	DefaultNamespaceLimit = 100
)

// Record is an item as back-ends keep it.
type Record struct {
	V         int             `json:"v"` // record format version
	Namespace []string        `json:"ns"`
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	CreatedAt time.Time       `json:"created"`
	UpdatedAt time.Time       `json:"updated"`
	ExpiresAt time.Time       `json:"expires,omitzero"`
	Index     []string        `json:"index,omitempty"` // fields ranked by Query; nil: the defaults
	NoIndex   bool            `json:"noindex,omitempty"`
	Vector    []float32       `json:"vec,omitempty"`
}

const RecordVersion = 1

func (r *Record) Expired(now time.Time) bool {
	return !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt)
}

func (r *Record) Item() graph.Item {
	return graph.Item{
		Namespace: slices.Clone(r.Namespace),
		Key:       r.Key,
		Value:     slices.Clone(r.Value),
		CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt,
		ExpiresAt: r.ExpiresAt,
	}
}

// Invalid returns an error wrapping ErrInvalidStoreInput.
func Invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidStoreInput, fmt.Sprintf(format, args...))
}

// ValidateNS checks namespace labels (an empty namespace only with allowEmpty).
func ValidateNS(ns []string, allowEmpty bool) error {
	if len(ns) == 0 && !allowEmpty {
		return Invalid("empty namespace")
	}
	for i, l := range ns {
		if l == "" {
			return Invalid("namespace %q: label %d is empty", ns, i)
		}
	}
	return nil
}

// ValidateKey checks a namespace and a key.
func ValidateKey(ns []string, key string) error {
	if err := ValidateNS(ns, false); err != nil {
		return err
	}
	if key == "" {
		return Invalid("namespace %q: empty key", ns)
	}
	return nil
}

// ValidateValue checks that v is a JSON object.
func ValidateValue(ns []string, key string, v json.RawMessage) error {
	trimmed := strings.TrimLeft(string(v), " \t\r\n")
	if !strings.HasPrefix(trimmed, "{") || !json.Valid(v) {
		return Invalid("namespace %q key %q: value is not a JSON object", ns, key)
	}
	return nil
}

// NewRecord builds the record for a Put; old is the current record or nil.
func (c *Config) NewRecord(ns []string, key string, value json.RawMessage, opts *graph.PutOptions, old *Record) *Record {
	now := c.Now()
	r := &Record{
		V: RecordVersion, Namespace: slices.Clone(ns), Key: key, Value: slices.Clone(value),
		CreatedAt: now, UpdatedAt: now,
	}
	if old != nil && !old.Expired(now) {
		r.CreatedAt = old.CreatedAt
	}
	if opts != nil {
		if opts.TTL > 0 {
			r.ExpiresAt = now.Add(opts.TTL)
		}
		r.Index = slices.Clone(opts.Index)
		r.NoIndex = opts.NoIndex
	}
	return r
}

// Embed computes the vector of a value that is about to be stored, when
// the store has an embedder and the Put asks for indexing.
func (c *Config) Embed(ctx context.Context, value json.RawMessage, opts *graph.PutOptions) ([]float32, error) {
	if c.Embedder == nil || (opts != nil && opts.NoIndex) {
		return nil, nil
	}
	var fields []string
	if opts != nil {
		fields = opts.Index
	}
	text, err := c.indexText(value, fields)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	vecs, err := c.Embedder.EmbedDocuments(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("store: embed: %w", err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return nil, fmt.Errorf("store: embed: embedder returned %d vectors for 1 text", len(vecs))
	}
	return vecs[0], nil
}

// indexText is the text of value that Query ranks: the given fields (or the
// store's default fields), else every string in the value.
func (c *Config) indexText(value json.RawMessage, fields []string) (string, error) {
	var v any
	if err := json.Unmarshal(value, &v); err != nil {
		return "", fmt.Errorf("%w: %v", ErrStoreCorrupt, err)
	}
	if fields == nil {
		fields = c.IndexFields
	}
	var b strings.Builder
	if len(fields) == 0 {
		collectStrings(&b, v)
		return b.String(), nil
	}
	for _, f := range fields {
		fv, ok := storeLookup(v, f)
		if !ok {
			continue
		}
		collectStrings(&b, fv)
	}
	return b.String(), nil
}

func collectStrings(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		b.WriteString(x)
		b.WriteByte('\n')
	case []any:
		for _, e := range x {
			collectStrings(b, e)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			collectStrings(b, x[k])
		}
	}
}

// lookup follows a dotted path through nested objects.
func storeLookup(v any, path string) (any, bool) {
	for part := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[part]; !ok {
			return nil, false
		}
	}
	return v, true
}

// storeFilter is a compiled graph.Filter.
type storeFilter []storeCondition

type storeCondition struct {
	path string
	op   graph.Op
	want any // JSON-decoded
}

// compileStoreFilter checks each condition and decodes its value.
func compileStoreFilter(f graph.Filter) (storeFilter, error) {
	out := make(storeFilter, 0, len(f))
	for _, c := range f {
		if c.Field == "" {
			return nil, Invalid("filter: empty field name")
		}
		if err := c.Err(); err != nil {
			return nil, Invalid("filter %q: %v", c.Field, err)
		}
		op := c.Op
		switch op {
		case "":
			op = graph.OpEq
		case graph.OpEq, graph.OpNe, graph.OpGt, graph.OpGte, graph.OpLt, graph.OpLte:
		default:
			return nil, Invalid("filter %q: unknown operator %q", c.Field, op)
		}
		var want any
		if err := json.Unmarshal(c.Value, &want); err != nil {
			return nil, Invalid("filter %q: value is not JSON: %v", c.Field, err)
		}
		out = append(out, storeCondition{path: c.Field, op: op, want: want})
	}
	return out, nil
}

// match reports whether the decoded value v satisfies every storeCondition.
func (f storeFilter) match(v any) bool {
	for _, c := range f {
		got, ok := storeLookup(v, c.path)
		switch c.op {
		case graph.OpEq:
			if !ok || !jsonEqual(got, c.want) {
				return false
			}
		case graph.OpNe:
			if ok && jsonEqual(got, c.want) {
				return false
			}
		default:
			cmp, comparable := storeCompare(got, c.want)
			if !ok || !comparable {
				return false
			}
			switch c.op {
			case graph.OpGt:
				ok = cmp > 0
			case graph.OpGte:
				ok = cmp >= 0
			case graph.OpLt:
				ok = cmp < 0
			case graph.OpLte:
				ok = cmp <= 0
			}
			if !ok {
				return false
			}
		}
	}
	return true
}

func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func storeCompare(a, b any) (int, bool) {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return 0, false
		}
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	case string:
		y, ok := b.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(x, y), true
	}
	return 0, false
}

// tokens splits text into lower-case words.
func storeTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// keywordScore ranks text against the query terms. The score is the share
// of the terms that occur, plus a bonus below one term's share for repeated
// occurrences, so an item matching more terms always ranks first. 0 means no
// term occurs.
func keywordScore(terms []string, text string) float64 {
	if len(terms) == 0 {
		return 0
	}
	counts := map[string]int{}
	for _, w := range storeTokens(text) {
		counts[w]++
	}
	matched, intensity := 0, 0.0
	for _, t := range terms {
		if n := counts[t]; n > 0 {
			matched++
			intensity += math.Log(float64(n))
		}
	}
	if matched == 0 {
		return 0
	}
	n := float64(len(terms))
	return float64(matched)/n + (1-1/(1+intensity))/(n+1)
}

func storeDistinct(ws []string) []string {
	slices.Sort(ws)
	return slices.Compact(ws)
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func NSHasPrefix(ns, prefix []string) bool {
	return len(ns) >= len(prefix) && slices.Equal(ns[:len(prefix)], prefix)
}

// CompareNS orders namespaces label by label.
func CompareNS(a, b []string) int { return slices.Compare(a, b) }

// Searcher evaluates one Search over records fed to it in any order.
type Searcher struct {
	cfg     *Config
	prefix  []string
	q       graph.SearchQuery
	filter  storeFilter
	terms   []string
	qvec    []float32
	Now     time.Time // the time expiry is judged at
	results []graph.Item
}

// NewSearcher validates q and prepares its filter and ranking.
func NewSearcher(ctx context.Context, cfg *Config, prefix []string, q graph.SearchQuery) (*Searcher, error) {
	if err := ValidateNS(prefix, true); err != nil {
		return nil, err
	}
	if q.Limit < 0 || q.Offset < 0 {
		return nil, Invalid("search: negative limit %d or offset %d", q.Limit, q.Offset)
	}
	if q.Limit == 0 {
		q.Limit = DefaultSearchLimit
	}
	f, err := compileStoreFilter(q.Filter)
	if err != nil {
		return nil, err
	}
	s := &Searcher{cfg: cfg, prefix: prefix, q: q, filter: f, Now: cfg.Now()}
	if strings.TrimSpace(q.Query) != "" {
		if cfg.Embedder != nil {
			v, err := cfg.Embedder.EmbedQuery(ctx, q.Query)
			if err != nil {
				return nil, fmt.Errorf("store: embed query: %w", err)
			}
			s.qvec = v
		} else {
			s.terms = storeDistinct(storeTokens(q.Query))
		}
	}
	return s, nil
}

func (s *Searcher) ranked() bool { return s.qvec != nil || len(s.terms) > 0 }

// Add considers one record. It returns an error only for a record whose
// value does not decode.
func (s *Searcher) Add(r *Record) error {
	if !NSHasPrefix(r.Namespace, s.prefix) || r.Expired(s.Now) {
		return nil
	}
	if len(s.filter) > 0 {
		var v any
		if err := json.Unmarshal(r.Value, &v); err != nil {
			return fmt.Errorf("%w: namespace %q key %q: %v", ErrStoreCorrupt, r.Namespace, r.Key, err)
		}
		if !s.filter.match(v) {
			return nil
		}
	}
	it := r.Item()
	switch {
	case s.qvec != nil:
		if r.Vector == nil {
			return nil
		}
		it.Score = cosine(s.qvec, r.Vector)
	case len(s.terms) > 0:
		text, err := s.cfg.indexText(r.Value, r.Index)
		if err != nil {
			return fmt.Errorf("namespace %q key %q: %w", r.Namespace, r.Key, err)
		}
		it.Score = keywordScore(s.terms, text)
		if it.Score == 0 {
			return nil
		}
	}
	s.results = append(s.results, it)
	return nil
}

// Done sorts and pages the results.
func (s *Searcher) Done() []graph.Item {
	slices.SortFunc(s.results, func(a, b graph.Item) int {
		if s.ranked() && a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		if c := CompareNS(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	if s.q.Offset >= len(s.results) {
		return []graph.Item{}
	}
	out := s.results[s.q.Offset:]
	if len(out) > s.q.Limit {
		out = out[:s.q.Limit]
	}
	return slices.Clip(out)
}

// NSLister evaluates one ListNamespaces.
type NSLister struct {
	q    graph.NamespaceQuery
	seen map[string][]string
}

// NewNSLister validates q.
func NewNSLister(q graph.NamespaceQuery) (*NSLister, error) {
	if q.Limit < 0 || q.Offset < 0 || q.MaxDepth < 0 {
		return nil, Invalid("list namespaces: negative limit, offset or max depth")
	}
	if q.Limit == 0 {
		q.Limit = DefaultNamespaceLimit
	}
	return &NSLister{q: q, seen: map[string][]string{}}, nil
}

// matchLabels compares labels with a pattern in which "*" matches any one label.
func matchLabels(labels, pattern []string) bool {
	if len(labels) != len(pattern) {
		return false
	}
	for i, p := range pattern {
		if p != "*" && p != labels[i] {
			return false
		}
	}
	return true
}

func (l *NSLister) Add(ns []string) {
	if len(ns) < len(l.q.Prefix) || !matchLabels(ns[:len(l.q.Prefix)], l.q.Prefix) {
		return
	}
	if len(ns) < len(l.q.Suffix) || !matchLabels(ns[len(ns)-len(l.q.Suffix):], l.q.Suffix) {
		return
	}
	if l.q.MaxDepth > 0 && len(ns) > l.q.MaxDepth {
		ns = ns[:l.q.MaxDepth]
	}
	k := NSKey(ns)
	if _, ok := l.seen[k]; !ok {
		l.seen[k] = slices.Clone(ns)
	}
}

func (l *NSLister) Done() [][]string {
	out := make([][]string, 0, len(l.seen))
	for _, ns := range l.seen {
		out = append(out, ns)
	}
	slices.SortFunc(out, CompareNS)
	if l.q.Offset >= len(out) {
		return [][]string{}
	}
	out = out[l.q.Offset:]
	if len(out) > l.q.Limit {
		out = out[:l.q.Limit]
	}
	return out
}

// NSKey joins labels unambiguously (labels may hold any byte).
func NSKey(ns []string) string {
	var b strings.Builder
	for _, l := range ns {
		fmt.Fprintf(&b, "%d:%s/", len(l), l)
	}
	return b.String()
}
