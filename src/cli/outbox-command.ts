/**
 * `idgov outbox status` and `list`: where an outbox's events stand, and which they are. What
 * `WebhookOutbox` tells from code, for the operator at 3 a.m.
 *
 * @module
 */
import { isoTime } from '../internal/time.ts';
import { shownUrl } from '../internal/url.ts';
import { answerWithoutQueryValues } from '../outbox/listener-query.ts';
import { OUTBOX_STATES, type OutboxEvent, type OutboxState, type OutboxStore } from '../outbox/store.ts';
import { goneFromThisMachine } from '../stores/local-process.ts';
import { printable } from './options.ts';
import { clockOf, listenersOf, type OutboxTarget, shownListener, withStore, write } from './outbox-access.ts';
import { EXIT, UsageError } from './usage.ts';

// A time as shown; none for one a damaged row holds (text, or out of range), which the drain marks
// dead with the reason: one such row must not make the list that finds it fail.
const when = (ms: number | undefined) =>
  ms === undefined || !Number.isFinite(new Date(ms).getTime()) ? undefined : isoTime(ms);

/** `idgov outbox status`: counts by state a listener, the oldest pending event's age, the next due time, the leases held. */
export function statusCommand(
  options: OutboxTarget & { listener?: string; json?: boolean },
): Promise<number> {
  return withStore(options, 'status', async (store, telemetry) => {
    const now = (await clockOf(store)).now();
    const backlog = telemetry?.meter.createGauge('idgov.outbox.backlog', {
      description: 'Outbox events in each state.',
      unit: '{event}',
    });
    const listeners = await listenersOf(store, options.listener);
    if (listeners.length === 0 && !options.json) write('No events: the outbox is empty.');
    // By listener as the outbox's own metrics name it (no query): two told apart only by their query
    // (where a key is) are one series, their counts summed, or the last recorded would hide the other's.
    const series = new Map<string, Record<OutboxState, number>>();
    for (const listener of listeners) {
      const counts = await store.counts(listener);
      const sum = series.get(shownUrl(listener)) ?? { pending: 0, delivered: 0, dead: 0, expired: 0 };
      for (const state of OUTBOX_STATES) sum[state] += counts[state];
      series.set(shownUrl(listener), sum);
      const [oldest] = await store.list(listener, 'pending', 1);
      const nextDue = oldest ? await nextDueOf(store, listener) : undefined;
      const leases = (await store.leases?.(listener, now, 100)) ?? [];
      const status = {
        listener: shownListener(listener),
        counts,
        oldestPendingAgeSeconds: oldest ? Math.round((now - oldest.enqueuedAt) / 1000) : null,
        nextDueAt: when(nextDue) ?? null,
        leases: leases.map((lease) => ({
          eventId: lease.eventId,
          holder: lease.holder,
          until: isoTime(lease.until),
          // A process of this machine that has exited: its lease holds nothing (SQLite frees it at once).
          holderGone: goneFromThisMachine(lease.holder),
        })),
      };
      if (options.json) {
        write(JSON.stringify(status));
        continue;
      }
      write(`${status.listener}`);
      write(`  ${OUTBOX_STATES.map((state) => `${state} ${counts[state]}`).join(', ')}`);
      if (oldest)
        write(
          `  oldest pending: enqueued ${status.oldestPendingAgeSeconds} s ago; next due ${status.nextDueAt}`,
        );
      for (const lease of status.leases)
        write(
          `  leased: ${lease.eventId} by ${lease.holder} until ${lease.until}${lease.holderGone ? ' (that process is gone)' : ''}`,
        );
    }
    for (const [listener, counts] of series) {
      for (const state of OUTBOX_STATES) {
        backlog?.record(counts[state], { 'idgov.webhook.listener': listener, 'idgov.outbox.state': state });
      }
    }
    return EXIT.done;
  });
}

/** When the listener's next attempt is due: from the store, or from its first thousand pending events. */
async function nextDueOf(store: OutboxStore, listener: string): Promise<number | undefined> {
  if (store.nextDueAt) return store.nextDueAt(listener);
  const pending = await store.list(listener, 'pending', 1_000);
  return pending.length > 0 ? Math.min(...pending.map((event) => event.nextAttemptAt)) : undefined;
}

/** An event as `list` shows it: its facts and last answer; its body only when asked. */
function shownEvent(event: OutboxEvent, body: boolean) {
  return {
    eventId: event.eventId,
    listener: shownListener(event.listener),
    state: event.state,
    attempts: event.attempts,
    enqueuedAt: when(event.enqueuedAt) ?? null,
    nextAttemptAt: event.state === 'pending' ? (when(event.nextAttemptAt) ?? null) : null,
    lastAttemptAt: when(event.lastAttemptAt) ?? null,
    // Without the listener's query values, should it echo its URL: the store keeps the answer whole.
    lastAnswer: event.lastAnswer ? answerWithoutQueryValues(event.lastAnswer, event.listener) : null,
    finishedAt: when(event.finishedAt) ?? null,
    ...(body ? { body: event.body } : {}),
  };
}

/** `idgov outbox list`: the events in a state, oldest first. */
export function listCommand(
  options: OutboxTarget & {
    state: OutboxState;
    listener?: string;
    limit: number;
    after?: string;
    json?: boolean;
    body?: boolean;
  },
): Promise<number> {
  return withStore(options, 'list', async (store) => {
    let left = options.limit;
    let listeners = await listenersOf(store, options.listener);
    // Read on from an event: its listener's events after it, then the listeners after its own.
    let after = options.after;
    if (after !== undefined) {
      const anchor = await store.get(after);
      if (!anchor)
        throw new UsageError(
          `--after ${after}: no such event (purged?): give the last event ID the list showed.`,
        );
      listeners = listeners.slice(Math.max(0, listeners.indexOf(anchor.listener)));
    }
    let last: string | undefined;
    for (const listener of listeners) {
      if (left <= 0) break;
      const events = await store.list(listener, options.state, left, after);
      after = undefined;
      left -= events.length;
      last = events.at(-1)?.eventId ?? last;
      for (const event of events) {
        const shown = shownEvent(event, options.body === true);
        if (options.json) write(JSON.stringify(shown));
        else {
          const answer = printable(answerLine(event));
          write(
            `${shown.eventId}  ${shown.state}  ${shown.attempts} attempt(s)  last: ${answer}  ${shown.listener}`,
          );
          if (options.body) write(`  ${printable(event.body)}`);
        }
      }
    }
    if (left <= 0 && last !== undefined)
      process.stderr.write(`idgov outbox list: --limit reached: more may follow, with --after ${last}\n`);
    return EXIT.done;
  });
}

// How much of a listener's answer body a line of `list` shows: enough for its message.
const BODY_EXCERPT = 160;

/**
 * An event's last answer as a line of `list` shows it: its status and the start of its body, or the
 * error. The body on one line, without the format characters that would reorder it on a terminal,
 * and without the values of the listener's query (a listener may echo the URL, key included).
 */
function answerLine(event: OutboxEvent): string {
  const answer = event.lastAnswer && answerWithoutQueryValues(event.lastAnswer, event.listener);
  if (answer?.status === undefined) return answer?.error ?? '-';
  const body = answer.body?.replace(/[\s\p{Cf}]+/gu, ' ').trim() ?? '';
  const characters = [...body];
  const excerpt =
    characters.length > BODY_EXCERPT ? `${characters.slice(0, BODY_EXCERPT).join('')}...` : body;
  // An error beside a status says what the status alone does not (where a redirect points).
  return [String(answer.status), answer.error, excerpt].filter(Boolean).join(' ');
}
