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
 * Instruments an outbox: `idgov.outbox.attempts` by outcome, and `idgov.outbox.backlog`, the
 * events of each state (read from the store when metrics are collected). Instrument its sender
 * too for the deliveries' spans.
 *
 * @group OpenTelemetry
 */
export function instrumentOutbox(outbox: WebhookOutbox, options: InstrumentationOptions = {}): () => void {
  return countOutbox(outbox, tracerAndMeter(options).meter);
}

/**
 * Instruments a task sync: `idgov.sync.pages`, `idgov.sync.tasks` (by `new`, `changed`,
 * `deleted`), `idgov.sync.windows` and the gauge `idgov.sync.covered` (the share of the run's
 * creation-time range covered). Instrument its client too for the requests' spans.
 *
 * @group OpenTelemetry
 */
export function instrumentSync(sync: TaskSync, options: InstrumentationOptions = {}): () => void {
  return countSync(sync, tracerAndMeter(options).meter);
}
