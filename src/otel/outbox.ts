import type { Meter } from '@opentelemetry/api';
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
  const listener = { 'idgov.webhook.listener': listenerAttribute(outbox.listener) };
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

/**
 * The listener's URL as a metric attribute: without its query and fragment (a gateway may keep a
 * key there, `?code=KEY`) or credentials, as a request's span has it.
 */
function listenerAttribute(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.search = '';
    parsed.hash = '';
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return '';
  }
}
