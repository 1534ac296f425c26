/**
 * What a `SqliteSyncStore` and its worker thread say to each other, and how an error crosses: a
 * thread's errors arrive as plain objects, and are made the SDK's classes again, fields and all.
 *
 * @internal
 * @module
 */
import { ConfigurationError, IdGovError } from '../../core/errors/errors.ts';
import { StoreError } from '../../stores/store-error.ts';

/** A call of the copy's `method` with `args`, answered under `id`. */
export interface ThreadRequest {
  readonly id: number;
  readonly method: string;
  readonly args: readonly unknown[];
}

/** An error as it crosses to the other thread. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  readonly fields: Record<string, unknown>;
}

/** The answer to a {@link ThreadRequest}. */
export type ThreadAnswer =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: WireError };

/** `error` as a plain object: its name, message, stack and own fields (a `StoreError`'s code, say). */
export function toWire(error: unknown): WireError {
  const e = error instanceof Error ? error : new Error(String(error));
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(e)) {
    if (key !== 'cause' && (value === null || typeof value !== 'object')) fields[key] = value;
  }
  return { name: e.name, message: e.message, stack: e.stack, fields };
}

const CLASSES: Record<string, new (...args: never[]) => Error> = {
  ConfigurationError,
  StoreError,
  IdGovError,
};

/** The error a {@link WireError} was, of the SDK's class when it was one (so `instanceof` holds). */
export function fromWire(wire: WireError): Error {
  const error = Object.create((CLASSES[wire.name] ?? Error).prototype) as Error;
  Object.assign(error, wire.fields, { name: wire.name, message: wire.message, stack: wire.stack });
  return error;
}
