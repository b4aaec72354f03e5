module github.com/agentgraph/agentgraph

go 1.26

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/deckarep/golang-set/v2 v2.8.0 // indirect
	github.com/go-stack/stack v1.8.1 // indirect
	github.com/invopop/jsonschema v0.14.0 // indirect
	github.com/mark3labs/mcp-go v1.2.1 // indirect
	github.com/mxschmitt/playwright-go v0.6401.0 // indirect
	github.com/pb33f/ordered-map/v2 v2.3.1 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/tmc/langchaingo v0.1.14 // indirect
	go.etcd.io/bbolt v1.5.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.2 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
