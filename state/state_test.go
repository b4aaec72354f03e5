package state_test

import (
	"fmt"
	"testing"

	"github.com/agentgraph/agentgraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppend(t *testing.T) {
	tests := []struct {
		name      string
		cur, upd  []int
		want      []int
		sameSlice bool
	}{
		{"both", []int{1, 2}, []int{3}, []int{1, 2, 3}, false},
		{"empty update keeps cur", []int{1}, nil, []int{1}, true},
		{"nil cur", nil, []int{1}, []int{1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := state.Append(tc.cur, tc.upd)
			assert.Equal(t, tc.want, got)
		})
	}
	// Append never changes the elements cur already holds.
	cur := make([]int, 2, 8)
	cur[0], cur[1] = 1, 2
	view := cur[:2:2]
	_ = state.Append(cur, []int{9})
	assert.Equal(t, []int{1, 2}, view)
}

func TestReplaceAndSum(t *testing.T) {
	assert.Equal(t, "new", state.Replace("old", "new"))
	assert.Equal(t, 5, state.Sum(2, 3))
	assert.InDelta(t, 1.5, state.Sum(1.0, 0.5), 1e-9)
}

func TestWindow(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		cur, upd []string
		want     []string
	}{
		{"under the limit", 3, []string{"a"}, []string{"b"}, []string{"a", "b"}},
		{"drops the oldest", 3, []string{"a", "b", "c"}, []string{"d"}, []string{"b", "c", "d"}},
		{"update longer than window", 2, []string{"a"}, []string{"b", "c", "d"}, []string{"c", "d"}},
		{"zero window", 0, []string{"a"}, []string{"b"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, state.Window[string](tc.n)(tc.cur, tc.upd))
		})
	}
	// Repeated use stays bounded and does not disturb earlier views.
	w := state.Window[int](4)
	var cur []int
	var views [][]int
	for i := 0; i < 100; i++ {
		cur = w(cur, []int{i})
		views = append(views, cur[:len(cur):len(cur)])
	}
	assert.Equal(t, []int{96, 97, 98, 99}, cur)
	assert.Equal(t, []int{0, 1, 2, 3}, views[3])
	assert.Equal(t, []int{46, 47, 48, 49}, views[49])
}

func TestMergeMap(t *testing.T) {
	cur := map[string]int{"a": 1, "b": 2}
	got := state.MergeMap(cur, map[string]int{"b": 20, "c": 3})
	assert.Equal(t, map[string]int{"a": 1, "b": 20, "c": 3}, got)
	assert.Equal(t, map[string]int{"a": 1, "b": 2}, cur, "cur is not modified")
	assert.Equal(t, cur, state.MergeMap(cur, nil))
	assert.Equal(t, map[string]int{"x": 1}, state.MergeMap(nil, map[string]int{"x": 1}))
}

func TestMergeByID(t *testing.T) {
	type item struct {
		ID   int
		V    string
		Gone bool
	}
	merge := state.MergeByID(func(i item) int { return i.ID }, func(i item) bool { return i.Gone })
	cur := []item{{1, "a", false}, {2, "b", false}, {3, "c", false}}
	got := merge(cur, []item{{2, "B", false}, {4, "d", false}, {1, "", true}, {9, "", true}})
	assert.Equal(t, []item{{2, "B", false}, {3, "c", false}, {4, "d", false}}, got)
	assert.Equal(t, "b", cur[1].V, "cur is not modified")
	assert.Equal(t, cur, merge(cur, nil))

	noRemove := state.MergeByID(func(i item) int { return i.ID }, nil)
	assert.Equal(t, []item{{1, "x", true}}, noRemove(nil, []item{{1, "x", true}}))
}

func TestAddMessages(t *testing.T) {
	cur := []state.Message{
		{ID: "1", Role: state.RoleHuman, Content: "hi"},
		{ID: "2", Role: state.RoleAI, Content: "hello"},
	}
	tests := []struct {
		name string
		upd  []state.Message
		want []string // id:content
	}{
		{"append", []state.Message{{ID: "3", Role: state.RoleHuman, Content: "more"}}, []string{"1:hi", "2:hello", "3:more"}},
		{"replace by id", []state.Message{{ID: "2", Role: state.RoleAI, Content: "edited"}}, []string{"1:hi", "2:edited"}},
		{"remove by id", []state.Message{state.RemoveMessage("1")}, []string{"2:hello"}},
		{"remove unknown id", []state.Message{state.RemoveMessage("zz")}, []string{"1:hi", "2:hello"}},
		{"remove all then add", []state.Message{{ID: "x", Content: "gone too"}, state.RemoveAllMessages(), {ID: "5", Content: "fresh"}}, []string{"5:fresh"}},
		{"nothing", nil, []string{"1:hi", "2:hello"}},
		{"a repeated new id in one update", []state.Message{{ID: "7", Content: "a"}, {ID: "7", Content: "b"}}, []string{"1:hi", "2:hello", "7:b"}},
		{"new and known ids", []state.Message{{ID: "8", Content: "n"}, {ID: "1", Content: "again"}}, []string{"1:again", "2:hello", "8:n"}},
		{"many new ids", func() []state.Message {
			var ms []state.Message
			for i := range 10 {
				ms = append(ms, state.Message{ID: fmt.Sprint("n", i)})
			}
			return append(ms, state.Message{ID: "2", Content: "late"})
		}(), []string{"1:hi", "2:late", "n0:", "n1:", "n2:", "n3:", "n4:", "n5:", "n6:", "n7:", "n8:", "n9:"}},
		{"many new ids, one repeated", func() []state.Message {
			var ms []state.Message
			for i := range 10 {
				ms = append(ms, state.Message{ID: fmt.Sprint("r", i%9)})
			}
			return ms
		}(), []string{"1:hi", "2:hello", "r0:", "r1:", "r2:", "r3:", "r4:", "r5:", "r6:", "r7:", "r8:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := state.AddMessages(cur, tc.upd)
			var ids []string
			for _, m := range got {
				ids = append(ids, m.ID+":"+m.Content)
			}
			assert.Equal(t, tc.want, ids)
			assert.Equal(t, "hello", cur[1].Content, "cur is not modified")
		})
	}
	got := state.AddMessages(nil, []state.Message{{Role: state.RoleHuman, Content: "no id"}, {Role: state.RoleAI, Content: "no id either"}})
	require.Len(t, got, 2)
	assert.Len(t, got[0].ID, 32)
	assert.NotEqual(t, got[0].ID, got[1].ID)
	assert.NotEqual(t, state.NewID(), state.NewID())
}

// TestAddMessagesAppendsInPlace: an update that only adds messages grows
// cur's backing array (no copy of the list); what cur and earlier views
// hold never changes.
func TestAddMessagesAppendsInPlace(t *testing.T) {
	cur := make([]state.Message, 2, 16)
	cur[0], cur[1] = state.Message{ID: "1", Content: "hi"}, state.Message{ID: "2", Content: "hello"}
	view := cur[:2:2]
	got := state.AddMessages(cur, []state.Message{{Content: "new"}, {ID: "3", Content: "preset"}})
	require.Len(t, got, 4)
	assert.Same(t, &cur[0], &got[0], "appended in place")
	assert.Equal(t, "hello", view[1].Content)
	assert.Len(t, view, 2)
	// A replacement builds a new slice.
	rep := state.AddMessages(got, []state.Message{{ID: "1", Content: "edited"}})
	assert.NotSame(t, &got[0], &rep[0])
	assert.Equal(t, "hi", got[0].Content)
}
