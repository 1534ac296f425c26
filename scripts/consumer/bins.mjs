// The package's two bins as a user runs them after `npm install`: the fake tenant serves a
// realistic history, and `idgov sync` copies it into SQLite, which `idgov export` writes out.
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const tenant = spawn('node_modules/.bin/idgov-fake-tenant', ['--history', '300'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: tenant.stdout }).once('line', resolve);
    tenant.once('exit', (code) => reject(new Error(`idgov-fake-tenant exited (${code}) before serving`)));
  });
  const { baseUrl, clientId, clientSecret } = JSON.parse(line);
  const env = {
    ...process.env,
    IDGOV_BASE_URL: baseUrl,
    IDGOV_CLIENT_ID: clientId,
    IDGOV_CLIENT_SECRET: clientSecret,
  };
  execFileSync('node_modules/.bin/idgov', ['sync', '--db', 'copy.db'], { env, stdio: 'pipe' });
  const csv = execFileSync(
    'node_modules/.bin/idgov',
    ['export', '--db', 'copy.db', '--format', 'csv', '--include-deleted'],
    {
      env,
      encoding: 'utf8',
    },
  );
  const rows = csv.trim().split('\n').length - 1;
  if (rows !== 300) throw new Error(`idgov export wrote ${rows} tasks, not the tenant's 300`);
  console.log(`bins: idgov sync copied the fake tenant's ${rows} tasks; idgov export wrote them`);
} finally {
  tenant.kill();
}
