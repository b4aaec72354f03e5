package browser

const childEnv = "AGENTGRAPH_TAPE_CHILD"
