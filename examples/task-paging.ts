/**
 * Page through open access tasks with `for await`, and resolve expanded related objects.
 *
 *   node --import ./scripts/from-source.ts examples/task-paging.ts
 */
import { resolveExpanded, TaskState } from '@idgov/sdk';
import { type ExampleEnvironment, runIfMain } from './support/environment.ts';

export async function pageThroughTasks({ client }: ExampleEnvironment): Promise<void> {
  const byKind = new Map<string, number>();
  let seen = 0;
  const progress = process.stdout.isTTY ? (text: string) => process.stdout.write(`\r${text}`) : () => {};

  // Every open task, page after page; the next page is fetched while this loop works on the current one.
  const search = client.tasks.search(
    { taskStates: [TaskState.OPEN], expandMask: { paths: ['app_id'] }, pageSize: 50 },
    { prefetch: true },
  );
  let firstApp: string | undefined;
  for await (const view of search) {
    seen += 1;
    const kind = view.task?.type?.$kind ?? 'none';
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    firstApp ??= resolveExpanded(view, 'appPath')?.displayName as string | undefined;
    progress(`  tasks: ${seen}`);
  }
  progress('\n');
  console.log(`Paged through ${seen} open tasks:`, Object.fromEntries(byKind));
  console.log(`The first task's app, from expanded: ${firstApp ?? '(not expanded)'}`);

  // A switch on the variant narrows the type: each branch sees its own fields.
  const [view] = (await client.tasks.search({ taskTypes: [{ revoke: {} }], pageSize: 10 })).list ?? [];
  const type = view?.task?.type;
  if (type?.$kind === 'revoke') {
    console.log(
      `A revoke task on app ${type.revoke.appId}, source: ${type.revoke.source?.$kind ?? 'unknown'}`,
    );
  }
}

await runIfMain(import.meta.url, pageThroughTasks);
