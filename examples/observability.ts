/**
 * See what the SDK does: OpenTelemetry spans and metrics printed to the console, while the fake
 * tenant answers some requests with 503 (so spans show retries as events).
 *
 *   node --import ./scripts/from-source.ts examples/observability.ts
 */
import { IdGovClient } from '@idgov/sdk';
import { instrumentClient } from '@idgov/sdk/otel';
import { FakeTenant } from '@idgov/sdk/testing';
import { metrics, trace } from '@opentelemetry/api';
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] }),
);
const meterProvider = new MeterProvider({
  readers: [
    new PeriodicExportingMetricReader({
      exporter: new ConsoleMetricExporter(),
      exportIntervalMillis: 60_000,
    }),
  ],
});
metrics.setGlobalMeterProvider(meterProvider);

// One request in three answered 503: the client retries, and each retry is an event on its span.
const tenant = new FakeTenant({ tasks: 45, faults: { serverError: 0.3, seed: 4 } });
const server = await tenant.listen();
try {
  const client = new IdGovClient({ baseUrl: server.url, credentials: tenant.client });
  const stop = instrumentClient(client);
  const tasks = await client.tasks.search({ pageSize: 20 }).toArray();
  console.log(`read ${tasks.length} tasks; the spans and metrics above say how`);
  stop();
  await meterProvider.forceFlush();
} finally {
  await server.close();
  await meterProvider.shutdown();
}
