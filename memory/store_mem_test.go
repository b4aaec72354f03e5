package memory_test

import (
	"testing"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/memory/storetest"
)

func TestInMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(opts ...memory.StoreOption) graph.Store { return memory.NewInMemoryStore(opts...) })
}

func TestInMemoryStoreUpdate(t *testing.T) {
	storetest.RunUpdate(t, func(opts ...memory.StoreOption) graph.Store { return memory.NewInMemoryStore(opts...) })
}
