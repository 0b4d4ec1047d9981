"""What operators watch (docs/operations.md): Prometheus metrics (`metrics`, served by
`exposition`) and, with the `otel` extra, OpenTelemetry traces (`tracing`, imported only when
OTEL_EXPORTER_OTLP_ENDPOINT is set)."""
