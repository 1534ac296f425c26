/**
 * Spans for what users watch, beside the requests': a task sync's run (its windows as span events,
 * its pages and tasks as attributes) and an outbox's drain (what it delivered). Each is the active
 * span while it runs, so the request spans of the client or sender (instrumented too) nest under
 * it where a context manager carries it (Node's SDK registers one).
 *
 * @module
 */
import { type Attributes, type Span, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { WebhookOutbox } from '../outbox/outbox.ts';
import type { TaskSync } from '../sync/run/task-sync.ts';

/** Runs `work` as the active span `name`, ending it with the attributes `done` gives, or the error. */
async function spanned<T>(
  tracer: Tracer,
  name: string,
  work: (span: Span) => Promise<T>,
  done: (value: T) => Attributes,
): Promise<T> {
  return tracer.startActiveSpan(name, async (span) => {
    try {
      const value = await work(span);
      span.setAttributes(done(value));
      return value;
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Traces each `sync.run()` as span `idgov.sync.run`. Returns the function that stops it. */
export function traceSyncRuns(sync: TaskSync, tracer: Tracer): () => void {
  const run = sync.run;
  let tracing = true;
  const traced: TaskSync['run'] = (options) =>
    !tracing
      ? run.call(sync, options)
      : spanned(
          tracer,
          'idgov.sync.run',
          async (span) => {
            const off = sync.hooks.on('window', ({ event, window, from, to }) => {
              const attributes: Attributes = {};
              if (window !== undefined) attributes['idgov.sync.window'] = window;
              if (from !== undefined) attributes['idgov.sync.window.from'] = from;
              if (to !== undefined) attributes['idgov.sync.window.to'] = to;
              span.addEvent(`window ${event}`, attributes);
            });
            try {
              return await run.call(sync, options);
            } finally {
              off();
            }
          },
          (summary) => ({
            'idgov.sync.kind': summary.kind,
            'idgov.sync.complete': summary.complete,
            'idgov.sync.resumed': summary.resumed,
            'idgov.sync.pages': summary.pages,
            'idgov.sync.tasks.new': summary.tasksNew,
            'idgov.sync.tasks.changed': summary.tasksChanged,
            'idgov.sync.tasks.deleted': summary.tasksDeleted,
            'idgov.sync.windows': summary.windows,
          }),
        );
  sync.run = traced;
  // Put back only while it is still ours: stopped after another instrumentation wrapped it, it
  // passes calls on untraced (putting `run` back would undo, or bring back, the other).
  return () => {
    tracing = false;
    if (sync.run === traced) sync.run = run;
  };
}

/**
 * Traces each `outbox.drain()` your code calls as span `idgov.outbox.drain` (not the polls of
 * `start()`, which would be a span a second). Returns the function that stops it.
 */
export function traceOutboxDrains(outbox: WebhookOutbox, tracer: Tracer): () => void {
  const drain = outbox.drain;
  let tracing = true;
  const traced: WebhookOutbox['drain'] = (options) =>
    !tracing
      ? drain.call(outbox, options)
      : spanned(
          tracer,
          'idgov.outbox.drain',
          () => drain.call(outbox, options),
          (summary) => ({
            'idgov.outbox.attempts': summary.attempts,
            'idgov.outbox.delivered': summary.delivered,
            'idgov.outbox.retried': summary.retried,
            'idgov.outbox.dead': summary.dead,
            'idgov.outbox.expired': summary.expired,
          }),
        );
  outbox.drain = traced;
  return () => {
    tracing = false;
    if (outbox.drain === traced) outbox.drain = drain;
  };
}
