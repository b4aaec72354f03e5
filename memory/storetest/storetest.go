// Package storetest is the conformance suite for the graph.Store back-ends
// of package memory. A back-end's tests call Run with a constructor that
// returns a new, empty store built with the given options:
//
//	storetest.Run(t, func(opts ...memory.StoreOption) graph.Store {
//		return memory.NewInMemoryStore(opts...)
//	})
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory"
)

// Clock is a settable clock for TTL tests.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock set to a fixed instant.
func NewClock() *Clock { return &Clock{now: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// FakeEmbedder is a deterministic memory.Embedder: each word of a small
// vocabulary maps to a concept axis, so texts about the same concept are
// similar even when they share no word. Unknown words are hashed onto the
// remaining axes.
type FakeEmbedder struct {
	mu    sync.Mutex
	Calls int // texts embedded so far, documents and queries
}

var concepts = map[string]int{
	"cat": 0, "cats": 0, "kitten": 0, "feline": 0, "meow": 0,
	"dog": 1, "dogs": 1, "puppy": 1, "canine": 1, "bark": 1,
	"car": 2, "cars": 2, "vehicle": 2, "engine": 2, "truck": 2,
	"login": 3, "signin": 3, "password": 3, "auth": 3,
}

const dims = 16

func (f *FakeEmbedder) vector(text string) []float32 {
	v := make([]float32, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if axis, ok := concepts[w]; ok {
			v[axis] += 1
			continue
		}
		h := 0
		for _, r := range w {
			h = (h*31 + int(r)) % 1000003
		}
		v[4+h%(dims-4)] += 0.1
	}
	return v
}

// EmbedDocuments embeds each text.
func (f *FakeEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.Calls += len(texts)
	f.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = f.vector(t)
	}
	return out, nil
}

// EmbedQuery embeds one query.
func (f *FakeEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	vs, err := f.EmbedDocuments(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

var _ memory.Embedder = (*FakeEmbedder)(nil)

// Purger is implemented by back-ends that can drop expired items.
type Purger interface {
	PurgeExpired(ctx context.Context) (int, error)
}

// Run runs every conformance test against stores made by newStore.
func Run(t *testing.T, newStore func(opts ...memory.StoreOption) graph.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(*testing.T, func(...memory.StoreOption) graph.Store)
	}{
		{"PutGet", testPutGet},
		{"Invalid", testInvalid},
		{"Namespaces", testNamespaces},
		{"SearchPrefix", testSearchPrefix},
		{"SearchFilter", testSearchFilter},
		{"SearchPaging", testSearchPaging},
		{"KeywordQuery", testKeywordQuery},
		{"TTL", testTTL},
		{"ListNamespaces", testListNamespaces},
		{"Embedder", testEmbedder},
		{"Concurrent", testConcurrent},
		{"Canceled", testCanceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore) })
	}
}

func obj(s string) json.RawMessage { return json.RawMessage(s) }

func keys(items []graph.Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, strings.Join(it.Namespace, "/")+"#"+it.Key)
	}
	return out
}

func testPutGet(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	clock := NewClock()
	s := newStore(memory.WithStoreClock(clock.Now))
	ns := []string{"users", "u1"}
	value := obj(`{"name":"Ada","tags":["x"],"n":1.5}`)
	require.NoError(t, s.Put(ctx, ns, "profile", value, nil))
	value[2] = 'X' // the store kept its own copy
	it, err := s.Get(ctx, ns, "profile")
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"Ada","tags":["x"],"n":1.5}`, string(it.Value))
	assert.Equal(t, ns, it.Namespace)
	assert.Equal(t, "profile", it.Key)
	assert.True(t, it.CreatedAt.Equal(clock.Now()))
	assert.True(t, it.UpdatedAt.Equal(clock.Now()))
	assert.True(t, it.ExpiresAt.IsZero())
	created := it.CreatedAt
	it.Value[2] = 'Y'
	it.Namespace[0] = "changed"

	clock.Advance(time.Minute)
	require.NoError(t, s.Put(ctx, ns, "profile", obj(`{"name":"Grace"}`), nil))
	it, err = s.Get(ctx, ns, "profile")
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"Grace"}`, string(it.Value))
	assert.True(t, it.CreatedAt.Equal(created), "an update keeps CreatedAt")
	assert.True(t, it.UpdatedAt.Equal(clock.Now()), "an update moves UpdatedAt")

	v, err := graph.GetJSON[struct{ Name string }](ctx, s, ns, "profile")
	require.NoError(t, err)
	assert.Equal(t, "Grace", v.Name)

	require.NoError(t, s.Delete(ctx, ns, "profile"))
	require.NoError(t, s.Delete(ctx, ns, "profile"), "deleting a missing key is not an error")
	require.NoError(t, s.Delete(ctx, []string{"never"}, "x"))
	_, err = s.Get(ctx, ns, "profile")
	require.ErrorIs(t, err, graph.ErrNotFound)
	_, err = s.Get(ctx, []string{"never"}, "x")
	require.ErrorIs(t, err, graph.ErrNotFound)
}

func testInvalid(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	cases := []struct {
		name  string
		ns    []string
		key   string
		value string
	}{
		{"empty namespace", nil, "k", `{}`},
		{"empty label", []string{"a", ""}, "k", `{}`},
		{"empty key", []string{"a"}, "", `{}`},
		{"array value", []string{"a"}, "k", `[1]`},
		{"string value", []string{"a"}, "k", `"x"`},
		{"broken json", []string{"a"}, "k", `{"a":`},
		{"nil value", []string{"a"}, "k", ``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Put(ctx, tc.ns, tc.key, json.RawMessage(tc.value), nil)
			require.ErrorIs(t, err, memory.ErrInvalidStoreInput)
		})
	}
	_, err := s.Get(ctx, nil, "k")
	require.ErrorIs(t, err, memory.ErrInvalidStoreInput)
	_, err = s.Search(ctx, []string{""}, graph.SearchQuery{})
	require.ErrorIs(t, err, memory.ErrInvalidStoreInput)
	_, err = s.Search(ctx, nil, graph.SearchQuery{Limit: -1})
	require.ErrorIs(t, err, memory.ErrInvalidStoreInput)
	_, err = s.Search(ctx, nil, graph.SearchQuery{Filter: graph.Filter{graph.Where("a", "$near", 1)}})
	require.ErrorIs(t, err, memory.ErrInvalidStoreInput)
	_, err = s.Search(ctx, nil, graph.SearchQuery{Filter: graph.Filter{graph.Eq("a", make(chan int))}})
	require.ErrorIs(t, err, memory.ErrInvalidStoreInput)
	_, err = s.ListNamespaces(ctx, graph.NamespaceQuery{Limit: -2})
	require.ErrorIs(t, err, memory.ErrInvalidStoreInput)
	items, err := s.Search(ctx, nil, graph.SearchQuery{})
	require.NoError(t, err)
	assert.Empty(t, items, "nothing invalid was stored")
}

func testNamespaces(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	spaces := [][]string{{"a"}, {"a", "b"}, {"a/b"}, {"a.b"}, {"a", "b", "c"}, {"ü", "\x00"}}
	for i, ns := range spaces {
		require.NoError(t, s.Put(ctx, ns, "k", obj(fmt.Sprintf(`{"i":%d}`, i)), nil))
	}
	for i, ns := range spaces {
		it, err := s.Get(ctx, ns, "k")
		require.NoError(t, err, "%q", ns)
		assert.JSONEq(t, fmt.Sprintf(`{"i":%d}`, i), string(it.Value), "%q", ns)
		assert.Equal(t, ns, it.Namespace)
	}
	require.NoError(t, s.Delete(ctx, []string{"a", "b"}, "k"))
	_, err := s.Get(ctx, []string{"a", "b", "c"}, "k")
	require.NoError(t, err, "deleting in a namespace leaves its children alone")
	_, err = s.Get(ctx, []string{"a"}, "k")
	require.NoError(t, err, "deleting in a namespace leaves its parent alone")
}

func seed(t *testing.T, s graph.Store) {
	t.Helper()
	ctx := context.Background()
	put := func(ns []string, key, v string) {
		require.NoError(t, s.Put(ctx, ns, key, obj(v), nil))
	}
	put([]string{"users", "u1"}, "a", `{"role":"admin","age":30,"addr":{"city":"Oslo"},"active":true}`)
	put([]string{"users", "u1"}, "b", `{"role":"user","age":17,"addr":{"city":"Rome"},"active":false}`)
	put([]string{"users", "u2"}, "a", `{"role":"user","age":45,"addr":{"city":"Oslo"},"tags":["x","y"]}`)
	put([]string{"users"}, "z", `{"role":"root"}`)
	put([]string{"usersx"}, "a", `{"role":"admin"}`)
	put([]string{"docs"}, "d", `{"title":"x"}`)
}

func testSearchPrefix(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	seed(t, s)
	cases := []struct {
		prefix []string
		want   []string
	}{
		{nil, []string{"docs#d", "users#z", "users/u1#a", "users/u1#b", "users/u2#a", "usersx#a"}},
		{[]string{"users"}, []string{"users#z", "users/u1#a", "users/u1#b", "users/u2#a"}},
		{[]string{"users", "u1"}, []string{"users/u1#a", "users/u1#b"}},
		{[]string{"users", "u1", "deeper"}, []string{}},
		{[]string{"use"}, []string{}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.prefix, "/"), func(t *testing.T) {
			got, err := s.Search(ctx, tc.prefix, graph.SearchQuery{Limit: 100})
			require.NoError(t, err)
			assert.Equal(t, tc.want, keys(got))
			for _, it := range got {
				assert.Zero(t, it.Score, "an unranked search sets no score")
			}
		})
	}
}

func testSearchFilter(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	seed(t, s)
	cases := []struct {
		name   string
		filter graph.Filter
		want   []string
	}{
		{"equal string", graph.Filter{graph.Eq("role", "user")}, []string{"users/u1#b", "users/u2#a"}},
		{"equal int against a JSON number", graph.Filter{graph.Eq("age", 30)}, []string{"users/u1#a"}},
		{"equal float", graph.Filter{graph.Eq("age", 45.0)}, []string{"users/u2#a"}},
		{"bool", graph.Filter{graph.Eq("active", false)}, []string{"users/u1#b"}},
		{"dotted", graph.Filter{graph.Eq("addr.city", "Oslo")}, []string{"users/u1#a", "users/u2#a"}},
		{"two fields", graph.Filter{graph.Eq("addr.city", "Oslo"), graph.Eq("role", "user")}, []string{"users/u2#a"}},
		{"nested object", graph.Filter{graph.Eq("addr", map[string]string{"city": "Rome"})}, []string{"users/u1#b"}},
		{"array", graph.Filter{graph.Eq("tags", []string{"x", "y"})}, []string{"users/u2#a"}},
		{"missing field", graph.Filter{graph.Eq("nope", 1)}, []string{}},
		{"dotted through a scalar", graph.Filter{graph.Eq("role.x", 1)}, []string{}},
		{"gt", graph.Filter{graph.Gt("age", 30)}, []string{"users/u2#a"}},
		{"gte and lt", graph.Filter{graph.Gte("age", 17), graph.Lt("age", 45)}, []string{"users/u1#a", "users/u1#b"}},
		{"lte", graph.Filter{graph.Lte("age", 17)}, []string{"users/u1#b"}},
		{"ne", graph.Filter{graph.Ne("role", "user")}, []string{"users#z", "users/u1#a"}},
		{"string order", graph.Filter{graph.Gt("addr.city", "P")}, []string{"users/u1#b"}},
		{"gt on a string against a number", graph.Filter{graph.Gt("role", 1)}, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Search(ctx, []string{"users"}, graph.SearchQuery{Filter: tc.filter, Limit: 100})
			require.NoError(t, err)
			assert.Equal(t, tc.want, keys(got))
		})
	}
}

func testSearchPaging(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	var want []string
	for i := range 25 {
		k := fmt.Sprintf("k%02d", i)
		require.NoError(t, s.Put(ctx, []string{"p"}, k, obj(`{"even":`+fmt.Sprint(i%2 == 0)+`}`), nil))
		want = append(want, "p#"+k)
	}
	got, err := s.Search(ctx, []string{"p"}, graph.SearchQuery{})
	require.NoError(t, err)
	assert.Equal(t, want[:memory.DefaultSearchLimit], keys(got), "the default limit")
	got, err = s.Search(ctx, []string{"p"}, graph.SearchQuery{Limit: 7, Offset: 20})
	require.NoError(t, err)
	assert.Equal(t, want[20:], keys(got))
	got, err = s.Search(ctx, []string{"p"}, graph.SearchQuery{Limit: 3, Offset: 100})
	require.NoError(t, err)
	assert.Empty(t, got)
	var paged []string
	for off := 0; ; off += 4 {
		page, err := s.Search(ctx, []string{"p"}, graph.SearchQuery{Filter: graph.Filter{graph.Eq("even", true)}, Limit: 4, Offset: off})
		require.NoError(t, err)
		paged = append(paged, keys(page)...)
		if len(page) < 4 {
			break
		}
	}
	var evens []string
	for i := 0; i < 25; i += 2 {
		evens = append(evens, want[i])
	}
	assert.Equal(t, evens, paged)
}

func testKeywordQuery(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	put := func(key, v string, opts *graph.PutOptions) {
		require.NoError(t, s.Put(ctx, []string{"notes"}, key, obj(v), opts))
	}
	put("both", `{"text":"Login form rejects a valid password"}`, nil)
	put("login-twice", `{"text":"login, login and login again","extra":{"deep":"nothing"}}`, nil)
	put("password", `{"text":"Password reset mail never arrives"}`, nil)
	put("none", `{"text":"checkout total is wrong"}`, nil)
	put("indexed-elsewhere", `{"title":"unrelated","body":"login password"}`, &graph.PutOptions{Index: []string{"title"}})
	put("nested", `{"meta":{"summary":"login"}}`, &graph.PutOptions{Index: []string{"meta.summary"}})

	got, err := s.Search(ctx, []string{"notes"}, graph.SearchQuery{Query: "LOGIN password", Limit: 10})
	require.NoError(t, err)
	require.Equal(t, []string{"notes#both", "notes#login-twice", "notes#nested", "notes#password"}, keys(got))
	assert.Greater(t, got[0].Score, got[1].Score)
	assert.Greater(t, got[1].Score, got[2].Score)
	assert.Equal(t, got[2].Score, got[3].Score, "one occurrence of one of two terms each")
	for _, it := range got {
		assert.Greater(t, it.Score, 0.0)
	}

	got, err = s.Search(ctx, []string{"notes"}, graph.SearchQuery{Query: "login", Filter: graph.Filter{graph.Ne("text", "x")}, Limit: 1, Offset: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"notes#both"}, keys(got), "filter, rank, then page")

	got, err = s.Search(ctx, []string{"notes"}, graph.SearchQuery{Query: "zebra"})
	require.NoError(t, err)
	assert.Empty(t, got)
}

func testTTL(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	clock := NewClock()
	s := newStore(memory.WithStoreClock(clock.Now))
	require.NoError(t, s.Put(ctx, []string{"tmp"}, "short", obj(`{"a":1}`), &graph.PutOptions{TTL: time.Minute}))
	require.NoError(t, s.Put(ctx, []string{"tmp"}, "long", obj(`{"a":1}`), &graph.PutOptions{TTL: time.Hour}))
	require.NoError(t, s.Put(ctx, []string{"only-short"}, "x", obj(`{"a":1}`), &graph.PutOptions{TTL: time.Minute}))
	require.NoError(t, s.Put(ctx, []string{"tmp"}, "forever", obj(`{"a":1}`), nil))
	it, err := s.Get(ctx, []string{"tmp"}, "short")
	require.NoError(t, err)
	assert.True(t, it.ExpiresAt.Equal(clock.Now().Add(time.Minute)))

	clock.Advance(time.Minute)
	_, err = s.Get(ctx, []string{"tmp"}, "short")
	require.ErrorIs(t, err, graph.ErrNotFound)
	got, err := s.Search(ctx, nil, graph.SearchQuery{})
	require.NoError(t, err)
	assert.Equal(t, []string{"tmp#forever", "tmp#long"}, keys(got))
	nss, err := s.ListNamespaces(ctx, graph.NamespaceQuery{})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"tmp"}}, nss)

	// Putting over an expired item starts a new item.
	require.NoError(t, s.Put(ctx, []string{"tmp"}, "short", obj(`{"a":2}`), nil))
	it, err = s.Get(ctx, []string{"tmp"}, "short")
	require.NoError(t, err)
	assert.True(t, it.CreatedAt.Equal(clock.Now()))
	assert.True(t, it.ExpiresAt.IsZero())

	if p, ok := s.(Purger); ok {
		n, err := p.PurgeExpired(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, n, "only-short/x is expired")
		clock.Advance(time.Hour)
		n, err = p.PurgeExpired(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, n, "tmp/long is expired")
		got, err := s.Search(ctx, nil, graph.SearchQuery{})
		require.NoError(t, err)
		assert.Equal(t, []string{"tmp#forever", "tmp#short"}, keys(got))
	}
}

func testListNamespaces(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	for _, ns := range [][]string{
		{"a"}, {"a", "b"}, {"a", "b", "c"}, {"a", "x", "c"}, {"b", "c"}, {"qa", "app1", "bugs"}, {"qa", "app2", "bugs"}, {"qa", "app2", "pages"},
	} {
		require.NoError(t, s.Put(ctx, ns, "k", obj(`{}`), nil))
		require.NoError(t, s.Put(ctx, ns, "k2", obj(`{}`), nil))
	}
	cases := []struct {
		name string
		q    graph.NamespaceQuery
		want [][]string
	}{
		{"all", graph.NamespaceQuery{}, [][]string{{"a"}, {"a", "b"}, {"a", "b", "c"}, {"a", "x", "c"}, {"b", "c"}, {"qa", "app1", "bugs"}, {"qa", "app2", "bugs"}, {"qa", "app2", "pages"}}},
		{"prefix", graph.NamespaceQuery{Prefix: []string{"a"}}, [][]string{{"a"}, {"a", "b"}, {"a", "b", "c"}, {"a", "x", "c"}}},
		{"suffix", graph.NamespaceQuery{Suffix: []string{"c"}}, [][]string{{"a", "b", "c"}, {"a", "x", "c"}, {"b", "c"}}},
		{"prefix and suffix", graph.NamespaceQuery{Prefix: []string{"qa"}, Suffix: []string{"bugs"}}, [][]string{{"qa", "app1", "bugs"}, {"qa", "app2", "bugs"}}},
		{"wildcard", graph.NamespaceQuery{Prefix: []string{"qa", "*", "pages"}}, [][]string{{"qa", "app2", "pages"}}},
		{"max depth", graph.NamespaceQuery{MaxDepth: 2}, [][]string{{"a"}, {"a", "b"}, {"a", "x"}, {"b", "c"}, {"qa", "app1"}, {"qa", "app2"}}},
		{"max depth 1 with prefix", graph.NamespaceQuery{Prefix: []string{"qa"}, MaxDepth: 1}, [][]string{{"qa"}}},
		{"limit and offset", graph.NamespaceQuery{Limit: 2, Offset: 1}, [][]string{{"a", "b"}, {"a", "b", "c"}}},
		{"offset past the end", graph.NamespaceQuery{Offset: 50}, [][]string{}},
		{"no match", graph.NamespaceQuery{Prefix: []string{"zzz"}}, [][]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ListNamespaces(ctx, tc.q)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	require.NoError(t, s.Delete(ctx, []string{"b", "c"}, "k"))
	require.NoError(t, s.Delete(ctx, []string{"b", "c"}, "k2"))
	got, err := s.ListNamespaces(ctx, graph.NamespaceQuery{Prefix: []string{"b"}})
	require.NoError(t, err)
	assert.Empty(t, got, "a namespace without items is not listed")
}

func testEmbedder(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	emb := &FakeEmbedder{}
	s := newStore(memory.WithEmbedder(emb, "text"))
	put := func(key, v string, opts *graph.PutOptions) {
		require.NoError(t, s.Put(ctx, []string{"kb"}, key, obj(v), opts))
	}
	put("kitten", `{"text":"a kitten sleeps","other":"truck truck truck"}`, nil)
	put("dog", `{"text":"the puppy and the dog bark"}`, nil)
	put("car", `{"text":"vehicle engine"}`, nil)
	put("car-by-title", `{"text":"nothing here","title":"truck"}`, &graph.PutOptions{Index: []string{"title"}})
	put("not-indexed", `{"text":"feline feline"}`, &graph.PutOptions{NoIndex: true})
	assert.Equal(t, 4, emb.Calls, "one embedding per indexed Put")

	got, err := s.Search(ctx, []string{"kb"}, graph.SearchQuery{Query: "feline"})
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.Equal(t, "kitten", got[0].Key, "similar without a shared word; the 'other' field is not embedded")
	assert.InDelta(t, 1/math.Sqrt(1+0.02), got[0].Score, 0.05)
	for _, it := range got {
		assert.NotEqual(t, "not-indexed", it.Key)
	}
	for i := 1; i < len(got); i++ {
		assert.GreaterOrEqual(t, got[i-1].Score, got[i].Score)
	}
	got, err = s.Search(ctx, []string{"kb"}, graph.SearchQuery{Query: "car", Limit: 2})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"kb#car", "kb#car-by-title"}, keys(got))
	got, err = s.Search(ctx, []string{"kb"}, graph.SearchQuery{Query: "canine", Filter: graph.Filter{graph.Ne("text", "x")}, Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"kb#dog"}, keys(got))
}

func testConcurrent(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := []string{"w", fmt.Sprint(w)}
			for i := range 20 {
				k := fmt.Sprint(i)
				if err := s.Put(ctx, ns, k, obj(fmt.Sprintf(`{"i":%d}`, i)), nil); err != nil {
					errs <- err
					return
				}
				if _, err := s.Get(ctx, ns, k); err != nil {
					errs <- err
					return
				}
				if _, err := s.Search(ctx, []string{"w"}, graph.SearchQuery{Query: "x", Limit: 5}); err != nil {
					errs <- err
					return
				}
				if _, err := s.ListNamespaces(ctx, graph.NamespaceQuery{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got, err := s.Search(ctx, []string{"w"}, graph.SearchQuery{Limit: 1000})
	require.NoError(t, err)
	assert.Len(t, got, 80)
}

func testCanceled(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	s := newStore()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.Put(ctx, []string{"a"}, "k", obj(`{}`), nil), context.Canceled)
	_, err := s.Get(ctx, []string{"a"}, "k")
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, s.Delete(ctx, []string{"a"}, "k"), context.Canceled)
	_, err = s.Search(ctx, nil, graph.SearchQuery{})
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.ListNamespaces(ctx, graph.NamespaceQuery{})
	require.ErrorIs(t, err, context.Canceled)
}
