import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type * as z from 'zod/mini';

// A response schema as a later change might write it: fields with zod's formats, a record whose
// keys are constrained, a nullish field whose nullable layer has a refinement. The generator must
// not write a check that accepts what zod refuses: such a schema is left to zod.
vi.mock('../../schemas/token.ts', async (importOriginal) => {
  const z = await import('zod/mini');
  return {
    ...(await importOriginal<object>()),
    TokenResponseSchema: z.looseObject({
      email: z.optional(z.email()),
      count: z.optional(z.int()),
      id: z.optional(z.uuid()),
      labels: z.optional(z.record(z.string().check(z.regex(/^[a-z]+$/)), z.string())),
      note: z.optional(z.nullable(z.string()).check(z.refine((v) => v !== 'bad'))),
    }),
  };
});

const { checksSource } = await import('../../scripts/generate-checks.ts');
const { TokenResponseSchema } = await import('../../schemas/token.ts');
const scratch = new URL('../../schemas/checks.test-scratch.ts', import.meta.url);
afterAll(() => rmSync(scratch, { force: true }));

describe('the checks generator', () => {
  it('accepts only what zod accepts: formats, refinements at any layer and key checks are left to zod', async () => {
    writeFileSync(scratch, checksSource());
    const { IN_PLACE_CHECKS } = (await import(/* @vite-ignore */ scratch.href)) as {
      IN_PLACE_CHECKS: Map<object, (value: unknown) => boolean>;
    };
    const check = IN_PLACE_CHECKS.get(TokenResponseSchema);
    const schema = TokenResponseSchema as unknown as z.ZodMiniType;
    const refused = [
      { email: 'not an email' },
      { count: 1.5 },
      { id: 'nope' },
      { labels: { 'NOT-lower': 'x' } },
      { note: 'bad' },
    ];
    for (const value of refused) {
      expect(schema.safeParse(value).success).toBe(false);
      expect(check?.(structuredClone(value)) ?? false).toBe(false);
    }
  });

  it('writes a file git checks out with LF line endings everywhere (core.autocrlf included)', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const attributes = execFileSync('git', ['check-attr', 'eol', 'schemas/checks.generated.ts'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(attributes.trim()).toBe('schemas/checks.generated.ts: eol: lf');
  });
});
