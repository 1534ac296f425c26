import type { Meter } from '@opentelemetry/api';
import { shownUrl } from '../internal/url.ts';
import type { WebhookOutbox } from '../outbox/outbox.ts';

/**
 * Counts an outbox's attempts by outcome, and observes its backlog (the events in each state, read
 * from the store at each collection). Returns the function that stops it.
 */
export function countOutbox(outbox: WebhookOutbox, meter: Meter): () => void {
  const attempts = meter.createCounter('idgov.outbox.attempts', {
    description: 'Delivery attempts of outbox events, by outcome.',
    unit: '{attempt}',
  });
  const backlog = meter.createObservableGauge('idgov.outbox.backlog', {
    description: 'Outbox events in each state.',
    unit: '{event}',
  });
  const listener = { 'idgov.webhook.listener': shownUrl(outbox.listener) };
  const observe = async (result: { observe(value: number, attributes: Record<string, string>): void }) => {
    for (const [state, count] of Object.entries(await outbox.counts())) {
      result.observe(count, { ...listener, 'idgov.outbox.state': state });
    }
  };
  backlog.addCallback(observe);
  const off = outbox.hooks.on('attempt', (report) => {
    attempts.add(1, { ...listener, 'idgov.outbox.outcome': report.outcome });
  });
  return () => {
    off();
    backlog.removeCallback(observe);
  };
}
