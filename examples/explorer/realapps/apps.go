package main

import (
	"github.com/agentgraph/agentgraph/examples/explorer/realapps/apps/adminer"
	"github.com/agentgraph/agentgraph/examples/explorer/realapps/apps/dokuwiki"
	"github.com/agentgraph/agentgraph/examples/explorer/realapps/apps/jingo"
	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

// allApps are the benchmark's apps, in the order they run.
func allApps() []kit.App {
	return []kit.App{dokuwiki.App(), jingo.App(), adminer.App()}
}
