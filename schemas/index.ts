/**
 * The wire model: a Zod schema and a TypeScript type for every resource of the service.
 *
 * Responses parse leniently: any field may be `null` or missing and is kept as sent (arrays are
 * not rewritten to `[]`), unknown fields and enum values are kept, and each "exactly one variant"
 * object gains a discriminator (`kind` or `targetKind`) to switch on. Requests parse strictly.
 *
 * The enums (`TaskState`, ...) and `isKnownEnumValue` are exported by the root, `@idgov/sdk`.
 * The wire conventions are described in guides/protocol.md, "Wire conventions".
 *
 * @module @idgov/sdk/schemas
 */
export * from './app-entitlement.ts';
export * from './finding-rule.ts';
export * from './form.ts';
export type { OpenEnum } from './open-enum.ts';
export * from './policy.ts';
export * from './refs.ts';
export * from './task.ts';
export * from './task-search.ts';
export * from './task-type.ts';
export type { OneOf } from './wire.ts';
