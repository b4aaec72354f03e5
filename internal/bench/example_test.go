package bench_test

import (
	"context"
	"fmt"

	"github.com/agentgraph/agentgraph/internal/bench"
)

// Every implementation of a shape must reach the reference final state; here
// the fan-out shape run by eino and by agentgraph.
func Example() {
	ctx := context.Background()
	for _, im := range []bench.Impl{bench.Eino, bench.Agentgraph} {
		run, err := im.Build(ctx, bench.FanOut)
		if err != nil {
			fmt.Println(err)
			return
		}
		out, err := run(ctx, bench.State{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(im.Name, out.Count, out.Log)
	}
	// Output:
	// eino 10 [fan w00 w01 w02 w03 w04 w05 w06 w07 join]
	// agentgraph 10 [fan w00 w01 w02 w03 w04 w05 w06 w07 join]
}
