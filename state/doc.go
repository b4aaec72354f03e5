// Package state holds the reducers that merge a node's partial update into
// a field of the graph state, and the shared agent state types.
//
// A reducer is a plain function func(cur, upd F) F. The graph package calls it
// at the end of each super-step, once per task that wrote the field, in the
// step's deterministic task order:
//
//	g := graph.New[State](
//		graph.Reducer(func(s *State) *[]string { return &s.Log }, state.Append),
//		graph.Reducer(func(s *State) *[]Entry { return &s.Tape }, state.Window[Entry](50)),
//		graph.Reducer(func(s *State) *[]state.Message { return &s.Messages }, state.AddMessages),
//	)
//
// Reducers never modify the elements cur already holds: the engine hands the
// step-start state to nodes and stream consumers, and they must not see it
// change. Append, Window and AddMessages (when it only adds messages) may
// grow cur's backing array past its length, which no earlier view of the
// state can reach; MergeMap, MergeByID and AddMessages' replacements and
// removals build new values. So, as with append, do not call a reducer
// twice on the same cur and keep both results.
//
// The package uses the standard library only.
package state
