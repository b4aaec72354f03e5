// Package graph is a typed state-graph engine in LangGraph's Pregel model.
//
// # Building
//
// The state is a struct S whose exported fields are the graph's channels.
// Each field either has a reducer (registered with Reducer; see package
// state) or keeps the last value written:
//
//	type State struct {
//		Messages []state.Message // reducer: state.AddMessages
//		Next     string          // no reducer: last value
//		Steps    int
//	}
//	g := graph.New[State](graph.Reducer(func(s *State) *[]state.Message { return &s.Messages }, state.AddMessages))
//	g.AddNode("agent", agent)  // func(ctx context.Context, s State) (State, error)
//	g.AddNode("tools", tools)
//	g.AddEdge(graph.Start, "agent")
//	g.AddConditionalEdges("agent", graph.Branch(route), "tools", graph.End)
//	g.AddEdge("tools", "agent")
//	app, err := g.Compile(graph.WithCheckpointer(cp), graph.WithStore(st))
//	out, err := app.Invoke(ctx, State{...}, graph.Thread("t1"))
//
// Compile reports every problem it finds (unknown or duplicate nodes,
// reserved names, no entry, unreachable nodes, undeclared router targets,
// conflicting declared writes) as errors wrapping ErrInvalidGraph; builder
// methods never panic.
//
// # Partial updates: unset versus zero
//
// A node returns a value of S holding only what it changes. A field counts
// as written when it is not the zero value of its type (reflect's notion:
// 0, "", false, nil slice or map; an empty non-nil slice is written), so
// returning State{Steps: 0} writes nothing. To write a zero value, or to
// replace a field past its reducer, call Overwrite from any node:
//
//	err := graph.Overwrite(ctx, graph.Set(func(s *State) *int { return &s.Steps }, 0))
//
// (a command node may also return the writes in Command.Overwrite). With a
// logger enabled at debug level (WithLogger), a plain node whose update
// writes nothing is logged as a warning naming the node: the usual cause
// is a zero meant as a write. Never return the whole input state from a
// node whose fields have append reducers: the list would be appended to
// itself.
//
// # Super-steps
//
// Runs proceed in super-steps (bulk-synchronous). All tasks of a step read
// the state as it was at the step's start and run concurrently (a step with
// one task runs on the caller's goroutine). At the barrier their writes are
// applied in a deterministic order — tasks triggered by edges in node-name
// order, then Send tasks in the order they were sent — each through the
// field's reducer. A field without a reducer written by two tasks of one
// step fails the step with an *InvalidUpdateError naming the field and the
// nodes. A router (AddConditionalEdges) runs as part of its node's task and
// sees the step-start state plus that node's own writes, not its siblings'.
// Edges into one node from tasks of the same step run it once; AddJoin waits
// for sources finishing in different steps. A node added with Defer waits
// while other tasks are scheduled and runs once, in the first step that
// has nothing else to run (LangGraph's defer=True): the fan-in after a Send
// fan-out whose branches have different lengths. A node with no outgoing
// edge ends its branch; the run ends when a step schedules nothing.
//
// Routers return a Route: node names (End ends the branch) and Send tasks,
// which run a node on their own input of type S (map-reduce). Branch,
// Branches and FanOut adapt simpler functions. A command node
// (AddCommandNode) returns a Command with Update, Goto, Sends and Overwrite;
// its Goto and Sends must name nodes of the graph, and, when the node was
// added with Destinations (which Compile checks and uses for
// reachability), nodes among them: otherwise the node fails with an error
// wrapping ErrInvalidRoute that names the route.
//
// Each run may take at most RecursionLimit super-steps (default
// DefaultRecursionLimit, 10000); beyond that it fails with ErrRecursionLimit.
// RemainingSteps(ctx) tells a node how many steps are left after its own.
//
// # Checkpoints, interrupts, time travel
//
// With WithCheckpointer the engine writes a checkpoint after the input and
// after each step: every field is encoded as its own channel (JSON by
// default, see Serializer), with a version per channel; unchanged channels
// reuse their previous encoding, and with the JSON serializer a list that
// only grew by appends is encoded by extending its previous encoding with
// the new elements' (the encoder's work is the step's, not the list's).
// A checkpointer that implements the optional DeltaPutter (package
// checkpoint's Memory and Bolt do) gets such a list as a ChannelDelta
// holding only the appended bytes, and the unchanged channels not at all,
// so a step's checkpoint costs what the step added; the engine keeps its
// own growable copy of the encoding (one copy per run, at its first
// checkpoint). Other checkpointers get every checkpoint in full through
// Put. Without a checkpointer nothing is serialized. A step that fails (or is cancelled) stores the writes of its
// finished tasks as pending writes, so Invoke with Continue() re-runs only
// the failed tasks.
//
// Interrupt(ctx, payload) pauses the thread inside a node: the step's other
// tasks finish and keep their writes as pending, the step does not commit,
// and Invoke returns an *InterruptError (errors.Is(err, ErrInterrupted)).
// Invoke with Resume(value) — or app.Resume(ctx, value, Thread(id)), which
// needs no input — re-runs the interrupted node, and Interrupt returns
// value. Several Interrupt calls in one node are answered in order
// by successive resumes. InterruptBefore and InterruptAfter pause
// statically; Continue (the option, or app.Continue(ctx, Thread(id))) or
// Resume goes on. With Resume or Continue, Invoke ignores its input. New input (an Invoke without
// Resume/Continue) on a paused thread abandons the interrupted work and
// starts from Start with the input applied to the thread's state.
//
// While a step is paused (or after it failed), GetState shows it as
// LangGraph does: Next lists only the tasks whose writes are not stored,
// and Values has the finished tasks' stored writes applied.
//
// GetState, History (History(ctx, ListOptions{Limit: 10}, Thread(id))),
// UpdateState (a fork written as a given node) and
// Invoke with CheckpointID and Continue (replay from any checkpoint) give
// time travel.
//
// # Streaming and context
//
// Stream returns an iter.Seq2 of events in the modes selected with Modes:
// Values (the state after the input and after each step, at the barrier),
// Updates (each task's update, sent as the task finishes, so a fast task's
// comes while its slower siblings run), Debug (task start and result —
// also as each task finishes —, checkpoints) and Custom (what nodes pass
// to Emit). Tasks whose results were loaded from stored pending writes
// report at the barrier. WithObserver and Observe receive every event, for
// harnesses. Nodes reach the Store with StoreFrom(ctx), the stream with
// Emit/StreamWriter, and their identity with TaskInfoFrom. Call Emit and
// Interrupt from the node's own goroutine (not from goroutines it starts).
//
// # Panics
//
// A panic in a node, a router, a reducer, an observer or the serializer
// does not escape Invoke or Stream: it becomes a *PanicError naming where
// it came from (the node, the field), with the panic value and the stack;
// a node's or router's comes wrapped in a *NodeError. A state field the
// checkpointer cannot serialize (a channel or a function, also nested) is
// a Compile error when the graph has a checkpointer.
//
// # Retries, cancellation, subgraphs
//
// WithRetry gives a node a RetryPolicy (attempts, exponential backoff with
// optional jitter, a predicate on errors). Cancelling the context stops the
// run promptly — a parallel step stops waiting for its tasks — and leaves
// the last checkpoint resumable. Subgraph makes a compiled graph a node of
// another, with input/output mapping and its own checkpoint namespace; to
// inspect a child's checkpoints, compile the child's builder with the same
// checkpointer and call GetState with Namespace("node").
package graph
