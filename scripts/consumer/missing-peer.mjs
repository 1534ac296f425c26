// A consumer without msw: the msw entry says what to install instead of Node's "Cannot find package".
import { FakeTenant } from '@idgov/sdk/testing';
import { mswHandlers } from '@idgov/sdk/testing/msw';

const error = await mswHandlers(new FakeTenant()).then(
  () => undefined,
  (e) => e,
);
if (error?.name !== 'ConfigurationError' || !/npm install --save-dev msw/.test(error.message)) {
  throw new Error(`mswHandlers without msw: expected a ConfigurationError naming msw, got ${error}`);
}
console.log('without msw: mswHandlers() says to install msw');
