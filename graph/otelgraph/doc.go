// Package otelgraph traces graph runs with OpenTelemetry.
//
// A Tracer turns the events a run reports to its observer into spans:
//
//	graph.run <graph>            agentgraph.graph, agentgraph.thread_id
//	  graph.step                 agentgraph.step, agentgraph.tasks, agentgraph.checkpoint_id
//	    <node>                   agentgraph.node, agentgraph.task_id, agentgraph.update, ...
//	      graph.run <node>       a subgraph run (SubgraphOption), under its parent task
//
// Tasks of one super-step run concurrently and are each their own span,
// children of the step's span. A failed task's span has status Error and the
// error recorded; a failed run's and step's too. An interrupted task, step
// and run carry agentgraph.interrupted=true and no error status. A finished
// task's update (its written fields, as JSON) is the agentgraph.update
// attribute, cut at WithMaxUpdateSize (agentgraph.update.truncated=true).
//
// Nothing is traced unless asked: Start (or Invoke, Stream) traces one run, and its
// run span is a child of the span in the caller's context. FromEnv builds an
// OTLP exporter from the standard OTEL_* variables and is a no-op when none
// is set.
//
// Limits, from what graph's observer events carry: the attempt number of a
// task is known when it failed (graph.NodeError) or when the node calls
// Tracer.Context; a subgraph run is matched to its parent task by checkpoint
// namespace and node, so two traced runs executing the same subgraph node at
// the same moment on one Tracer may be attributed to each other's task.
package otelgraph
