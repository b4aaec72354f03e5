package otelgraph

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// FromEnv builds a TracerProvider exporting spans over OTLP, configured by
// the standard OpenTelemetry environment variables:
//
//   - OTEL_TRACES_EXPORTER: "otlp" or "none" (unset: otlp when an endpoint is set)
//   - OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: the collector
//   - OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL:
//     "http/protobuf" (default) or "grpc"
//   - OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES: the resource
//   - the exporters' other OTEL_EXPORTER_OTLP_* variables (headers, timeout,
//     TLS, compression)
//
// Tracing is off when OTEL_TRACES_EXPORTER is "none" or no endpoint is
// set: FromEnv then returns a no-op provider. The provider is not installed
// globally. Call shutdown before the process exits to flush the spans.
func FromEnv(ctx context.Context) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	off := func(context.Context) error { return nil }
	switch exp := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")); exp {
	case "none":
		return noop.NewTracerProvider(), off, nil
	case "", "otlp":
		if exp == "" && os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
			return noop.NewTracerProvider(), off, nil
		}
	default:
		return nil, nil, fmt.Errorf("otelgraph: OTEL_TRACES_EXPORTER=%q: only otlp and none are supported", exp)
	}
	protocol := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	var exporter sdktrace.SpanExporter
	switch protocol {
	case "", "http/protobuf":
		exporter, err = otlptracehttp.New(ctx)
	case "grpc":
		exporter, err = otlptracegrpc.New(ctx)
	default:
		return nil, nil, fmt.Errorf("otelgraph: OTEL_EXPORTER_OTLP_PROTOCOL=%q: want http/protobuf or grpc", protocol)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("otelgraph: OTLP %s exporter: %w", protocol, err)
	}
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, nil, fmt.Errorf("otelgraph: resource from environment: %w", err)
	}
	res, err = resource.Merge(resource.Default(), res)
	if err != nil {
		return nil, nil, fmt.Errorf("otelgraph: resource: %w", err)
	}
	p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	return p, p.Shutdown, nil
}
