import type { Meter } from '@opentelemetry/api';
import type { ClientEvents } from '../core/events.ts';
import type { Hooks } from '../core/hooks.ts';

/** Counts the pages a client reads, and their items, by listing. Returns the function that stops it. */
export function countPages(hooks: Hooks<ClientEvents>, meter: Meter): () => void {
  const pages = meter.createCounter('idgov.pages', {
    description: 'Pages of listings read.',
    unit: '{page}',
  });
  const items = meter.createCounter('idgov.page.items', {
    description: 'Results on the pages of listings read.',
    unit: '{item}',
  });
  return hooks.on('page', (event) => {
    const attributes = { 'idgov.listing': event.what };
    pages.add(1, attributes);
    items.add(event.items, attributes);
  });
}
