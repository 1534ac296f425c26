/**
 * The wire model: a Zod schema and a TypeScript type for every resource of the service.
 *
 * Responses parse leniently: any field may be `null` or missing and is kept as sent (arrays are
 * not rewritten to `[]`), unknown fields and enum values are kept, and each "exactly one variant"
 * object gains a `$kind` discriminator to switch on (a name the service cannot send). Requests parse
 * strictly. Expanded objects have types (`App`, `User`, ...) that `resolveExpanded` gives.
 *
 * The enums (`TaskState`, ...) and `isKnownEnumValue` are exported by the root, `@idgov/sdk`.
 * The wire conventions are described in guides/protocol.md, "Wire conventions".
 *
 * @module @idgov/sdk/schemas
 */
export * from './app-entitlement.ts';
export type {
  AccessReview,
  App,
  AppResource,
  AppResourceType,
  AppUser,
  ExpandedAppEntitlement,
  ExpandedObject,
  ExpandedTypeMap,
  ExpandedTypeName,
  UnknownExpanded,
  UnknownTypeUrl,
  User,
} from './expanded.ts';
export * from './finding-rule.ts';
export * from './form.ts';
export type { EnumInput, OpenEnum, Unlisted } from './open-enum.ts';
export * from './policy.ts';
export * from './refs.ts';
export * from './task.ts';
export * from './task-search.ts';
export * from './task-type.ts';
export type { OneOf } from './wire.ts';
