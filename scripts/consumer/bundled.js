// Bundled for a browser and for a server by check-package.sh.
import { IdGovClient } from '@idgov/sdk';

const client = new IdGovClient({ baseUrl: 'https://t.example.com', credentials: { token: 't' } });
for await (const view of client.tasks.search()) console.log(view.task?.id);
