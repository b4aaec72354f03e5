package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory"
)

// RunUpdate checks graph.Store.Update: the read-modify-write of one key.
func RunUpdate(t *testing.T, newStore func(opts ...memory.StoreOption) graph.Store) {
	t.Helper()
	t.Run("CreateAndChange", func(t *testing.T) { testUpdate(t, newStore) })
	t.Run("Skip", func(t *testing.T) { testUpdateSkip(t, newStore) })
	t.Run("Errors", func(t *testing.T) { testUpdateErrors(t, newStore) })
	t.Run("Concurrent", func(t *testing.T) { testUpdateConcurrent(t, newStore) })
}

type counter struct {
	N int `json:"n"`
}

// Increment is an UpdateFunc that adds one to the value's "n".
func Increment(cur *graph.Item) (json.RawMessage, error) {
	var c counter
	if cur != nil {
		if err := json.Unmarshal(cur.Value, &c); err != nil {
			return nil, err
		}
	}
	c.N++
	return json.Marshal(c)
}

func count(t *testing.T, s graph.Store, ns []string, key string) int {
	t.Helper()
	c, err := graph.GetJSON[counter](context.Background(), s, ns, key)
	require.NoError(t, err)
	return c.N
}

func testUpdate(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	clock := NewClock()
	s := newStore(memory.WithStoreClock(clock.Now))
	ns := []string{"counters"}
	var seen []*graph.Item
	fn := func(cur *graph.Item) (json.RawMessage, error) {
		seen = append(seen, cur)
		return Increment(cur)
	}
	it, err := s.Update(ctx, ns, "c", fn, nil)
	require.NoError(t, err)
	require.NotNil(t, it)
	assert.JSONEq(t, `{"n":1}`, string(it.Value))
	assert.Equal(t, ns, it.Namespace)
	assert.Equal(t, "c", it.Key)
	assert.True(t, it.CreatedAt.Equal(clock.Now()))
	require.NotEmpty(t, seen)
	assert.Nil(t, seen[len(seen)-1], "a missing key reaches fn as nil")

	created := clock.Now()
	clock.Advance(time.Minute)
	it, err = s.Update(ctx, ns, "c", fn, nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"n":2}`, string(it.Value))
	assert.True(t, it.CreatedAt.Equal(created), "an update keeps CreatedAt")
	assert.True(t, it.UpdatedAt.Equal(clock.Now()), "an update moves UpdatedAt")
	last := seen[len(seen)-1]
	require.NotNil(t, last)
	assert.JSONEq(t, `{"n":1}`, string(last.Value))
	assert.Equal(t, 2, count(t, s, ns, "c"))

	// TTL applies to the new value; an expired item reaches fn as nil.
	_, err = s.Update(ctx, ns, "c", fn, &graph.PutOptions{TTL: time.Second})
	require.NoError(t, err)
	assert.Equal(t, 3, count(t, s, ns, "c"))
	clock.Advance(2 * time.Second)
	it, err = s.Update(ctx, ns, "c", fn, nil)
	require.NoError(t, err)
	assert.Nil(t, seen[len(seen)-1])
	assert.JSONEq(t, `{"n":1}`, string(it.Value))
	assert.True(t, it.CreatedAt.Equal(clock.Now()), "an expired item is created anew")
	assert.True(t, it.ExpiresAt.IsZero())

	// Search sees what Update stored.
	items, err := s.Search(ctx, ns, graph.SearchQuery{Filter: graph.Filter{graph.Eq("n", 1)}})
	require.NoError(t, err)
	require.Len(t, items, 1)
}

func testUpdateSkip(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	ns := []string{"skip"}
	skip := func(*graph.Item) (json.RawMessage, error) { return nil, graph.ErrSkipUpdate }
	it, err := s.Update(ctx, ns, "k", skip, nil)
	require.NoError(t, err)
	assert.Nil(t, it, "skipping a missing key stores nothing")
	_, err = s.Get(ctx, ns, "k")
	require.ErrorIs(t, err, graph.ErrNotFound)
	spaces, err := s.ListNamespaces(ctx, graph.NamespaceQuery{})
	require.NoError(t, err)
	assert.Empty(t, spaces)

	require.NoError(t, s.Put(ctx, ns, "k", json.RawMessage(`{"n":5}`), nil))
	it, err = s.Update(ctx, ns, "k", skip, nil)
	require.NoError(t, err)
	require.NotNil(t, it)
	assert.JSONEq(t, `{"n":5}`, string(it.Value))
	assert.Equal(t, 5, count(t, s, ns, "k"))
}

func testUpdateErrors(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	ns := []string{"err"}
	require.NoError(t, s.Put(ctx, ns, "k", json.RawMessage(`{"n":1}`), nil))
	boom := errors.New("boom")
	_, err := s.Update(ctx, ns, "k", func(*graph.Item) (json.RawMessage, error) { return nil, boom }, nil)
	require.ErrorIs(t, err, boom)
	for name, v := range map[string]string{"array": `[1]`, "broken": `{"n":`, "empty": ``} {
		_, err = s.Update(ctx, ns, "k", func(*graph.Item) (json.RawMessage, error) { return json.RawMessage(v), nil }, nil)
		require.ErrorIs(t, err, memory.ErrInvalidStoreInput, name)
	}
	assert.Equal(t, 1, count(t, s, ns, "k"), "a failed update changes nothing")
	_, err = s.Update(ctx, ns, "k", nil, nil)
	require.ErrorIs(t, err, memory.ErrInvalidStoreInput)
	_, err = s.Update(ctx, nil, "k", Increment, nil)
	require.ErrorIs(t, err, memory.ErrInvalidStoreInput)
	_, err = s.Update(ctx, ns, "", Increment, nil)
	require.ErrorIs(t, err, memory.ErrInvalidStoreInput)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.Update(cctx, ns, "k", Increment, nil)
	require.ErrorIs(t, err, context.Canceled)
}

// testUpdateConcurrent bumps counters from many goroutines: no increment
// is lost.
func testUpdateConcurrent(t *testing.T, newStore func(...memory.StoreOption) graph.Store) {
	ctx := context.Background()
	s := newStore()
	ns := []string{"race"}
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				key := "shared"
				if i%5 == 0 {
					key = fmt.Sprintf("own-%d", w)
				}
				if _, err := s.Update(ctx, ns, key, Increment, nil); err != nil {
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
	assert.Equal(t, workers*each*4/5, count(t, s, ns, "shared"))
	for w := range workers {
		assert.Equal(t, each/5, count(t, s, ns, fmt.Sprintf("own-%d", w)))
	}
}
