package bench

import (
	"context"
	"testing"
)

// impls lists every implementation compared, in the column order of the
// README table (benchstat -col /impl compares each column with the first).
var impls = []Impl{Eino, Agentgraph, AgentgraphMemory, Plain}

// BenchmarkGraph invokes each shape, compiled once, with each implementation.
// Names are BenchmarkGraph/shape=<shape>/impl=<impl>, so that
// `benchstat -col /impl` puts the implementations side by side.
func BenchmarkGraph(b *testing.B) {
	ctx := context.Background()
	for _, s := range Shapes {
		b.Run("shape="+string(s), func(b *testing.B) {
			for _, im := range impls {
				b.Run("impl="+im.Name, func(b *testing.B) {
					run, err := im.Build(ctx, s)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					for b.Loop() {
						if _, err := run(ctx, State{}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
