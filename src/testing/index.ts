/**
 * The testing kit: a fake tenant for your tests, served through msw or on a loopback port.
 *
 * @module @idgov/sdk/testing
 */

export type { FakeAnswer } from './fake-answers.ts';
export {
  FakeData,
  type FakeDataOptions,
  type FakeTaskInput,
  type FakeTaskVariant,
  fakeRule,
  fakeTask,
  type WireEntitlement,
  type WireRule,
  type WireTask,
} from './fake-data.ts';
export type {
  Delivery,
  FakeHmacListener,
  FakeHmacListenerOptions,
  FakeJwtListener,
  FakeJwtListenerOptions,
  FakeListener,
  FakeListenerOptions,
} from './fake-listeners.ts';
export { FakeTenant, type FakeTenantOptions, type FakeTenantStats } from './fake-tenant.ts';
export type { Fault, FaultCounts, FaultOptions } from './faults.ts';
export { createHmacSecret } from './hmac-secret.ts';
export type { LoopbackServer } from './loopback-server.ts';
