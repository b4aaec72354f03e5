package checkpoint_test

import (
	"testing"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
)

func TestMemoryConformance(t *testing.T) {
	checkpointtest.Run(t, func() graph.Checkpointer { return checkpoint.NewMemory() })
}

func TestMemoryRetention(t *testing.T) {
	checkpointtest.RunRetention(t, func(keep int) graph.Checkpointer {
		return checkpoint.NewMemory(checkpoint.WithRetention(keep))
	})
}
