// Package agentgraph is a Go library for building agent graphs, and an
// autonomous exploratory QA explorer built on it.
//
// The library:
//   - graph: a typed StateGraph in LangGraph's Pregel model: reducers,
//     conditional edges, parallel super-steps, Send, Command, interrupts and
//     resume, streaming, retries, subgraphs, and the Checkpointer and Store
//     interfaces.
//   - state: reducers and shared agent state types.
//   - checkpoint: Checkpointer back-ends (in-memory, bbolt) and a conformance suite.
//   - memory: Store back-ends and the QA knowledge model.
//   - tools: the Tool interface, typed tools, a registry, MCP and skills.
//   - llm: provider detection and langchaingo model adapters, role tiers,
//     structured routing, a tool-calling agent node.
//   - browser: the Playwright engine, JSON intents, the action tape and
//     Playwright spec translation.
//   - personas: the QA team's personas and offline strategies.
//
// Programs under examples/ compose them; examples/explorer is the QA explorer.
// Code shared by them that is no public API lives under internal/: ground
// helpers at its top, the test apps (demo app, bugfarm) under
// internal/testapps, the fakes (one fake per provider wire format) under
// internal/fakes.
//
// Imports point one way: state imports nothing of the module, graph only
// state, and nothing QA-specific sits below them; layout_test.go holds the
// table of what each package may import and checks the tree against it.
package agentgraph
