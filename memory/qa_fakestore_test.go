package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/graph"
)

// qaFakeStore is a minimal graph.Store for the QA tests: prefix search,
// top-level Filter, keyword Query scored by the share of query words found in
// the value, Limit/Offset. It records the queries it saw.
type qaFakeStore struct {
	mu      sync.Mutex
	items   map[string]graph.Item // by namespace + "\x00" + key
	queries []graph.SearchQuery
	puts    []graph.PutOptions
	failPut error
}

func newQAFakeStore() *qaFakeStore { return &qaFakeStore{items: map[string]graph.Item{}} }

func qaFakeKey(ns []string, key string) string { return strings.Join(ns, "\x1f") + "\x00" + key }

func (s *qaFakeStore) Put(_ context.Context, ns []string, key string, value json.RawMessage, opts *graph.PutOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failPut != nil {
		return s.failPut
	}
	if !json.Valid(value) {
		return fmt.Errorf("fake store: invalid json")
	}
	if opts != nil {
		s.puts = append(s.puts, *opts)
	}
	k := qaFakeKey(ns, key)
	now := time.Now()
	it, ok := s.items[k]
	if !ok {
		it = graph.Item{Namespace: append([]string(nil), ns...), Key: key, CreatedAt: now}
	}
	it.Value = append(json.RawMessage(nil), value...)
	it.UpdatedAt = now
	s.items[k] = it
	return nil
}

func (s *qaFakeStore) Get(_ context.Context, ns []string, key string) (*graph.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[qaFakeKey(ns, key)]
	if !ok {
		return nil, fmt.Errorf("fake store %v/%s: %w", ns, key, graph.ErrNotFound)
	}
	return &it, nil
}

func (s *qaFakeStore) Delete(_ context.Context, ns []string, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.items, qaFakeKey(ns, key))
	return nil
}

func (s *qaFakeStore) Search(_ context.Context, prefix []string, q graph.SearchQuery) ([]graph.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries = append(s.queries, q)
	var out []graph.Item
	words := strings.Fields(strings.ToLower(q.Query))
	for _, it := range s.items {
		if len(it.Namespace) < len(prefix) || !reflect.DeepEqual(it.Namespace[:len(prefix)], prefix) {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(it.Value, &obj); err != nil {
			continue
		}
		match := true
		for _, c := range q.Filter {
			var want any
			if err := json.Unmarshal(c.Value, &want); err != nil || fmt.Sprint(obj[c.Field]) != fmt.Sprint(want) {
				match = false
			}
		}
		if !match {
			continue
		}
		if len(words) > 0 {
			text := strings.ToLower(string(it.Value))
			n := 0
			for _, w := range words {
				if strings.Contains(text, w) {
					n++
				}
			}
			it.Score = float64(n) / float64(len(words))
		}
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return qaFakeKey(out[i].Namespace, out[i].Key) < qaFakeKey(out[j].Namespace, out[j].Key)
	})
	limit := q.Limit
	if limit == 0 {
		limit = 10
	}
	if q.Offset >= len(out) {
		return nil, nil
	}
	out = out[q.Offset:]
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (s *qaFakeStore) ListNamespaces(context.Context, graph.NamespaceQuery) ([][]string, error) {
	return nil, fmt.Errorf("fake store: ListNamespaces not needed")
}

// Update reads and writes under the fake's lock, as Get then Put would.
func (s *qaFakeStore) Update(_ context.Context, ns []string, key string, fn graph.UpdateFunc, opts *graph.PutOptions) (*graph.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := qaFakeKey(ns, key)
	var cur *graph.Item
	if it, ok := s.items[k]; ok {
		c := it
		c.Value = append(json.RawMessage(nil), it.Value...)
		cur = &c
	}
	value, err := fn(cur)
	if errors.Is(err, graph.ErrSkipUpdate) {
		return cur, nil
	}
	if err != nil {
		return nil, err
	}
	if s.failPut != nil {
		return nil, s.failPut
	}
	if !json.Valid(value) {
		return nil, fmt.Errorf("fake store: invalid json")
	}
	if opts != nil {
		s.puts = append(s.puts, *opts)
	}
	now := time.Now()
	it, ok := s.items[k]
	if !ok {
		it = graph.Item{Namespace: append([]string(nil), ns...), Key: key, CreatedAt: now}
	}
	it.Value = append(json.RawMessage(nil), value...)
	it.UpdatedAt = now
	s.items[k] = it
	out := it
	return &out, nil
}

var _ graph.Store = (*qaFakeStore)(nil)

// qaClock is a settable test clock.
type qaClock struct {
	mu sync.Mutex
	t  time.Time
}

func newQAClock() *qaClock { return &qaClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *qaClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *qaClock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
