package graph

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// CompiledGraph is a validated graph, ready to run. It is safe for
// concurrent use; each Invoke or Stream is an independent run.
type CompiledGraph[S any] struct {
	name     string
	fields   []field
	byName   map[string]int
	slices   []uintptr // offsets of slice fields, clipped in views
	nodes    []*cnode[S]
	nodeIdx  map[string]int
	start    *cnode[S]
	joins    []cjoin
	cfg      compileConfig
	ser      Serializer
	before   []bool
	after    []bool
	observer func(Event[S])
	limit    int
	typeName string

	idMu   sync.Mutex
	lastID int64
	// sourceMeta: the metadata of a checkpoint of each source of a run
	// without metadata of its own (shared, never changed).
	sourceMeta map[Source]map[string]string
	pool       sync.Pool

	emptyOnce sync.Once
	emptyEnc  []byte
	emptyErr  error
	// oneRoute[i] is the encoding of a route to node i alone (the last
	// entry: to End), made once: most tasks route to one node.
	oneRoute [][]byte
}

type cnode[S any] struct {
	name     string
	idx      int // -1 for Start
	fn       NodeFunc[S]
	cmd      CommandFunc[S]
	retry    *RetryPolicy
	edges    []int // static successors
	branches []cbranch[S]
	joins    []int // joins this node is a source of
	dest     map[string]bool
	routes   bool // has branches
	deferred bool // Defer: runs only when no other task is scheduled
}

type cbranch[S any] struct {
	route   Router[S]
	targets map[string]bool // nil: any node
}

type cjoin struct {
	to   int
	from []int
}

// Compile validates the graph and returns it ready to run. Every problem is
// reported (joined), each wrapping ErrInvalidGraph; a conflict the graph's
// shape makes certain is an *InvalidUpdateError.
func (g *StateGraph[S]) Compile(opts ...CompileOption) (*CompiledGraph[S], error) {
	var cfg compileConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	c := &CompiledGraph[S]{cfg: cfg, name: cfg.name, ser: cfg.serializer, limit: cfg.recursionLimit}
	if c.ser == nil {
		c.ser = JSON{}
	}
	format, ferr := serializerFormat(c.ser)
	c.ser = safeSerializer{s: c.ser, format: format}
	c.sourceMeta = map[Source]map[string]string{}
	for _, s := range []Source{SourceInput, SourceLoop, SourceUpdate, SourceFork} {
		c.sourceMeta[s] = map[string]string{"source": string(s)}
	}
	if c.limit <= 0 {
		c.limit = DefaultRecursionLimit
	}
	errs := append([]error(nil), g.errs...)
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidGraph}, a...)...))
	}
	if ferr != nil {
		bad("WithSerializer: %v", ferr)
	}

	// State type and fields.
	st := reflect.TypeFor[S]()
	c.typeName = st.String()
	if st.Kind() != reflect.Struct {
		bad("state type %s is not a struct", st)
		return nil, errors.Join(errs...)
	}
	c.byName = map[string]int{}
	for i := 0; i < st.NumField(); i++ {
		sf := st.Field(i)
		if !sf.IsExported() {
			bad("state type %s: field %s is unexported; state fields must be exported", st, sf.Name)
			continue
		}
		if sf.Type.Size() == 0 {
			continue
		}
		if cfg.checkpointer != nil {
			if path := unserializable(sf.Type, sf.Name, map[reflect.Type]bool{}); path != "" {
				bad("state type %s: %s cannot be checkpointed; keep channels and functions out of the state", st, path)
			}
		}
		f := newField(sf)
		c.byName[sf.Name] = len(c.fields)
		c.fields = append(c.fields, f)
		if sf.Type.Kind() == reflect.Slice {
			c.slices = append(c.slices, sf.Offset)
		}
	}
	for _, r := range g.reducers {
		fi, err := c.locate(r.locate)
		if err != nil {
			bad("Reducer: %v", err)
			continue
		}
		f := &c.fields[fi]
		switch {
		case r.nilFn:
			bad("Reducer for field %s: nil reducer", f.name)
		case r.typ != f.typ:
			bad("Reducer: accessor returns *%s, which is not a top-level field (field %s is %s)", r.typ, f.name, f.typ)
		case f.merge != nil:
			bad("Reducer: field %s has two reducers", f.name)
		default:
			f.merge = r.merge
		}
	}

	// Nodes, sorted by name: that order is the deterministic task order.
	names := slices.Clone(g.order)
	slices.Sort(names)
	c.nodeIdx = make(map[string]int, len(names))
	for _, n := range names {
		spec := g.nodes[n]
		switch {
		case n == "":
			bad("empty node name")
			continue
		case n == Start || n == End:
			bad("node name %q is reserved", n)
			continue
		case strings.ContainsAny(n, ":|"):
			bad("node name %q contains ':' or '|', which separate checkpoint namespaces", n)
			continue
		}
		cn := &cnode[S]{name: n, idx: len(c.nodes), fn: spec.fn, cmd: spec.cmd, retry: spec.opts.retry, deferred: spec.opts.deferred}
		if spec.opts.hasDest && spec.cmd == nil {
			bad("node %q: Destinations applies to command nodes (AddCommandNode); route a plain node with AddConditionalEdges targets", n)
		}
		if spec.opts.hasDest {
			cn.dest = map[string]bool{}
			for _, d := range spec.opts.destinations {
				if d != End {
					if _, ok := g.nodes[d]; !ok {
						bad("node %q: unknown destination %q", n, d)
					}
				}
				cn.dest[d] = true
			}
		}
		for _, w := range spec.opts.writes {
			if _, ok := c.byName[w]; !ok {
				bad("node %q: Writes names unknown field %q", n, w)
			}
		}
		c.nodeIdx[n] = cn.idx
		c.nodes = append(c.nodes, cn)
	}
	c.start = &cnode[S]{name: Start, idx: -1}
	src := func(name, what string) *cnode[S] {
		if name == Start {
			return c.start
		}
		if name == End {
			bad("%s from %q: End has no outgoing edges", what, End)
			return nil
		}
		i, ok := c.nodeIdx[name]
		if !ok {
			bad("%s from unknown node %q", what, name)
			return nil
		}
		return c.nodes[i]
	}
	for _, e := range g.edges {
		from := src(e.from, "edge")
		if e.to == Start {
			bad("edge %q -> %q: Start has no incoming edges", e.from, e.to)
			continue
		}
		if e.to == End {
			continue
		}
		to, ok := c.nodeIdx[e.to]
		if !ok {
			bad("edge %q -> unknown node %q", e.from, e.to)
			continue
		}
		if from != nil && !slices.Contains(from.edges, to) {
			from.edges = append(from.edges, to)
		}
	}
	for _, b := range g.branches {
		from := src(b.from, "conditional edges")
		cb := cbranch[S]{route: b.route}
		if len(b.targets) > 0 {
			cb.targets = map[string]bool{}
			for _, t := range b.targets {
				if t != End {
					if _, ok := c.nodeIdx[t]; !ok {
						bad("conditional edges from %q: unknown target %q", b.from, t)
					}
				}
				cb.targets[t] = true
			}
		}
		if from != nil {
			from.branches = append(from.branches, cb)
			from.routes = true
		}
	}
	for _, j := range g.joins {
		to, ok := c.nodeIdx[j.to]
		if !ok {
			bad("join into unknown node %q", j.to)
			continue
		}
		cj := cjoin{to: to}
		okAll := true
		for _, f := range j.from {
			fi, ok := c.nodeIdx[f]
			if !ok {
				bad("join into %q: unknown source %q", j.to, f)
				okAll = false
				continue
			}
			if !slices.Contains(cj.from, fi) {
				cj.from = append(cj.from, fi)
			}
		}
		if !okAll {
			continue
		}
		for _, fi := range cj.from {
			c.nodes[fi].joins = append(c.nodes[fi].joins, len(c.joins))
		}
		c.joins = append(c.joins, cj)
	}
	if len(c.start.edges) == 0 && len(c.start.branches) == 0 {
		bad("no entry: add an edge from graph.Start")
	}

	// Reachability from Start.
	if len(errs) == 0 {
		reach := make([]bool, len(c.nodes))
		all := func() {
			for i := range reach {
				reach[i] = true
			}
		}
		var queue []*cnode[S]
		visit := func(i int) {
			if !reach[i] {
				reach[i] = true
				queue = append(queue, c.nodes[i])
			}
		}
		expand := func(n *cnode[S]) bool {
			for _, e := range n.edges {
				visit(e)
			}
			for _, b := range n.branches {
				if b.targets == nil {
					return false
				}
				for t := range b.targets {
					if t != End {
						visit(c.nodeIdx[t])
					}
				}
			}
			if n.cmd != nil {
				if n.dest == nil {
					return false
				}
				for t := range n.dest {
					if t != End {
						visit(c.nodeIdx[t])
					}
				}
			}
			return true
		}
		open := expand(c.start)
		for open && len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			open = expand(n)
			for _, ji := range n.joins {
				visit(c.joins[ji].to)
			}
		}
		if !open {
			all()
		}
		for i, r := range reach {
			if !r {
				bad("node %q is unreachable from Start", c.nodes[i].name)
			}
		}
	}

	// Conflicts certain from the shape: static siblings both declaring a
	// write of a field without a reducer.
	for _, from := range append([]*cnode[S]{c.start}, c.nodes...) {
		seen := map[string]string{}
		for _, e := range from.edges {
			n := c.nodes[e]
			for _, w := range g.nodes[n.name].opts.writes {
				fi, ok := c.byName[w]
				if !ok || c.fields[fi].merge != nil {
					continue
				}
				if other, dup := seen[w]; dup && other != n.name {
					errs = append(errs, &InvalidUpdateError{Field: w, Nodes: []string{other, n.name}, Static: true})
					continue
				}
				seen[w] = n.name
			}
		}
	}

	c.before = make([]bool, len(c.nodes))
	c.after = make([]bool, len(c.nodes))
	for _, pair := range []struct {
		names []string
		set   []bool
		what  string
	}{{cfg.interruptBefore, c.before, "InterruptBefore"}, {cfg.interruptAfter, c.after, "InterruptAfter"}} {
		for _, n := range pair.names {
			i, ok := c.nodeIdx[n]
			if !ok {
				bad("%s: unknown node %q", pair.what, n)
				continue
			}
			pair.set[i] = true
		}
	}
	if cfg.observer != nil {
		fn, ok := cfg.observer.(func(Event[S]))
		if !ok {
			bad("WithObserver: %T does not observe %s", cfg.observer, st)
		}
		c.observer = fn
	}
	if _, ok := c.ser.(safeSerializer).s.(JSON); ok {
		for i := range c.fields {
			t := c.fields[i].typ
			c.fields[i].splice = t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 &&
				!t.Implements(jsonMarshaler) && !reflect.PointerTo(t).Implements(jsonMarshaler) &&
				!t.Implements(textMarshaler) && !reflect.PointerTo(t).Implements(textMarshaler)
			c.fields[i].fast = fastJSON(t)
			if c.fields[i].splice {
				c.fields[i].fastElem = fastJSONElem(t)
			}
		}
	}
	if len(errs) > 0 {
		if c.name != "" {
			return nil, fmt.Errorf("compile %s: %w", c.name, errors.Join(errs...))
		}
		return nil, fmt.Errorf("compile: %w", errors.Join(errs...))
	}
	return c, nil
}

// serializerFormat calls s.Format, turning a panic into an error.
func serializerFormat(s Serializer) (f string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = newPanic("serializer", "", "", p)
		}
	}()
	return s.Format(), nil
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// unserializable returns a description of the first channel or function
// type reachable in t's values (through fields, elements and pointers),
// or "" when there is none. Types that marshal themselves are trusted.
func unserializable(t reflect.Type, path string, seen map[reflect.Type]bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return ""
	}
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return fmt.Sprintf("field %s has type %s, which", path, t)
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return unserializable(t.Elem(), path+"[]", seen)
	case reflect.Map:
		if p := unserializable(t.Key(), path+"{key}", seen); p != "" {
			return p
		}
		return unserializable(t.Elem(), path+"{}", seen)
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Tag.Get("json") == "-" {
				continue
			}
			if p := unserializable(sf.Type, path+"."+sf.Name, seen); p != "" {
				return p
			}
		}
	}
	return ""
}

// locate maps a field accessor to the index of the top-level field it points to.
func (c *CompiledGraph[S]) locate(loc func(*S) unsafe.Pointer) (fi int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("field accessor panicked: %v", r)
		}
	}()
	var probe S
	base := uintptr(unsafe.Pointer(&probe))
	p := uintptr(loc(&probe))
	if p < base || p >= base+unsafe.Sizeof(probe) {
		return -1, fmt.Errorf("field accessor does not point into its argument")
	}
	off := p - base
	for i := range c.fields {
		if c.fields[i].off == off {
			return i, nil
		}
	}
	return -1, fmt.Errorf("field accessor does not point to a top-level field")
}

// fieldOf maps a pointer into *s to its field index (for Set writes).
func (c *CompiledGraph[S]) fieldOf(s *S, p unsafe.Pointer) int {
	off := uintptr(p) - uintptr(unsafe.Pointer(s))
	for i := range c.fields {
		if c.fields[i].off == off {
			return i
		}
	}
	return -1
}

// Name returns the graph's name (WithName).
func (c *CompiledGraph[S]) Name() string { return c.name }

// Nodes returns the node names, in task order.
func (c *CompiledGraph[S]) Nodes() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.name
	}
	return out
}
