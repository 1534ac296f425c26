/**
 * OpenTelemetry for `idgov` commands, when the standard environment asks for it: with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`/`_METRICS_ENDPOINT`) set,
 * a command's spans and metrics go to that OTLP/HTTP collector (the exporters read the rest of the
 * `OTEL_*` environment: headers, timeouts). The OpenTelemetry packages are optional: loaded only
 * then, and named when missing.
 *
 * @module
 */
import type { Meter, Tracer } from '@opentelemetry/api';
import type { InstrumentationOptions } from '../otel/index.ts';
import { VERSION } from '../version.ts';

/** What a command instruments with, and how it flushes at its end. */
export interface CommandTelemetry {
  readonly options: InstrumentationOptions;
  /** The SDK's tracer and meter, for a command's own span and figures. */
  readonly tracer: Tracer;
  readonly meter: Meter;
  /** The SDK's otel entry, loaded with the packages. */
  readonly otel: typeof import('../otel/index.ts');
  /** Exports what is left, then stops. */
  shutdown(): Promise<void>;
}

const ENDPOINTS = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
];

/** The packages an export needs, as `npm install` takes them. */
// How long an export may take, unless OTEL_EXPORTER_OTLP_TIMEOUT says (the exporters' own default is 10 s).
const EXPORT_TIMEOUT_MS = 3_000;

export const OTEL_PACKAGES =
  '@opentelemetry/api @opentelemetry/resources @opentelemetry/sdk-trace-base @opentelemetry/sdk-metrics @opentelemetry/exporter-trace-otlp-http @opentelemetry/exporter-metrics-otlp-http';

/**
 * The command's telemetry, when the environment names a collector (and `OTEL_SDK_DISABLED` is not
 * `true`); undefined otherwise, or when the packages are missing (said to `warn`).
 */
export async function startTelemetry(warn: (message: string) => void): Promise<CommandTelemetry | undefined> {
  const env = process.env;
  if (!ENDPOINTS.some((name) => env[name]) || env.OTEL_SDK_DISABLED?.toLowerCase() === 'true')
    return undefined;
  const loading = Promise.all([
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
    import('../otel/index.ts'),
    import('@opentelemetry/api'),
  ]);
  let loaded: Awaited<typeof loading>;
  try {
    loaded = await loading;
  } catch (error) {
    warn(
      `the environment names an OpenTelemetry collector, but its packages could not be loaded (${(error as Error)?.message}); nothing is exported. To export: npm install ${OTEL_PACKAGES}`,
    );
    return undefined;
  }
  const [resources, traces, metrics, traceExporter, metricExporter, otel, api] = loaded;
  // An export that fails (a collector down, a wrong endpoint) is said once, not dropped silently;
  // and waited for only so long: a command's end must not hang on its telemetry.
  let told = false;
  const quiet = () => {};
  api.diag.setLogger(
    {
      error: (message: string) => {
        if (told) return;
        told = true;
        warn(
          `telemetry could not be exported (${exportFailure(message)}): check OTEL_EXPORTER_OTLP_ENDPOINT.`,
        );
      },
      warn: quiet,
      info: quiet,
      debug: quiet,
      verbose: quiet,
    },
    api.DiagLogLevel.ERROR,
  );
  const timeoutMillis = env.OTEL_EXPORTER_OTLP_TIMEOUT ? undefined : EXPORT_TIMEOUT_MS;
  const resource = resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'idgov' });
  const tracerProvider = new traces.BasicTracerProvider({
    resource,
    spanProcessors: [new traces.BatchSpanProcessor(new traceExporter.OTLPTraceExporter({ timeoutMillis }))],
  });
  const meterProvider = new metrics.MeterProvider({
    resource,
    readers: [
      new metrics.PeriodicExportingMetricReader({
        exporter: new metricExporter.OTLPMetricExporter({ timeoutMillis }),
        exportIntervalMillis: 60_000,
      }),
    ],
  });
  return {
    options: { tracerProvider, meterProvider },
    tracer: tracerProvider.getTracer('@idgov/sdk', VERSION),
    meter: meterProvider.getMeter('@idgov/sdk', VERSION),
    otel,
    shutdown: async () => {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/** What an exporter's failure says, from the line OpenTelemetry logs it as (an error as JSON, with its stack). */
function exportFailure(logged: string): string {
  try {
    const { message } = JSON.parse(logged) as { message?: unknown };
    if (typeof message === 'string') return message;
  } catch {}
  return logged.split('\n')[0] ?? logged;
}
