/**
 * The wire model: a Zod schema and a TypeScript type for every resource and enum of the service.
 *
 * Responses parse leniently: any field may be `null` or missing and is kept as sent (arrays are
 * not rewritten to `[]`), unknown fields and enum values are kept, and each "exactly one variant"
 * object gains a `$kind` discriminator to switch on (a name the service cannot send). Requests parse strictly.
 *
 * @module schemas
 */
export * from './app-entitlement.ts';
export * from './enums.ts';
export * from './expanded.ts';
export * from './finding-rule.ts';
export * from './form.ts';
export * from './open-enum.ts';
export * from './policy.ts';
export * from './refs.ts';
export * from './task.ts';
export * from './task-search.ts';
export * from './task-type.ts';
export * from './token.ts';
export { dateTimeInput, durationInput, type OneOf, type Prettify, type VariantMember } from './wire.ts';
