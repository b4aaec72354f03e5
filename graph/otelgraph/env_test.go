package otelgraph_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace/noop"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/graph/otelgraph"
)

// otlpEnv clears the variables FromEnv reads, so the machine's own do not leak in.
func otlpEnv(t *testing.T, kv map[string]string) {
	for _, k := range []string{"OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"} {
		t.Setenv(k, kv[k])
	}
}

func TestFromEnvConfig(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		noop    bool
		wantErr string
	}{
		{name: "nothing set: off", env: nil, noop: true},
		{name: "exporter none wins over an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, noop: true},
		{name: "endpoint set: otlp over http", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}},
		{name: "traces endpoint set", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}},
		{name: "grpc", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}},
		{name: "unknown exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, wantErr: `OTEL_TRACES_EXPORTER="zipkin"`},
		{name: "unknown protocol", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, wantErr: `OTEL_EXPORTER_OTLP_PROTOCOL="http/json"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			otlpEnv(t, tc.env)
			tp, shutdown, err := otelgraph.FromEnv(t.Context())
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			_, isNoop := tp.(noop.TracerProvider)
			assert.Equal(t, tc.noop, isNoop)
			require.NoError(t, shutdown(t.Context())) // nothing was recorded: nothing to send
		})
	}
}

// TestFromEnvExportsOTLP runs a traced graph with a provider configured only
// through OTEL_EXPORTER_OTLP_ENDPOINT and decodes what reaches a loopback
// OTLP/HTTP receiver.
func TestFromEnvExportsOTLP(t *testing.T) {
	var (
		mu    sync.Mutex
		spans []*tracepb.Span
		svc   []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range req.GetResourceSpans() {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.GetKey() == "service.name" {
					svc = append(svc, a.GetValue().GetStringValue())
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				spans = append(spans, ss.GetSpans()...)
			}
		}
		mu.Unlock()
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	otlpEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_SERVICE_NAME": "otel-test"})

	tp, shutdown, err := otelgraph.FromEnv(t.Context())
	require.NoError(t, err)
	g := newGraph()
	g.AddNode("greet", add("hello"))
	g.AddEdge(graph.Start, "greet")
	app, err := g.Compile(graph.WithName("env"), graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	_, err = otelgraph.Invoke(t.Context(), otelgraph.New(tp), app, "t-env", S{})
	require.NoError(t, err)
	require.NoError(t, shutdown(t.Context())) // flushes the batch

	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, svc, "otel-test")
	byName := map[string]*tracepb.Span{}
	for _, s := range spans {
		byName[s.GetName()] = s
	}
	require.Len(t, byName, 3, "run, step and task spans")
	run, step, task := byName["graph.run env"], byName["graph.step"], byName["greet"]
	require.NotNil(t, run)
	require.NotNil(t, step)
	require.NotNil(t, task)
	assert.Equal(t, run.GetSpanId(), step.GetParentSpanId())
	assert.Equal(t, step.GetSpanId(), task.GetParentSpanId())
	assert.Equal(t, "t-env", attrOf(run.GetAttributes(), "agentgraph.thread_id"))
	assert.Equal(t, "env", attrOf(run.GetAttributes(), "agentgraph.graph"))
	assert.Equal(t, "greet", attrOf(task.GetAttributes(), "agentgraph.node"))
	assert.Equal(t, `{"Items":["hello"]}`, attrOf(task.GetAttributes(), "agentgraph.update"))
	assert.NotEmpty(t, attrOf(task.GetAttributes(), "agentgraph.task_id"))
}

func attrOf(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.GetKey() == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}
