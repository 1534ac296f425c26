import {
  type Attributes,
  context,
  type Histogram,
  type Meter,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@opentelemetry/api';
import type { RequestIdentity, TransportEvents } from '../core/events.ts';
import type { Hooks } from '../core/hooks.ts';

/** The instruments every component that sends requests records into. */
export interface RequestInstruments {
  readonly duration: Histogram;
  readonly retries: ReturnType<Meter['createCounter']>;
}

/** Creates the request instruments on `meter`: the HTTP client duration of the semantic conventions, and retries. */
export function requestInstruments(meter: Meter): RequestInstruments {
  return {
    duration: meter.createHistogram('http.client.request.duration', {
      description: 'Duration of HTTP client requests, retries and their waits included.',
      unit: 's',
      advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] },
    }),
    retries: meter.createCounter('idgov.request.retries', {
      description: 'Retries scheduled, by reason.',
      unit: '{retry}',
    }),
  };
}

/** The attributes of the HTTP client semantic conventions a request's span and metrics share. */
function requestAttributes(event: RequestIdentity): Attributes {
  const url = new URL(event.url);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return {
    'http.request.method': event.method,
    'server.address': url.hostname,
    'server.port': port,
  };
}

/**
 * Traces every request `hooks` tells of as one client span (its retries as `retry` events on it)
 * and records its duration and retries. The URL goes without its query, which may hold filters;
 * no header or body is ever recorded. Returns the function that stops it.
 */
export function traceRequests(
  hooks: Hooks<TransportEvents>,
  tracer: Tracer,
  instruments: RequestInstruments,
): () => void {
  const open = new Map<number, Span>();
  const startSpan = (event: RequestIdentity, startTime?: Date) => {
    const attributes: Attributes = { ...requestAttributes(event), 'url.full': event.url };
    if (event.eventId !== undefined) attributes['idgov.webhook.event_id'] = event.eventId;
    return tracer.startSpan(event.method, { kind: SpanKind.CLIENT, attributes, startTime }, context.active());
  };
  const offs = [
    hooks.on('request', (event) => {
      if (event.attempt === 1) open.set(event.requestNumber, startSpan(event));
    }),
    hooks.on('retry', (event) => {
      const attributes: Attributes = {
        'http.request.resend_count': event.attempt,
        'idgov.retry.reason': event.reason,
        'idgov.retry.delay_ms': Math.round(event.delayMs),
      };
      if (event.status !== undefined) attributes['http.response.status_code'] = event.status;
      open.get(event.requestNumber)?.addEvent('retry', attributes);
      const counted: Attributes = { ...requestAttributes(event), 'idgov.retry.reason': event.reason };
      if (event.status !== undefined) counted['http.response.status_code'] = event.status;
      instruments.retries.add(1, counted);
    }),
    hooks.on('requestEnd', (event) => {
      const attributes = requestAttributes(event);
      if (event.status !== undefined) attributes['http.response.status_code'] = event.status;
      const errorType =
        event.error?.name ??
        (event.status !== undefined && event.status >= 400 ? String(event.status) : undefined);
      if (errorType !== undefined) attributes['error.type'] = errorType;
      instruments.duration.record(event.durationMs / 1000, attributes);
      // A request that never sent an attempt (its token could not be had) is traced all the same.
      const span =
        open.get(event.requestNumber) ??
        (event.attempts === 0 ? startSpan(event, new Date(Date.now() - event.durationMs)) : undefined);
      if (!span) return;
      open.delete(event.requestNumber);
      span.setAttributes(attributes);
      if (event.attempts > 1) span.setAttribute('http.request.resend_count', event.attempts - 1);
      if (event.requestId !== undefined)
        span.setAttribute('http.response.header.x-request-id', [event.requestId]);
      if (errorType !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
      span.end();
    }),
  ];
  return () => {
    for (const off of offs) off();
    for (const span of open.values()) span.end();
    open.clear();
  };
}
