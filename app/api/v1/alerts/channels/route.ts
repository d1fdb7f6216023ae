import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { createChannel, listChannels, processSecretBox } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { channelInputSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Channels with their secrets shown as a prefix only. Admin token. */
export async function GET(request: Request) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    return Response.json({ channels: await listChannels(await getDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Creates a webhook, Slack or Alertmanager channel. Admin token. */
export async function POST(request: Request) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const input = channelInputSchema.parse(await readJsonBody(request));
    return Response.json(await createChannel(await getDb(), processSecretBox(), input), { status: 201, headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
