import type { HostFacts, ResidencyPolicy } from '../types';
import { defineHostRule } from '../types';
import { fmt } from '../format';
import { HOUR_MS } from '../../protocol/time';


const selects = (policy: ResidencyPolicy, labels: Readonly<Record<string, string>>) =>
  Object.entries(policy.selector).every(([key, value]) => labels[key] === value);

const orList = (items: readonly string[]) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : (items[0] ?? ''));

const describeSelector = (selector: Record<string, string>) => {
  const labels = Object.entries(selector).map(([k, v]) => `${k}=${v}`);
  return labels.length ? `hosts labelled ${labels.join(', ')}` : 'every host';
};

/** A host re-enrolled into another region leaves its old record behind: once silent this long, it is not judged. */
function isInFleet(facts: HostFacts, silentHours: number): boolean {
  const heardMs = facts.lastReportMs ?? facts.host.createdAtMs;
  return facts.nowMs - heardMs <= silentHours * HOUR_MS;
}

export const residency = defineHostRule({
  id: 'region.residency',
  title: 'Host outside the regions its data may be in',
  category: 'region',
  severities: ['critical'],
  defaults: {
    silentHours: {
      value: 24,
      unit: 'h',
      description: 'hosts silent (or, never having reported, enrolled) longer than this are not judged: a host re-enrolled into another region leaves its old record behind',
    },
  },
  openAfterMs: 0,
  needs: 'none',
  evaluate(facts, t, ctx) {
    const { region, labels } = facts.host;
    if (!isInFleet(facts, t.silentHours)) return [];
    return ctx.fleet.residencyPolicies
      .filter((policy) => selects(policy, labels) && !policy.allowedRegions.includes(region))
      .map((policy) => {
        const allowed = orList(policy.allowedRegions);
        const matched = describeSelector(policy.selector);
        return {
          subject: policy.name,
          severity: 'critical' as const,
          message: `This host runs in ${region}, but residency policy "${policy.name}" keeps ${matched} in ${allowed}.`,
          remedy:
            `Move the workload and its data to a host in ${allowed}, or re-enroll this host there: the region comes from the ` +
            `enrollment key, so create one for it (\`npm run admin -- keys create --name <name> --region ${policy.allowedRegions[0]}` +
            `${Object.entries(policy.selector).map(([k, v]) => ` --label ${k}=${v}`).join('')}\`), put it in /etc/inferwatch/enroll-key, ` +
            'delete /var/lib/inferwatch-agent/host-token.json and `systemctl restart inferwatch-agent`. The host then gets a new record ' +
            `in the new region; this one stops reporting and is no longer judged after ${fmt(t.silentHours)} h. If the policy should ` +
            `not apply to this host, narrow its selector (PUT /api/v1/findings/residency-policies with the name "${policy.name}"): ` +
            "a host's labels are those of the enrollment key it first enrolled with.",
          evidence: {
            values: [
              { label: 'policy', value: policy.name },
              { label: 'host region', value: region },
              { label: 'allowed regions', value: policy.allowedRegions.join(', ') },
              { label: 'policy selector', value: matched },
              { label: 'host labels', value: Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(', ') || 'none' },
            ],
          },
        };
      });
  },
});
