// The soak's fleet and dashboard users, written into its database before the server starts: hosts enrolled through
// lib/auth as POST /api/v1/enroll would (the route allows one per second per address), viewers with API tokens.
import { createApiToken } from '../lib/auth/api-tokens';
import { enrollHost } from '../lib/auth/enroll-host';
import { createEnrollmentKey } from '../lib/auth/enrollment-keys';
import { createUser, findUserById } from '../lib/auth/users';
import type { Database } from '../lib/db/open';
import { realisticReport } from './_ingest-report';

const REGIONS = ['us-east', 'us-west', 'eu-west', 'ap-south'];
const REPORT_VARIANTS = 3;
// realisticReport puts seq and ts first: a report built with both 0 is cut there, and each send fills them in.
const SEQ_TS_MARK = '"seq":0,"ts":0';

/** One report's JSON body around its seq and ts. */
interface ReportTemplate {
  head: string;
  tail: string;
}

export interface SimulatedAgent {
  hostId: number;
  token: string;
  templates: ReportTemplate[];
  nextSeq: number;
}

function reportTemplate(hostname: string, seed: number): ReportTemplate {
  const report = realisticReport(0, 0, seed);
  report.host.hostname = hostname;
  const json = JSON.stringify({ reports: [report] });
  const at = json.indexOf(SEQ_TS_MARK);
  if (at < 0) throw new Error(`the report no longer begins with ${SEQ_TS_MARK}`);
  return { head: json.slice(0, at), tail: json.slice(at + SEQ_TS_MARK.length) };
}

/** The next report's JSON: the agent's next seq, stamped now. */
export function nextReportJson(agent: SimulatedAgent, nowMs: number): string {
  const seq = agent.nextSeq++;
  const template = agent.templates[seq % agent.templates.length]!;
  return `${template.head}"seq":${seq},"ts":${nowMs}${template.tail}`;
}

/** `count` hosts spread over four regions, each with a few report bodies of its own. */
export async function enrollAgents(db: Database, count: number): Promise<SimulatedAgent[]> {
  const keys = await Promise.all(REGIONS.map((region) => createEnrollmentKey(db, { name: `soak ${region}`, region, labels: { bench: 'soak' } })));
  const agents: SimulatedAgent[] = [];
  for (let i = 0; i < count; i++) {
    const hostname = `soak-${String(i).padStart(4, '0')}`;
    const enrolled = await enrollHost(db, keys[i % keys.length]!.key, { hostname, machineId: `soak-machine-${i}` });
    agents.push({
      hostId: enrolled.hostId,
      token: enrolled.token,
      templates: Array.from({ length: REPORT_VARIANTS }, (_, variant) => reportTemplate(hostname, i * REPORT_VARIANTS + variant + 1)),
      nextSeq: enrolled.nextSeq,
    });
  }
  return agents;
}

/** One viewer per dashboard user, each with an API token (the server needs one: local sign-in is off). */
export async function createViewerTokens(db: Database, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const view = await createUser(db, { email: `soak-viewer-${i}@example.com`, name: `soak viewer ${i}`, role: 'viewer' });
    const user = (await findUserById(db, view.id))!;
    tokens.push((await createApiToken(db, user, { name: 'soak dashboard' })).token);
  }
  return tokens;
}
