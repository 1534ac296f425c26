/**
 * Look up a finding transformation rule and read its transforms.
 *
 *   IDGOV_RULE_ID=... node --import ./scripts/from-source.ts examples/rule-lookup.ts
 */
import { NotFoundError } from '@idgov/sdk';
import { type ExampleEnvironment, runIfMain } from './support/environment.ts';

export async function lookUpRule({ client, ruleId }: ExampleEnvironment): Promise<void> {
  if (!ruleId) {
    console.log('Rule lookup skipped: set IDGOV_RULE_ID.');
    return;
  }
  const rule = await client.findingRules.get(ruleId);
  console.log(
    `Rule "${rule?.displayName}" (order ${rule?.evaluationOrder}) when: ${rule?.condition || 'always'}`,
  );
  for (const transform of rule?.transforms ?? []) {
    switch (transform?.$kind) {
      case 'setSeverity':
        console.log(`  sets severity to ${transform.setSeverity.severity}`);
        break;
      case 'setTags':
        console.log(`  sets tags ${JSON.stringify(transform.setTags.tags)}`);
        break;
      case 'removeTags':
        console.log(`  removes tags ${transform.removeTags.keys?.join(', ')}`);
        break;
      default:
        console.log('  a transform this SDK version does not know yet (kept as sent)');
    }
  }
  try {
    await client.findingRules.get('no-such-rule');
  } catch (error) {
    if (error instanceof NotFoundError) console.log(`A missing rule is a NotFoundError: ${error.status}`);
    else throw error;
  }
}

await runIfMain(import.meta.url, lookUpRule);
