/**
 * Preview what finding transformation rules will do to a finding before enabling them.
 *
 *   node --import ./scripts/from-source.ts examples/finding-rules-preview.ts
 */
import { FindingSeverity, previewFindingRules } from '@idgov/sdk';
import { type ExampleEnvironment, runIfMain } from './support/environment.ts';

export async function previewRules({ client, ruleId }: ExampleEnvironment): Promise<void> {
  const finding = { severity: FindingSeverity.LOW, tags: { team: 'security', temp: 'yes' }, risk_score: 87 };

  // Draft rules, not yet saved on the tenant: evaluated locally with the same CEL conditions.
  const { finding: after, trace } = await previewFindingRules(finding, [
    {
      id: 'escalate-risky',
      enabled: true,
      evaluationOrder: 10,
      condition: 'finding.risk_score > 80',
      transforms: [{ setSeverity: { severity: FindingSeverity.HIGH } }, { removeTags: { keys: ['temp'] } }],
    },
    { id: 'typo', enabled: true, evaluationOrder: 20, condition: 'finding.risk_score >', transforms: [] },
  ]);
  console.log(`Severity ${finding.severity} -> ${after.severity}; tags ${JSON.stringify(after.tags)}`);
  for (const step of trace) {
    console.log(`  ${step.ruleId}: ${step.outcome}${step.reason ? ` (${step.reason})` : ''}`);
  }

  // Rules already on the tenant, by ID.
  if (ruleId) {
    const stored = await client.findingRules.preview(finding, [ruleId]);
    console.log(`Stored rule ${ruleId}: ${stored.trace[0]?.outcome}, severity -> ${stored.finding.severity}`);
  }
}

await runIfMain(import.meta.url, previewRules);
