import { FINDING_RULES, describeRule } from '@/lib/findings/registry';
import { route } from '@/lib/http/route';

export const dynamic = 'force-dynamic';

/** The rule reference: every rule with its default thresholds and its doc page. */
export const GET = route({ role: 'viewer', handle: () => ({ rules: FINDING_RULES.map(describeRule) }) });
