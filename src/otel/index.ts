/**
 * OpenTelemetry for the SDK, through its hooks: a client span per request (retries as span events),
 * and metrics of requests, retries, pages, the outbox and the task sync. Needs `@opentelemetry/api`, an optional
 * peer dependency; without a registered SDK, OpenTelemetry's no-op API makes all of it free.
 *
 * @example
 * import { instrumentClient } from '@idgov/sdk/otel';
 * const client = new IdGovClient();
 * const stop = instrumentClient(client); // the global tracer and meter providers
 *
 * @module @idgov/sdk/otel
 */
import { type MeterProvider, metrics, type TracerProvider, trace } from '@opentelemetry/api';
import type { IdGovClient } from '../client.ts';
import type { WebhookOutbox } from '../outbox/outbox.ts';
import type { TaskSync } from '../sync/run/task-sync.ts';
import { VERSION } from '../version.ts';
import type { WebhookSender } from '../webhooks/sender.ts';
import { countOutbox } from './outbox.ts';
import { countPages } from './pages.ts';
import { requestInstruments, traceRequests } from './requests.ts';
import { traceOutboxDrains, traceSyncRuns } from './spans.ts';
import { countSync } from './sync.ts';

/**
 * Where spans and metrics go. Default: the providers registered globally with OpenTelemetry.
 *
 * @group OpenTelemetry
 */
export interface InstrumentationOptions {
  /** The tracer provider. Default: `trace.getTracerProvider()`. */
  readonly tracerProvider?: TracerProvider | undefined;
  /** The meter provider. Default: `metrics.getMeterProvider()`. */
  readonly meterProvider?: MeterProvider | undefined;
}

const SCOPE = '@idgov/sdk';

function tracerAndMeter(options: InstrumentationOptions) {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE, VERSION);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE, VERSION);
  return { tracer, meter };
}

/**
 * Instruments a client: a span per request, the `http.client.request.duration` histogram,
 * `idgov.request.retries`, and `idgov.pages` and `idgov.page.items` for listings. Returns the
 * function that stops it.
 *
 * @group OpenTelemetry
 */
export function instrumentClient(client: IdGovClient, options: InstrumentationOptions = {}): () => void {
  const { tracer, meter } = tracerAndMeter(options);
  const stops = [
    traceRequests(client.hooks, tracer, requestInstruments(meter)),
    countPages(client.hooks, meter),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/**
 * Instruments a webhook sender: a span per delivery (its event ID as `idgov.webhook.event_id`,
 * retries as span events), the request duration histogram and retries.
 *
 * @group OpenTelemetry
 */
export function instrumentSender(sender: WebhookSender, options: InstrumentationOptions = {}): () => void {
  const { tracer, meter } = tracerAndMeter(options);
  return traceRequests(sender.hooks, tracer, requestInstruments(meter));
}

/**
 * Instruments an outbox: a span `idgov.outbox.drain` for each `drain()` (what it delivered, retried,
 * buried and expired as attributes), `idgov.outbox.attempts` by outcome, and
 * `idgov.outbox.backlog`, the events of each state (read from the store when metrics are
 * collected). Instrument its sender too for the deliveries' spans, which nest under the drain's.
 *
 * @group OpenTelemetry
 */
export function instrumentOutbox(outbox: WebhookOutbox, options: InstrumentationOptions = {}): () => void {
  const { tracer, meter } = tracerAndMeter(options);
  const stops = [countOutbox(outbox, meter), traceOutboxDrains(outbox, tracer)];
  return () => {
    for (const stop of stops) stop();
  };
}

/**
 * Instruments a task sync: a span `idgov.sync.run` for each `run()` (its windows claimed, split and
 * done as span events; its kind, pages and tasks as attributes), `idgov.sync.pages`,
 * `idgov.sync.tasks` (by `new`, `changed`, `deleted`), `idgov.sync.windows` and the gauge
 * `idgov.sync.covered` (the share of the run's creation-time range covered; its last value stays
 * observable after the instrumentation stops, for the final flush). Instrument its client too for
 * the requests' spans, which nest under the run's.
 *
 * @group OpenTelemetry
 */
export function instrumentSync(sync: TaskSync, options: InstrumentationOptions = {}): () => void {
  const { tracer, meter } = tracerAndMeter(options);
  const stops = [countSync(sync, meter), traceSyncRuns(sync, tracer)];
  return () => {
    for (const stop of stops) stop();
  };
}
