package memory_test

import (
	"github.com/tmc/langchaingo/embeddings"

	"github.com/agentgraph/agentgraph/memory"
)

// Any langchaingo embedder is a memory.Embedder, and the other way round:
// the method sets are the same (checked by the compiler).
var (
	_ memory.Embedder     = embeddings.Embedder(nil)
	_ embeddings.Embedder = memory.Embedder(nil)
)
