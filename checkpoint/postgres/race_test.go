package postgres_test

const childEnv = "AGENTGRAPH_PG_CHILD"
