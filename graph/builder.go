package graph

import (
	"context"
	"fmt"
	"reflect"
	"unsafe"
)

// Start and End are the reserved names of the virtual entry and exit nodes.
const (
	Start = "__start__"
	End   = "__end__"
)

// NodeFunc is a node: it reads the state as of the start of its super-step
// and returns a partial update of the same type. A field of the update counts
// as written when it is not its type's zero value (see the package docs for
// writing a zero value).
type NodeFunc[S any] func(ctx context.Context, s S) (S, error)

// CommandFunc is a node that also chooses where the graph goes next.
type CommandFunc[S any] func(ctx context.Context, s S) (Command[S], error)

// Router chooses the next nodes after a node finished. It sees the state as
// of the step's start plus the writes of its own node (not its siblings').
type Router[S any] func(ctx context.Context, s S) (Route[S], error)

// Option configures a StateGraph at New.
type Option[S any] func(*StateGraph[S])

// StateGraph is the builder of a graph over the state type S, which must be
// a struct whose fields are all exported. Build it with New, add nodes and
// edges, then Compile. Builder methods record mistakes; Compile reports them.
type StateGraph[S any] struct {
	nodes    map[string]*nodeSpec[S]
	order    []string
	edges    []edgeSpec
	joins    []joinSpec
	branches []branchSpec[S]
	reducers []reducerSpec[S]
	errs     []error
}

type nodeSpec[S any] struct {
	name  string
	fn    NodeFunc[S]
	cmd   CommandFunc[S]
	opts  nodeOptions
	index int
}

type edgeSpec struct{ from, to string }

type joinSpec struct {
	from []string
	to   string
}

type branchSpec[S any] struct {
	from    string
	route   Router[S]
	targets []string
}

type reducerSpec[S any] struct {
	locate func(*S) unsafe.Pointer
	typ    reflect.Type
	merge  func(dst, upd unsafe.Pointer)
	nilFn  bool
}

// New returns an empty graph builder for state type S.
func New[S any](opts ...Option[S]) *StateGraph[S] {
	g := &StateGraph[S]{nodes: map[string]*nodeSpec[S]{}}
	for _, o := range opts {
		if o != nil {
			o(g)
		}
	}
	return g
}

// Reducer registers the reducer of one field of S. field must return a
// pointer to a top-level field of its argument, for example
//
//	graph.Reducer(func(s *State) *[]string { return &s.Log }, state.Append)
//
// At each super-step's barrier the engine calls reduce(current, update) once
// per task that wrote the field, in task order. Fields without a reducer keep
// the last value and may be written by at most one task per step. reduce
// must not modify the elements cur holds (it may append past cur's length,
// as append does): nodes and stream consumers hold earlier states, and the
// checkpoint of a list that only grew encodes just its new elements.
func Reducer[S, F any](field func(s *S) *F, reduce func(cur, upd F) F) Option[S] {
	return func(g *StateGraph[S]) {
		if field == nil {
			g.errs = append(g.errs, fmt.Errorf("%w: Reducer: nil field accessor", ErrInvalidGraph))
			return
		}
		spec := reducerSpec[S]{
			locate: func(s *S) unsafe.Pointer { return unsafe.Pointer(field(s)) },
			typ:    reflect.TypeFor[F](),
			nilFn:  reduce == nil,
		}
		if reduce != nil {
			spec.merge = func(dst, upd unsafe.Pointer) {
				d := (*F)(dst)
				*d = reduce(*d, *(*F)(upd))
			}
		}
		g.reducers = append(g.reducers, spec)
	}
}

// AddNode adds a node that returns a partial update.
func (g *StateGraph[S]) AddNode(name string, fn NodeFunc[S], opts ...NodeOption) *StateGraph[S] {
	if fn == nil {
		g.errs = append(g.errs, fmt.Errorf("%w: node %q: nil function", ErrInvalidGraph, name))
		return g
	}
	g.addNode(&nodeSpec[S]{name: name, fn: fn}, opts)
	return g
}

// AddCommandNode adds a node that returns a Command: an update plus the next
// nodes (Goto), Send tasks and overwrites. Declare the possible destinations
// with the Destinations option so Compile can check reachability.
func (g *StateGraph[S]) AddCommandNode(name string, fn CommandFunc[S], opts ...NodeOption) *StateGraph[S] {
	if fn == nil {
		g.errs = append(g.errs, fmt.Errorf("%w: node %q: nil function", ErrInvalidGraph, name))
		return g
	}
	g.addNode(&nodeSpec[S]{name: name, cmd: fn}, opts)
	return g
}

func (g *StateGraph[S]) addNode(n *nodeSpec[S], opts []NodeOption) {
	if _, dup := g.nodes[n.name]; dup {
		g.errs = append(g.errs, fmt.Errorf("%w: duplicate node %q", ErrInvalidGraph, n.name))
		return
	}
	for _, o := range opts {
		if o != nil {
			o(&n.opts)
		}
	}
	g.nodes[n.name] = n
	g.order = append(g.order, n.name)
}

// AddEdge makes to run in the super-step after from ran. Several edges into
// one node that fire in the same step run it once. Use AddJoin to wait for
// several sources that may finish in different steps.
func (g *StateGraph[S]) AddEdge(from, to string) *StateGraph[S] {
	g.edges = append(g.edges, edgeSpec{from: from, to: to})
	return g
}

// AddJoin makes to run once every node in from has finished since to last
// ran (LangGraph's add_edge([a, b], c)).
func (g *StateGraph[S]) AddJoin(from []string, to string) *StateGraph[S] {
	if len(from) == 0 {
		g.errs = append(g.errs, fmt.Errorf("%w: join into %q has no sources", ErrInvalidGraph, to))
		return g
	}
	g.joins = append(g.joins, joinSpec{from: append([]string(nil), from...), to: to})
	return g
}

// AddConditionalEdges runs route after from finished and follows the route
// it returns. When targets are given, Compile checks them and a route outside
// them fails the run; without targets every node counts as reachable.
// Use Branch, Branches or FanOut to adapt simpler functions.
func (g *StateGraph[S]) AddConditionalEdges(from string, route Router[S], targets ...string) *StateGraph[S] {
	if route == nil {
		g.errs = append(g.errs, fmt.Errorf("%w: conditional edges from %q: nil router", ErrInvalidGraph, from))
		return g
	}
	g.branches = append(g.branches, branchSpec[S]{from: from, route: route, targets: append([]string(nil), targets...)})
	return g
}

// Branch adapts a router that picks one node (or End).
func Branch[S any](fn func(ctx context.Context, s S) (string, error)) Router[S] {
	return func(ctx context.Context, s S) (Route[S], error) {
		n, err := fn(ctx, s)
		if err != nil {
			return Route[S]{}, err
		}
		return Route[S]{one: n}, nil
	}
}

// Branches adapts a router that picks several nodes, which run in parallel.
func Branches[S any](fn func(ctx context.Context, s S) ([]string, error)) Router[S] {
	return func(ctx context.Context, s S) (Route[S], error) {
		n, err := fn(ctx, s)
		return Route[S]{Nodes: n}, err
	}
}

// FanOut adapts a router that returns Send tasks (map-reduce).
func FanOut[S any](fn func(ctx context.Context, s S) ([]Send[S], error)) Router[S] {
	return func(ctx context.Context, s S) (Route[S], error) {
		sends, err := fn(ctx, s)
		return Route[S]{Sends: sends}, err
	}
}
