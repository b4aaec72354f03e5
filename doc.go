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
package agentgraph
