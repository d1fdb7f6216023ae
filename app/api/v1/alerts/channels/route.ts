import { audit, requireRole } from '@/lib/auth/principal';
import { createChannel, listChannels } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { channelInputSchema } from '@/lib/protocol/alerts';
import { processSecretBox } from '@/lib/server/process-secret-box';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Channels with their secrets shown as a prefix only. */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'editor');
    return Response.json({ channels: await listChannels(await getDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Creates a webhook, Slack or Alertmanager channel. */
export async function POST(request: Request) {
  try {
    const principal = await requireRole(request, 'editor');
    const input = channelInputSchema.parse(await readJsonBody(request));
    const result = await createChannel(await getDb(), processSecretBox(), input, serverEnvironment().alertTargets);
    await audit(request, principal, { action: 'alert-channel.create', target: `alert channel ${result.id} (${result.name})` });
    return Response.json(result, { status: 201, headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
