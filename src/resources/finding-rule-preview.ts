import type { z } from 'zod/mini';
import { FindingSeverity, FindingType } from '../../schemas/enums.ts';
import {
  type FindingTransform,
  type FindingTransformationRule,
  FindingTransformationRuleSchema,
  type RemoveTagsTransform,
  type SetSeverityTransform,
  type SetTagsTransform,
} from '../../schemas/finding-rule.ts';
import { RequestValidationError } from '../core/errors/errors.ts';
import { createLogger } from '../core/logger.ts';
import { parseRequest } from '../core/validation/validation.ts';
import { kindName } from '../internal/values.ts';
import { conditionCostProblem } from './cel-cost.ts';
import { UnknownValueWarnings } from './unknown-values.ts';

/**
 * A finding as the preview sees it. Keys may be camelCase (as in JSON) or snake_case (as CEL
 * conditions name them: `finding.risk_score`); both spellings are visible to conditions.
 *
 * @group Rules
 */
export interface PreviewFinding {
  /** Severity, e.g. `FINDING_SEVERITY_LOW`; written by `setSeverity`. */
  severity?: string | undefined;
  /** Tags; merged by `setTags`, pruned by `removeTags`. Values are usually strings, but any JSON value is kept. */
  tags?: Record<string, unknown> | undefined;
  /** The finding type, for rules scoped by `findingType` (also read from `finding_type`). */
  findingType?: string | undefined;
  /** The app, for rules scoped by `appId` (also read from `app_id`). */
  appId?: string | undefined;
  /** Any other field, visible to conditions. */
  [field: string]: unknown;
}

/**
 * A rule to preview: a parsed rule, or one written by hand in wire form.
 *
 * @group Rules
 */
export type PreviewRule = FindingTransformationRule | z.input<typeof FindingTransformationRuleSchema>;

/**
 * One field a transform wrote or removed.
 *
 * @group Rules
 */
export interface FieldChange {
  /** `severity` or `tags.<key>`. */
  readonly field: string;
  /** The transform kind that made the change. */
  readonly transform: 'setSeverity' | 'setTags' | 'removeTags';
  /** The value before. */
  readonly from: unknown;
  /** The value after; `undefined` when removed. */
  readonly to: unknown;
}

/**
 * What happened to one rule, in evaluation order.
 *
 * @group Rules
 */
export interface RuleTrace {
  /** The rule's ID. */
  readonly ruleId: string;
  /** The rule's evaluation order. */
  readonly evaluationOrder: number;
  /**
   * `applied`: matched, transforms ran; `not-matched`: the condition was false; `disabled`;
   * `out-of-scope`: another finding type or app; `condition-error`: the condition did not compile,
   * failed, or did not yield a boolean (treated as not matching).
   */
  readonly outcome: 'applied' | 'not-matched' | 'disabled' | 'out-of-scope' | 'condition-error';
  /** Why, for `out-of-scope` and `condition-error`. */
  readonly reason?: string | undefined;
  /** Fields written or removed, in order (for `applied`). */
  readonly changes: readonly FieldChange[];
  /** Transforms of kinds this SDK does not know, skipped (for `applied`). */
  readonly skippedTransforms: readonly string[];
}

/**
 * The result of a preview: the transformed finding and the trace.
 *
 * @group Rules
 */
export interface FindingRulesPreview<F extends PreviewFinding = PreviewFinding> {
  /** A transformed copy; the input is not modified. */
  readonly finding: F;
  /** One entry per rule, in evaluation order. */
  readonly trace: readonly RuleTrace[];
}

const SEVERITIES = Object.values(FindingSeverity);
const FINDING_TYPES = Object.values(FindingType);

// The finding is data (perhaps the service's, with newer values); the rules are what the caller wrote.
function warnUnknownValues(
  warnings: UnknownValueWarnings,
  rules: readonly FindingTransformationRule[],
): void {
  rules.forEach((rule, i) => {
    warnings.check(`rules[${i}].findingType`, rule.findingType, FINDING_TYPES);
    rule.transforms?.forEach((transform, j) => {
      if (transform?.$kind === 'setSeverity') {
        const field = `rules[${i}].transforms[${j}].setSeverity.severity`;
        warnings.check(field, transform.setSeverity.severity, SEVERITIES);
      }
    });
  });
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The condition's view of the finding: both key spellings, and integers as CEL ints. */
function celContext(finding: PreviewFinding): Record<string, unknown> {
  const toCel = (value: unknown): unknown => {
    if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
    if (Array.isArray(value)) return value.map(toCel);
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(value)) {
        out[key] = toCel(v);
        out[snake(key)] ??= out[key];
      }
      return out;
    }
    return value;
  };
  return { finding: toCel(finding) };
}

type Cel = typeof import('@marcbachmann/cel-js');

function evaluateCondition(cel: Cel, condition: string, context: Record<string, unknown>): boolean | string {
  if (!condition.trim()) return true; // an empty condition matches every finding
  const tooCostly = conditionCostProblem(condition);
  if (tooCostly) return tooCostly;
  const { parse } = cel;
  try {
    const result = parse(condition)(context);
    return typeof result === 'boolean' ? result : `condition yields ${typeof result}, not a boolean`;
  } catch (error) {
    return `condition failed: ${(error as Error).message.split('\n')[0]}`;
  }
}

function scopeMismatch(rule: FindingTransformationRule, finding: PreviewFinding): string | undefined {
  const type = finding.findingType ?? (finding.finding_type as string | undefined);
  const app = finding.appId ?? (finding.app_id as string | undefined);
  if (rule.findingType && rule.findingType !== FindingType.UNSPECIFIED && rule.findingType !== type) {
    return `rule applies to ${rule.findingType}, the finding is ${type ?? 'untyped'}`;
  }
  if (rule.appId && rule.appId !== app)
    return `rule applies to app ${rule.appId}, the finding is of ${app ?? 'no app'}`;
  return undefined;
}

/** Evaluation order: ascending `evaluationOrder` (missing counts as 0), ties by rule ID, then input order. */
function inEvaluationOrder(rules: readonly FindingTransformationRule[]): FindingTransformationRule[] {
  return rules
    .map((rule, index) => ({ rule, index }))
    .sort(
      (a, b) =>
        (a.rule.evaluationOrder ?? 0) - (b.rule.evaluationOrder ?? 0) ||
        (a.rule.id ?? '').localeCompare(b.rule.id ?? '') ||
        a.index - b.index,
    )
    .map(({ rule }) => rule);
}

const KNOWN_KINDS = new Set(['removeTags', 'setTags', 'setSeverity', '$kind']);

/**
 * Applies one transform object. It may hold several kinds at once; they apply in a fixed order,
 * `removeTags`, then `setTags`, then `setSeverity`, so a tag both removed and set ends up set (the
 * later writer wins, as between rules). Kinds this SDK does not know are reported as skipped.
 */
function applyTransform(
  transform: FindingTransform,
  finding: PreviewFinding,
  tags: Record<string, unknown>,
  changes: FieldChange[],
  skipped: string[],
): void {
  // Read every kind, not just the one `$kind` names: several may be set at once.
  const { removeTags, setTags, setSeverity } = transform as {
    removeTags?: RemoveTagsTransform | null;
    setTags?: SetTagsTransform | null;
    setSeverity?: SetSeverityTransform | null;
  };
  for (const key of removeTags?.keys ?? []) {
    if (key === null || !Object.hasOwn(tags, key)) continue;
    changes.push({ field: `tags.${key}`, transform: 'removeTags', from: tags[key], to: undefined });
    delete tags[key];
  }
  for (const [key, value] of Object.entries(setTags?.tags ?? {})) {
    changes.push({ field: `tags.${key}`, transform: 'setTags', from: tags[key], to: value });
    tags[key] = value;
  }
  if (setSeverity) {
    changes.push({
      field: 'severity',
      transform: 'setSeverity',
      from: finding.severity,
      to: setSeverity.severity,
    });
    finding.severity = setSeverity.severity ?? undefined;
  }
  for (const key of Object.keys(transform)) if (!KNOWN_KINDS.has(key)) skipped.push(key);
}

/**
 * Previews what finding transformation rules will do to a finding, as the service would: every
 * enabled rule in scope whose CEL condition matches applies its transforms, rules in ascending
 * `evaluationOrder` (ties by rule ID), so when several write the same field the last one wins.
 *
 * Conditions are evaluated against the finding as given, before any rule changes it. A condition
 * that does not compile, fails, or is not boolean is reported in the trace and does not match, as
 * is one that would cost this process too much to evaluate (comprehensions nested more than two
 * deep, a length over what their nesting allows, a regular expression with nested quantifiers); an
 * unknown transform kind is skipped and reported. Nothing is thrown for a bad rule. A transform
 * object holding several kinds applies each: `removeTags`, then `setTags`, then `setSeverity`.
 *
 * @example
 * const { finding, trace } = await previewFindingRules(
 *   { severity: 'FINDING_SEVERITY_LOW', tags: {}, risk_score: 90 },
 *   [{ id: 'r1', enabled: true, condition: 'finding.risk_score > 80', transforms: [{ setSeverity: { severity: 'FINDING_SEVERITY_HIGH' } }] }],
 * );
 * finding.severity; // 'FINDING_SEVERITY_HIGH'
 *
 * @group Rules
 */
export function previewFindingRules<F extends PreviewFinding>(
  finding: F,
  rules: readonly PreviewRule[],
): Promise<FindingRulesPreview<F>> {
  defaultWarnings ??= new UnknownValueWarnings(createLogger(), 'used');
  return preview(finding, rules, defaultWarnings);
}

let defaultWarnings: UnknownValueWarnings | undefined;

/**
 * @internal {@link previewFindingRules}, warning through `warnings` about severities and finding
 * types this SDK does not know (a typo in plain JavaScript); `undefined` for rules the service sent.
 */
export async function preview<F extends PreviewFinding>(
  finding: F,
  rules: readonly PreviewRule[],
  warnings: UnknownValueWarnings | undefined,
): Promise<FindingRulesPreview<F>> {
  // Loaded on first use: the CEL engine is larger than the rest of the client, and declares no
  // sideEffects, so a static import would ride along in every bundle that imports the SDK.
  if (typeof finding !== 'object' || finding === null || Array.isArray(finding)) {
    throw new RequestValidationError(
      `finding must be an object, the finding as the service would hold it (got ${kindName(finding)}).`,
      'finding',
    );
  }
  const cel = await import('@marcbachmann/cel-js');
  const parsed = rules.map((rule, i) => parseRequest(FindingTransformationRuleSchema, rule, `rule ${i}`));
  if (warnings) warnUnknownValues(warnings, parsed);
  const context = celContext(finding);
  const result: F = { ...finding, tags: { ...(finding.tags ?? {}) } };
  const tags = result.tags as Record<string, unknown>;
  const trace = inEvaluationOrder(parsed).map((rule): RuleTrace => {
    const base = {
      ruleId: rule.id ?? '',
      evaluationOrder: rule.evaluationOrder ?? 0,
      changes: [],
      skippedTransforms: [],
    };
    if (rule.enabled === false) return { ...base, outcome: 'disabled' };
    const outOfScope = scopeMismatch(rule, finding);
    if (outOfScope) return { ...base, outcome: 'out-of-scope', reason: outOfScope };
    const matched = evaluateCondition(cel, rule.condition ?? '', context);
    if (typeof matched === 'string') return { ...base, outcome: 'condition-error', reason: matched };
    if (!matched) return { ...base, outcome: 'not-matched' };
    const changes: FieldChange[] = [];
    const skipped: string[] = [];
    for (const transform of rule.transforms ?? []) {
      if (transform) applyTransform(transform, result, tags, changes, skipped);
    }
    return { ...base, outcome: 'applied', changes, skippedTransforms: skipped };
  });
  return { finding: result, trace };
}
