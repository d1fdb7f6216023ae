import { requireRole } from '@/lib/auth/principal';
import { toErrorResponse } from '@/lib/errors';
import { FINDING_RULES, describeRule } from '@/lib/findings/registry';

export const dynamic = 'force-dynamic';

/** The rule reference: every rule with its default thresholds and its doc page. */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    return Response.json({ rules: FINDING_RULES.map(describeRule) });
  } catch (err) {
    return toErrorResponse(err);
  }
}
