// CommonJS consumer of the packed tarball.
const { IdGovClient, TaskState } = require('@idgov/sdk');
const { WebhookSender } = require('@idgov/sdk/webhooks');
const { TaskSearchResponseSchema } = require('@idgov/sdk/schemas');

if (typeof IdGovClient !== 'function' || TaskState.OPEN !== 'TASK_STATE_OPEN')
  throw new Error('bad CJS exports');
const page = TaskSearchResponseSchema.parse({
  list: [{ task: { id: 't', type: { grant: {} } } }],
  nextPageToken: '',
});
if (page.list[0].task.type.$kind !== 'grant') throw new Error('CJS schema parse failed');
new WebhookSender({ url: 'https://t.example.com/api/v1/webhooks/incoming/l', hmac: { secret: 's' } })
  .sign({ a: 1 })
  .then((signed) => console.log(`CJS consumer: signed ${signed.eventId}`));
