// Package checkpointtest is the conformance suite for graph.Checkpointer
// back-ends. A back-end's tests call Run with a constructor that returns a
// new, empty Checkpointer each time:
//
//	func TestConformance(t *testing.T) {
//		checkpointtest.Run(t, func() graph.Checkpointer { return checkpoint.NewMemory() })
//	}
package checkpointtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/graph"
)

// ID returns the checkpoint id used by the suite for step n: ids sort in
// creation order, as the graph.Checkpointer contract requires.
func ID(n int) string { return fmt.Sprintf("cp-%08d", n) }

// Run runs every conformance test against checkpointers made by newCP.
func Run(t *testing.T, newCP func() graph.Checkpointer) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(*testing.T, graph.Checkpointer)
	}{
		{"RoundTrip", testRoundTrip},
		{"GetNewest", testGetNewest},
		{"NotFound", testNotFound},
		{"Isolation", testIsolation},
		{"Replace", testReplace},
		{"Namespaces", testNamespaces},
		{"PendingWrites", testPendingWrites},
		{"ManyTasksWrites", testManyTasksWrites},
		{"List", testList},
		{"DeleteThread", testDeleteThread},
		{"GrowingState", testGrowingState},
		{"Forks", testForks},
		{"ReplaceParent", testReplaceParent},
		{"Concurrent", testConcurrent},
		{"Canceled", testCanceled},
		{"Invalid", testInvalid},
		{"DeltaChain", testDeltaChain},
		{"DeltaForks", testDeltaForks},
		{"DeltaBase", testDeltaBase},
		{"DeltaMixed", testDeltaMixed},
		{"DeltaConcurrent", testDeltaConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newCP()) })
	}
}

// RunRetention checks a back-end built to keep only the newest keep
// checkpoints of a thread and namespace.
func RunRetention(t *testing.T, newCP func(keep int) graph.Checkpointer) {
	t.Helper()
	ctx := context.Background()
	for _, keep := range []int{1, 3, 10} {
		t.Run(fmt.Sprintf("keep%d", keep), func(t *testing.T) {
			cp := newCP(keep)
			var all []*graph.Checkpoint
			for i := range 25 {
				c := Sample("t", "", i, i > 0)
				c.Values["log"] = growing(i)
				require.NoError(t, cp.Put(ctx, c))
				require.NoError(t, cp.PutWrites(ctx, "t", "", c.ID, []graph.PendingWrite{{TaskID: "a", Channel: "x", Value: []byte(`1`)}}))
				all = append(all, c)
			}
			got, err := cp.List(ctx, "t", "", graph.ListOptions{})
			require.NoError(t, err)
			require.Len(t, got, keep)
			for i, c := range got {
				want := all[len(all)-1-i]
				AssertEqual(t, want, c)
				loaded, ws, err := cp.Get(ctx, "t", "", want.ID)
				require.NoError(t, err)
				AssertEqual(t, want, loaded)
				require.Len(t, ws, 1)
			}
			_, _, err = cp.Get(ctx, "t", "", all[len(all)-keep-1].ID)
			require.ErrorIs(t, err, graph.ErrCheckpointNotFound)
		})
	}
}

// Sample builds a checkpoint for step n of a thread; withParent links it to
// step n-1.
func Sample(thread, ns string, n int, withParent bool) *graph.Checkpoint {
	c := &graph.Checkpoint{
		ThreadID:  thread,
		NS:        ns,
		ID:        ID(n),
		Step:      n - 1,
		Source:    graph.SourceLoop,
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, n*1000, time.UTC),
		Values: map[string][]byte{
			"count": []byte(fmt.Sprint(n)),
			"name":  []byte(`"fixed"`),
		},
		Versions:  map[string]int64{"count": int64(n + 1), "name": 1},
		Format:    "json",
		StateType: "checkpointtest.State",
		Next:      []graph.TaskRef{{ID: fmt.Sprintf("task-%d", n), Node: "node", Send: n%2 == 1, Arg: []byte(`{"a":1}`)}},
		Writes:    []graph.PendingWrite{{TaskID: fmt.Sprintf("task-%d", n-1), Node: "node", Channel: "count", Value: []byte(fmt.Sprint(n))}},
		Metadata:  map[string]string{"step": fmt.Sprint(n)},
	}
	if n == 0 {
		c.Source = graph.SourceInput
	}
	if withParent {
		c.ParentID = ID(n - 1)
	}
	return c
}

// growing returns a JSON array of n messages, as an append reducer grows.
func growing(n int) []byte {
	msgs := make([]string, n)
	for i := range msgs {
		msgs[i] = fmt.Sprintf("message %d %s", i, strings.Repeat("x", i%7))
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		panic(err) // cannot happen for []string
	}
	return b
}

// AssertEqual checks that got is the checkpoint want, field by field.
func AssertEqual(t *testing.T, want, got *graph.Checkpoint) {
	t.Helper()
	require.NotNil(t, got)
	assert.True(t, want.CreatedAt.Equal(got.CreatedAt), "CreatedAt: want %v, got %v", want.CreatedAt, got.CreatedAt)
	w, g := *want, *got
	w.CreatedAt, g.CreatedAt = time.Time{}, time.Time{}
	assert.Equal(t, w, g)
}

func testRoundTrip(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	cases := map[string]*graph.Checkpoint{
		"full": Sample("t1", "", 3, true),
		"empty": {
			ThreadID: "t1", ID: ID(9), Step: -1, Source: graph.SourceInput,
		},
		"nil and empty values": {
			ThreadID: "t1", ID: ID(10), ParentID: ID(9),
			Values:     map[string][]byte{"nil": nil, "empty": {}, "binary": {0, 1, 2, 255}},
			Versions:   map[string]int64{},
			Interrupts: []graph.InterruptInfo{{ID: "i1", Node: "n", TaskID: "t", Value: []byte(`"ask"`)}},
			Metadata:   map[string]string{},
		},
		"unicode thread": {ThreadID: "thread/ü\x00x", NS: "parent:node|child:x", ID: "b", Values: map[string][]byte{"k": []byte(`1`)}},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, cp.Put(ctx, want))
			got, ws, err := cp.Get(ctx, want.ThreadID, want.NS, want.ID)
			require.NoError(t, err)
			assert.Empty(t, ws)
			AssertEqual(t, want, got)
		})
	}
}

func testGetNewest(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	// Put out of order: the newest is the greatest id, not the last Put.
	for _, n := range []int{2, 0, 5, 1} {
		require.NoError(t, cp.Put(ctx, Sample("t", "", n, false)))
	}
	got, _, err := cp.Get(ctx, "t", "", "")
	require.NoError(t, err)
	assert.Equal(t, ID(5), got.ID)
	AssertEqual(t, Sample("t", "", 5, false), got)
}

func testNotFound(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	require.NoError(t, cp.Put(ctx, Sample("t", "", 1, false)))
	for name, args := range map[string][3]string{
		"missing thread":        {"other", "", ""},
		"missing id":            {"t", "", ID(2)},
		"missing ns":            {"t", "sub:x", ""},
		"missing ns with an id": {"t", "sub:x", ID(1)},
	} {
		t.Run(name, func(t *testing.T) {
			got, ws, err := cp.Get(ctx, args[0], args[1], args[2])
			require.ErrorIs(t, err, graph.ErrCheckpointNotFound)
			assert.Nil(t, got)
			assert.Nil(t, ws)
		})
	}
	list, err := cp.List(ctx, "other", "", graph.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, list)
}

func testIsolation(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	in := Sample("t", "", 1, false)
	want := Sample("t", "", 1, false)
	require.NoError(t, cp.Put(ctx, in))
	in.Values["count"][0] = 'X'
	in.Values["new"] = []byte("1")
	in.Next[0].Arg[0] = 'X'
	in.Writes[0].Value[0] = 'X'
	in.Metadata["step"] = "changed"
	ws := []graph.PendingWrite{{TaskID: "a", Channel: "c", Value: []byte(`"v"`)}}
	require.NoError(t, cp.PutWrites(ctx, "t", "", ID(1), ws))
	ws[0].Value[1] = 'X'

	got, gotWs, err := cp.Get(ctx, "t", "", ID(1))
	require.NoError(t, err)
	AssertEqual(t, want, got)
	require.Equal(t, []graph.PendingWrite{{TaskID: "a", Channel: "c", Value: []byte(`"v"`)}}, gotWs)
	got.Values["count"][0] = 'Y'
	got.Versions["count"] = 99
	gotWs[0].Value[1] = 'Y'

	again, againWs, err := cp.Get(ctx, "t", "", ID(1))
	require.NoError(t, err)
	AssertEqual(t, want, again)
	require.Equal(t, []graph.PendingWrite{{TaskID: "a", Channel: "c", Value: []byte(`"v"`)}}, againWs)
}

func testReplace(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	first := Sample("t", "", 1, false)
	require.NoError(t, cp.Put(ctx, first))
	second := Sample("t", "", 1, false)
	second.Values = map[string][]byte{"other": []byte(`"replaced"`)}
	second.Versions = map[string]int64{"other": 7}
	second.Source = graph.SourceUpdate
	require.NoError(t, cp.Put(ctx, second))
	got, _, err := cp.Get(ctx, "t", "", ID(1))
	require.NoError(t, err)
	AssertEqual(t, second, got)
	list, err := cp.List(ctx, "t", "", graph.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list, 1)
}

func testNamespaces(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	root := Sample("t", "", 1, false)
	sub := Sample("t", "parent:node", 1, false)
	sub.Values["count"] = []byte(`"sub"`)
	other := Sample("u", "", 1, false)
	other.Values["count"] = []byte(`"other thread"`)
	for _, c := range []*graph.Checkpoint{root, sub, other} {
		require.NoError(t, cp.Put(ctx, c))
	}
	for _, want := range []*graph.Checkpoint{root, sub, other} {
		got, _, err := cp.Get(ctx, want.ThreadID, want.NS, "")
		require.NoError(t, err)
		AssertEqual(t, want, got)
	}
	require.NoError(t, cp.PutWrites(ctx, "t", "parent:node", ID(1), []graph.PendingWrite{{TaskID: "x", Channel: "c"}}))
	_, ws, err := cp.Get(ctx, "t", "", ID(1))
	require.NoError(t, err)
	assert.Empty(t, ws, "writes of a sub-namespace leak into the root")
}

func testPendingWrites(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	require.NoError(t, cp.Put(ctx, Sample("t", "", 1, false)))
	require.NoError(t, cp.Put(ctx, Sample("t", "", 2, true)))
	w := func(task, ch, v string) graph.PendingWrite {
		return graph.PendingWrite{TaskID: task, Node: "n-" + task, Channel: ch, Value: []byte(v)}
	}
	require.NoError(t, cp.PutWrites(ctx, "t", "", ID(1), []graph.PendingWrite{w("a", "x", "1"), w("a", "y", "2")}))
	require.NoError(t, cp.PutWrites(ctx, "t", "", ID(1), []graph.PendingWrite{w("b", "x", "3")}))
	require.NoError(t, cp.PutWrites(ctx, "t", "", ID(1), []graph.PendingWrite{w("a", "x", "4")})) // replaces (a, x)
	require.NoError(t, cp.PutWrites(ctx, "t", "", ID(2), []graph.PendingWrite{w("c", "z", "5")}))
	require.NoError(t, cp.PutWrites(ctx, "t", "", ID(1), nil))

	_, ws, err := cp.Get(ctx, "t", "", ID(1))
	require.NoError(t, err)
	assert.Equal(t, []graph.PendingWrite{w("a", "x", "4"), w("a", "y", "2"), w("b", "x", "3")}, ws)
	_, ws, err = cp.Get(ctx, "t", "", "")
	require.NoError(t, err)
	assert.Equal(t, []graph.PendingWrite{w("c", "z", "5")}, ws)

	// The checkpoint itself is unchanged by its writes.
	got, _, err := cp.Get(ctx, "t", "", ID(1))
	require.NoError(t, err)
	AssertEqual(t, Sample("t", "", 1, false), got)

	// Writes that equal the child's Writes field, then change: both stay exact.
	child := Sample("t", "", 3, true)
	child.Writes = []graph.PendingWrite{w("c", "z", "5")}
	require.NoError(t, cp.Put(ctx, child))
	require.NoError(t, cp.PutWrites(ctx, "t", "", ID(2), []graph.PendingWrite{w("c", "z", "6")}))
	got, _, err = cp.Get(ctx, "t", "", ID(3))
	require.NoError(t, err)
	AssertEqual(t, child, got)
	_, ws, err = cp.Get(ctx, "t", "", ID(2))
	require.NoError(t, err)
	assert.Equal(t, []graph.PendingWrite{w("c", "z", "6")}, ws)
}

// testManyTasksWrites stores the writes of many tasks of one step, one
// PutWrites per task as the engine does (some concurrently), and checks
// their order, a re-put of one task and a failure-time batch of several.
func testManyTasksWrites(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	require.NoError(t, cp.Put(ctx, Sample("t", "", 1, false)))
	const tasks = 300
	task := func(i int) string { return fmt.Sprintf("task-%03d", i) }
	w := func(i int, ch, v string) graph.PendingWrite {
		return graph.PendingWrite{TaskID: task(i), Node: "work", Channel: ch, Value: []byte(v)}
	}
	var want []graph.PendingWrite
	// Tasks finish in an order unrelated to their ids.
	for k := range tasks {
		i := (k * 7) % tasks
		ws := []graph.PendingWrite{w(i, "items", fmt.Sprintf(`["%d"]`, i)), w(i, "__route__", `{}`)}
		require.NoError(t, cp.PutWrites(ctx, "t", "", ID(1), ws))
		want = append(want, ws...)
	}
	_, got, err := cp.Get(ctx, "t", "", ID(1))
	require.NoError(t, err)
	require.Equal(t, want, got, "grouped by task, in the order each task's first write was stored")

	// A re-put of one task replaces only that task's writes of the same
	// channels, in place, and adds its new channels after its own.
	re := (100 * 7) % tasks
	require.NoError(t, cp.PutWrites(ctx, "t", "", ID(1), []graph.PendingWrite{w(re, "items", `["again"]`), w(re, "extra", `1`)}))
	_, got, err = cp.Get(ctx, "t", "", ID(1))
	require.NoError(t, err)
	wantRe := make([]graph.PendingWrite, 0, len(want)+1)
	for j := 0; j < len(want); j++ {
		x := want[j]
		if x.TaskID == task(re) && x.Channel == "items" {
			x.Value = []byte(`["again"]`)
		}
		wantRe = append(wantRe, x)
		if x.TaskID == task(re) && x.Channel == "__route__" {
			wantRe = append(wantRe, w(re, "extra", `1`))
		}
	}
	require.Equal(t, wantRe, got)

	// Concurrent tasks against another checkpoint: every write kept, each
	// task's writes together and in their own order.
	require.NoError(t, cp.Put(ctx, Sample("t", "", 2, true)))
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- cp.PutWrites(ctx, "t", "", ID(2), []graph.PendingWrite{w(i, "a", `1`), w(i, "b", `2`)})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	_, got, err = cp.Get(ctx, "t", "", ID(2))
	require.NoError(t, err)
	require.Len(t, got, 80)
	seen := map[string]bool{}
	for j := 0; j < len(got); j += 2 {
		assert.Equal(t, got[j].TaskID, got[j+1].TaskID, "a task's writes are together")
		assert.Equal(t, []string{"a", "b"}, []string{got[j].Channel, got[j+1].Channel})
		assert.False(t, seen[got[j].TaskID], "task %s appears once", got[j].TaskID)
		seen[got[j].TaskID] = true
	}

	// One PutWrites with several tasks (a failed step's batch) keeps its order.
	require.NoError(t, cp.Put(ctx, Sample("t", "", 3, true)))
	batch := []graph.PendingWrite{w(5, "x", `1`), w(2, "x", `2`), w(5, "y", `3`), w(9, "x", `4`)}
	require.NoError(t, cp.PutWrites(ctx, "t", "", ID(3), batch))
	_, got, err = cp.Get(ctx, "t", "", ID(3))
	require.NoError(t, err)
	assert.Equal(t, []graph.PendingWrite{batch[0], batch[2], batch[1], batch[3]}, got)
	// The first checkpoint's writes are untouched by the others'.
	_, got, err = cp.Get(ctx, "t", "", ID(1))
	require.NoError(t, err)
	assert.Equal(t, wantRe, got)
}

func testList(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	const n = 12
	for i := range n {
		require.NoError(t, cp.Put(ctx, Sample("t", "", i, i > 0)))
	}
	require.NoError(t, cp.Put(ctx, Sample("t", "sub:x", 100, false)))
	ids := func(cs []*graph.Checkpoint) []string {
		out := []string{}
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	span := func(from, to int) []string { // newest first, from > to
		out := []string{}
		for i := from; i >= to; i-- {
			out = append(out, ID(i))
		}
		return out
	}
	cases := []struct {
		name string
		opts graph.ListOptions
		want []string
	}{
		{"all", graph.ListOptions{}, span(n-1, 0)},
		{"limit", graph.ListOptions{Limit: 3}, span(n-1, n-3)},
		{"limit above count", graph.ListOptions{Limit: 100}, span(n-1, 0)},
		{"before", graph.ListOptions{Before: ID(5)}, span(4, 0)},
		{"before and limit", graph.ListOptions{Before: ID(5), Limit: 2}, span(4, 3)},
		{"before the first", graph.ListOptions{Before: ID(0)}, []string{}},
		{"before a missing id", graph.ListOptions{Before: "cp-00000003x"}, span(3, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cp.List(ctx, "t", "", tc.opts)
			require.NoError(t, err)
			assert.Equal(t, tc.want, ids(got))
			for _, c := range got {
				var i int
				_, err := fmt.Sscanf(c.ID, "cp-%d", &i)
				require.NoError(t, err)
				AssertEqual(t, Sample("t", "", i, i > 0), c)
			}
		})
	}
	// Paging with the cursor visits every checkpoint once.
	var seen []string
	before := ""
	for {
		page, err := cp.List(ctx, "t", "", graph.ListOptions{Limit: 5, Before: before})
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		seen = append(seen, ids(page)...)
		before = page[len(page)-1].ID
	}
	assert.Equal(t, span(n-1, 0), seen)
}

func testDeleteThread(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	for _, ns := range []string{"", "a:1", "a:1|b:2"} {
		for i := range 3 {
			require.NoError(t, cp.Put(ctx, Sample("gone", ns, i, i > 0)))
			require.NoError(t, cp.PutWrites(ctx, "gone", ns, ID(i), []graph.PendingWrite{{TaskID: "x", Channel: "c"}}))
		}
	}
	keep := Sample("kept", "", 1, false)
	require.NoError(t, cp.Put(ctx, keep))
	require.NoError(t, cp.DeleteThread(ctx, "gone"))
	require.NoError(t, cp.DeleteThread(ctx, "never existed"))
	for _, ns := range []string{"", "a:1", "a:1|b:2"} {
		_, _, err := cp.Get(ctx, "gone", ns, "")
		require.ErrorIs(t, err, graph.ErrCheckpointNotFound)
		list, err := cp.List(ctx, "gone", ns, graph.ListOptions{})
		require.NoError(t, err)
		assert.Empty(t, list)
	}
	got, _, err := cp.Get(ctx, "kept", "", "")
	require.NoError(t, err)
	AssertEqual(t, keep, got)

	// The thread can be used again, and old pending writes do not come back.
	require.NoError(t, cp.Put(ctx, Sample("gone", "", 0, false)))
	_, ws, err := cp.Get(ctx, "gone", "", ID(0))
	require.NoError(t, err)
	assert.Empty(t, ws)
}

// testGrowingState writes a thread the way the engine does with an append
// reducer, unchanged channels and a removed channel, and loads every step.
func testGrowingState(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	var all []*graph.Checkpoint
	for i := range 60 {
		c := Sample("g", "", i, i > 0)
		c.Values["log"] = growing(i)
		c.Versions["log"] = int64(i + 1)
		if i%10 == 3 { // an unchanged channel disappears for one step
			delete(c.Values, "name")
			delete(c.Versions, "name")
		}
		if i%13 == 5 { // a reset: the list shrinks
			c.Values["log"] = []byte(`[]`)
		}
		if i >= 40 { // a channel rewritten in place every step
			c.Values["big"] = []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("p", 500)))
		}
		require.NoError(t, cp.Put(ctx, c))
		all = append(all, c)
	}
	for i, want := range all {
		got, _, err := cp.Get(ctx, "g", "", want.ID)
		require.NoError(t, err, "step %d", i)
		AssertEqual(t, want, got)
	}
	list, err := cp.List(ctx, "g", "", graph.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list, len(all))
	for i, got := range list {
		AssertEqual(t, all[len(all)-1-i], got)
	}
}

// testForks writes checkpoints whose parent is not the previous one.
func testForks(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	var all []*graph.Checkpoint
	for i := range 10 {
		c := Sample("f", "", i, i > 0)
		c.Values["log"] = growing(i)
		require.NoError(t, cp.Put(ctx, c))
		all = append(all, c)
	}
	fork := Sample("f", "", 10, false)
	fork.ParentID = ID(4)
	fork.Source = graph.SourceFork
	fork.Values["log"] = growing(5)
	missing := Sample("f", "", 11, false)
	missing.ParentID = "no-such-parent"
	missing.Values["log"] = growing(3)
	for _, c := range []*graph.Checkpoint{fork, missing} {
		require.NoError(t, cp.Put(ctx, c))
		all = append(all, c)
	}
	for _, want := range all {
		got, _, err := cp.Get(ctx, "f", "", want.ID)
		require.NoError(t, err)
		AssertEqual(t, want, got)
	}
}

// testReplaceParent replaces and deletes checkpoints that later ones were
// derived from; the later ones must not change.
func testReplaceParent(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	var all []*graph.Checkpoint
	for i := range 8 {
		c := Sample("r", "", i, i > 0)
		c.Values["log"] = growing(i * 2)
		require.NoError(t, cp.Put(ctx, c))
		all = append(all, c)
	}
	repl := Sample("r", "", 3, true)
	repl.Values["log"] = []byte(`["rewritten"]`)
	require.NoError(t, cp.Put(ctx, repl))
	all[3] = repl
	for _, want := range all {
		got, _, err := cp.Get(ctx, "r", "", want.ID)
		require.NoError(t, err)
		AssertEqual(t, want, got)
	}
}

func testConcurrent(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for th := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			thread := fmt.Sprintf("c%d", th)
			for i := range 15 {
				c := Sample(thread, "", i, i > 0)
				c.Values["log"] = growing(i)
				if err := cp.Put(ctx, c); err != nil {
					errs <- err
					return
				}
				if err := cp.PutWrites(ctx, thread, "", c.ID, []graph.PendingWrite{{TaskID: "t", Channel: "x", Value: []byte("1")}}); err != nil {
					errs <- err
					return
				}
				got, _, err := cp.Get(ctx, thread, "", "")
				if err != nil {
					errs <- err
					return
				}
				if got.ID != c.ID || string(got.Values["log"]) != string(c.Values["log"]) {
					errs <- fmt.Errorf("thread %s: got %s, want %s", thread, got.ID, c.ID)
					return
				}
				if _, err := cp.List(ctx, thread, "", graph.ListOptions{Limit: 3}); err != nil {
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
	for th := range 4 {
		list, err := cp.List(ctx, fmt.Sprintf("c%d", th), "", graph.ListOptions{})
		require.NoError(t, err)
		assert.Len(t, list, 15)
	}
}

func testCanceled(t *testing.T, cp graph.Checkpointer) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, cp.Put(ctx, Sample("t", "", 1, false)), context.Canceled)
	_, _, err := cp.Get(ctx, "t", "", "")
	require.ErrorIs(t, err, context.Canceled)
	_, err = cp.List(ctx, "t", "", graph.ListOptions{})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, cp.PutWrites(ctx, "t", "", ID(1), nil), context.Canceled)
	require.ErrorIs(t, cp.DeleteThread(ctx, "t"), context.Canceled)
}

func testInvalid(t *testing.T, cp graph.Checkpointer) {
	ctx := context.Background()
	require.Error(t, cp.Put(ctx, nil))
	require.Error(t, cp.Put(ctx, &graph.Checkpoint{ThreadID: "t"}))
	require.Error(t, cp.PutWrites(ctx, "t", "", "", []graph.PendingWrite{{TaskID: "a"}}))
	_, _, err := cp.Get(ctx, "t", "", "")
	require.ErrorIs(t, err, graph.ErrCheckpointNotFound, "an invalid Put must not store anything")
}

// The Delta tests run against back-ends that implement the optional
// graph.DeltaPutter and are skipped for the others.

func deltaPutter(t *testing.T, cp graph.Checkpointer) graph.DeltaPutter {
	t.Helper()
	dp, ok := cp.(graph.DeltaPutter)
	if !ok {
		t.Skipf("%T does not implement graph.DeltaPutter", cp)
	}
	return dp
}

// appendDelta returns the delta that turns the JSON array old into old
// with the elements of the JSON array add, and the new value.
func appendDelta(ch string, old, add []byte) (graph.ChannelDelta, []byte) {
	tail := append([]byte{','}, add[1:]...)
	keep := len(old) - 1
	return graph.ChannelDelta{Channel: ch, Keep: keep, Tail: tail}, append(append([]byte(nil), old[:keep]...), tail...)
}

// deltaStep builds checkpoint n (parent n-1) of a thread as the engine
// gives it to PutDelta: count in full, log as a delta of one element of
// size bytes, name inherited, and a reserved channel in full.
func deltaStep(thread string, n int, log []byte, size int) (*graph.Checkpoint, graph.ChannelDelta, *graph.Checkpoint) {
	c := Sample(thread, "", n, true)
	c.Versions["log"] = int64(n + 1)
	c.Values = map[string][]byte{"count": []byte(fmt.Sprint(n)), "__joins__": []byte(fmt.Sprintf("[[%d]]", n%2))}
	elem, _ := json.Marshal([]string{fmt.Sprintf("message %d %s", n, strings.Repeat("y", size))})
	d, full := appendDelta("log", log, elem)
	want := *c
	want.Values = map[string][]byte{"count": []byte(fmt.Sprint(n)), "__joins__": []byte(fmt.Sprintf("[[%d]]", n%2)), "name": []byte(`"fixed"`), "log": full}
	return c, d, &want
}

func seedDelta(t *testing.T, cp graph.Checkpointer, thread string, n int) []byte {
	t.Helper()
	c := Sample(thread, "", 0, false)
	log := growing(n)
	c.Values["log"] = log
	c.Versions["log"] = 1
	require.NoError(t, cp.Put(context.Background(), c))
	return log
}

func testDeltaChain(t *testing.T, cp graph.Checkpointer) {
	dp := deltaPutter(t, cp)
	ctx := context.Background()
	for _, seed := range []int{0, 3, 600} { // 600 messages: past any small-value threshold
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			thread := fmt.Sprintf("chain-%d", seed)
			log := seedDelta(t, cp, thread, seed)
			if seed == 0 {
				log = []byte(`["first"]`)
				c := Sample(thread, "", 0, false)
				c.Values["log"], c.Versions["log"] = log, 1
				require.NoError(t, cp.Put(ctx, c))
			}
			var wants []*graph.Checkpoint
			for n := 1; n <= 40; n++ {
				c, d, want := deltaStep(thread, n, log, n*13%300)
				// the caller reuses its buffers, maps and record (the engine
				// does): the back-end keeps copies
				tail := d.Tail
				in := *c
				in.Values, in.Versions, in.Metadata = maps.Clone(c.Values), maps.Clone(c.Versions), maps.Clone(c.Metadata)
				in.Next, in.Writes = slices.Clone(c.Next), slices.Clone(c.Writes)
				require.NoError(t, dp.PutDelta(ctx, &in, []graph.ChannelDelta{d}))
				for i := range tail {
					tail[i] = '!'
				}
				c.Values["count"][0] = '!'
				clear(in.Values)
				clear(in.Versions)
				clear(in.Metadata)
				for i := range in.Next {
					in.Next[i] = graph.TaskRef{ID: "reused", Node: "reused"}
				}
				for i := range in.Writes {
					in.Writes[i] = graph.PendingWrite{TaskID: "reused", Channel: "reused"}
				}
				in.ID, in.ThreadID, in.Step = "reused", "reused", -9
				wants = append(wants, want)
				log = want.Values["log"]
				require.NoError(t, cp.PutWrites(ctx, thread, "", c.ID, []graph.PendingWrite{{TaskID: "t", Node: "node", Channel: "log", Value: []byte(`["w"]`)}}))
				got, ws, err := cp.Get(ctx, thread, "", "")
				require.NoError(t, err)
				AssertEqual(t, want, got)
				require.Len(t, ws, 1)
				if n%9 == 0 { // an earlier one still loads as it was
					old, _, err := cp.Get(ctx, thread, "", wants[n/2].ID)
					require.NoError(t, err)
					AssertEqual(t, wants[n/2], old)
				}
			}
			for i, w := range wants {
				got, _, err := cp.Get(ctx, thread, "", w.ID)
				require.NoError(t, err, "checkpoint %d", i+1)
				AssertEqual(t, w, got)
			}
			list, err := cp.List(ctx, thread, "", graph.ListOptions{Limit: 5})
			require.NoError(t, err)
			require.Len(t, list, 5)
			for i, got := range list {
				AssertEqual(t, wants[len(wants)-1-i], got)
			}
			// the seed is untouched
			first, _, err := cp.Get(ctx, thread, "", ID(0))
			require.NoError(t, err)
			if seed > 0 {
				assert.Equal(t, growing(seed), first.Values["log"])
			}
		})
	}
}

func testDeltaForks(t *testing.T, cp graph.Checkpointer) {
	dp := deltaPutter(t, cp)
	ctx := context.Background()
	log := seedDelta(t, cp, "f", 300)
	c1, d1, w1 := deltaStep("f", 1, log, 5)
	require.NoError(t, dp.PutDelta(ctx, c1, []graph.ChannelDelta{d1}))
	// two children of checkpoint 1, then a grandchild of the first child
	a, da, wa := deltaStep("f", 2, w1.Values["log"], 7)
	b := *a
	b.ID = ID(3)
	b.Values = map[string][]byte{"count": []byte(`33`)}
	db, fb := appendDelta("log", w1.Values["log"], []byte(`["other branch"]`))
	wb := b
	wb.Values = map[string][]byte{"count": []byte(`33`), "name": []byte(`"fixed"`), "log": fb}
	require.NoError(t, dp.PutDelta(ctx, a, []graph.ChannelDelta{da}))
	require.NoError(t, dp.PutDelta(ctx, &b, []graph.ChannelDelta{db}))
	g, dg, wg := deltaStep("f", 4, wa.Values["log"], 9)
	g.ParentID = a.ID
	wg.ParentID = a.ID
	require.NoError(t, dp.PutDelta(ctx, g, []graph.ChannelDelta{dg}))
	for _, w := range []*graph.Checkpoint{w1, wa, &wb, wg} {
		got, _, err := cp.Get(ctx, "f", "", w.ID)
		require.NoError(t, err)
		AssertEqual(t, w, got)
	}
	// a delta that keeps less than the whole parent (a rewrite of its end)
	h := Sample("f", "", 5, false)
	h.ParentID = ID(3)
	h.Values = map[string][]byte{}
	h.Versions = map[string]int64{"log": 9}
	dh := graph.ChannelDelta{Channel: "log", Keep: 1, Tail: []byte(`"short"]`)}
	require.NoError(t, dp.PutDelta(ctx, h, []graph.ChannelDelta{dh}))
	got, _, err := cp.Get(ctx, "f", "", h.ID)
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"log": []byte(`["short"]`)}, got.Values)
	got, _, err = cp.Get(ctx, "f", "", b.ID)
	require.NoError(t, err)
	AssertEqual(t, &wb, got)
}

func testDeltaBase(t *testing.T, cp graph.Checkpointer) {
	dp := deltaPutter(t, cp)
	ctx := context.Background()
	log := seedDelta(t, cp, "b", 10)
	check := func(c *graph.Checkpoint, ds []graph.ChannelDelta) {
		t.Helper()
		err := dp.PutDelta(ctx, c, ds)
		require.Error(t, err)
		require.True(t, errors.Is(err, graph.ErrDeltaBase), "want ErrDeltaBase, got %v", err)
		_, _, err = cp.Get(ctx, c.ThreadID, c.NS, c.ID)
		require.ErrorIs(t, err, graph.ErrCheckpointNotFound, "nothing stored")
	}
	c, d, _ := deltaStep("b", 1, log, 1)
	orphan := *c
	orphan.ParentID = "no-such-parent"
	check(&orphan, []graph.ChannelDelta{d})
	noParent := *c
	noParent.ParentID = ""
	check(&noParent, []graph.ChannelDelta{d})
	otherThread := *c
	otherThread.ThreadID = "b2"
	check(&otherThread, []graph.ChannelDelta{d})
	long := d
	long.Keep = len(log) + 1
	check(c, []graph.ChannelDelta{long})
	negative := d
	negative.Keep = -1
	check(c, []graph.ChannelDelta{negative})
	missing := *c
	missing.Versions = map[string]int64{"count": 2, "name": 1, "log": 2, "absent": 1}
	check(&missing, []graph.ChannelDelta{d})
	// after the failures, the right one stores
	c, d, want := deltaStep("b", 1, log, 1)
	require.NoError(t, dp.PutDelta(ctx, c, []graph.ChannelDelta{d}))
	got, _, err := cp.Get(ctx, "b", "", "")
	require.NoError(t, err)
	AssertEqual(t, want, got)
}

// testDeltaMixed interleaves Put and PutDelta: a full Put after deltas, a
// replaced checkpoint, a channel dropped, nil and empty values.
func testDeltaMixed(t *testing.T, cp graph.Checkpointer) {
	dp := deltaPutter(t, cp)
	ctx := context.Background()
	log := seedDelta(t, cp, "m", 200)
	var want *graph.Checkpoint
	for n := 1; n <= 6; n++ {
		var c *graph.Checkpoint
		var d graph.ChannelDelta
		c, d, want = deltaStep("m", n, log, 3)
		require.NoError(t, dp.PutDelta(ctx, c, []graph.ChannelDelta{d}))
		log = want.Values["log"]
	}
	// a full Put child of a delta checkpoint
	full := Sample("m", "", 7, true)
	full.Values["log"] = append(append([]byte(nil), log[:len(log)-1]...), []byte(`,"full"]`)...)
	full.Versions["log"] = 8
	require.NoError(t, cp.Put(ctx, full))
	// a delta child of it that drops "name" and sets an empty value
	c := Sample("m", "", 8, true)
	c.Values = map[string][]byte{"count": {}}
	c.Versions = map[string]int64{"count": 9, "log": 9}
	d, fv := appendDelta("log", full.Values["log"], []byte(`["after full"]`))
	require.NoError(t, dp.PutDelta(ctx, c, []graph.ChannelDelta{d}))
	got, _, err := cp.Get(ctx, "m", "", c.ID)
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"count": {}, "log": fv}, got.Values)
	got, _, err = cp.Get(ctx, "m", "", full.ID)
	require.NoError(t, err)
	AssertEqual(t, full, got)
	// replacing a delta checkpoint with Put (an interrupt recorded on it)
	repl := *want
	repl.Interrupts = []graph.InterruptInfo{{ID: "i", Node: "node", TaskID: "t", Value: []byte(`"ask"`)}}
	require.NoError(t, cp.Put(ctx, &repl))
	got, _, err = cp.Get(ctx, "m", "", repl.ID)
	require.NoError(t, err)
	AssertEqual(t, &repl, got)
	for _, id := range []string{full.ID, c.ID} {
		_, _, err := cp.Get(ctx, "m", "", id)
		require.NoError(t, err, id)
	}
	// and replacing a delta checkpoint with PutDelta
	c2 := *c
	c2.Values = map[string][]byte{"count": []byte(`99`)}
	require.NoError(t, dp.PutDelta(ctx, &c2, []graph.ChannelDelta{d}))
	got, _, err = cp.Get(ctx, "m", "", c.ID)
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"count": []byte(`99`), "log": fv}, got.Values)
	require.NoError(t, cp.DeleteThread(ctx, "m"))
	_, _, err = cp.Get(ctx, "m", "", "")
	require.ErrorIs(t, err, graph.ErrCheckpointNotFound)
}

func testDeltaConcurrent(t *testing.T, cp graph.Checkpointer) {
	dp := deltaPutter(t, cp)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		thread := fmt.Sprintf("c%d", g)
		log := seedDelta(t, cp, thread, 50*g)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; n <= 25; n++ {
				c, d, want := deltaStep(thread, n, log, g)
				if err := dp.PutDelta(ctx, c, []graph.ChannelDelta{d}); err != nil {
					errs <- err
					return
				}
				got, _, err := cp.Get(ctx, thread, "", "")
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(got.Values["log"], want.Values["log"]) {
					errs <- fmt.Errorf("thread %s step %d: log differs", thread, n)
					return
				}
				log = want.Values["log"]
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}
