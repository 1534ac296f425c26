import { IdGovClient } from '@idgov/sdk';
import { TaskSync } from '@idgov/sdk/sync';
import { SqliteSyncStore } from '@idgov/sdk/sync/sqlite';
import { start } from './paging.ts';

const served = await start('../dist/bin.js', ['--history', '20000', '--latency', '0']);
const client = new IdGovClient({ baseUrl: served.baseUrl, credentials: served });
const store = new SqliteSyncStore({ path: `/tmp/prof-${Date.now()}.db` });
let ms = 0;
let calls = 0;
const timed = new Proxy(store, {
  get(t, k, r) {
    const v = Reflect.get(t, k, r);
    if (typeof v !== 'function') return v;
    return (...a: unknown[]) => {
      const s = performance.now();
      try {
        return v.apply(t, a);
      } finally {
        ms += performance.now() - s;
        if (k === 'commitPage') calls++;
      }
    };
  },
});
const sync = new TaskSync({ client, store: timed, concurrency: 16 });
const s = performance.now();
await sync.run();
console.log('wall', performance.now() - s, 'store ms', ms, 'commits', calls, 'ms/commit', ms / calls);
served.child.kill();
