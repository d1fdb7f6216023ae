import { audit, requireRole } from '@/lib/auth/principal';
import { deleteChannel, getChannel, updateChannel } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { channelPatchSchema, idPathSchema } from '@/lib/protocol/alerts';
import { processSecretBox } from '@/lib/server/process-secret-box';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Context = { params: Promise<{ id: string }> };

export async function GET(request: Request, context: Context) {
  try {
    await requireRole(request, 'editor');
    const { id } = idPathSchema.parse(await context.params);
    return Response.json(await getChannel(await getDb(), id), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Changes name, url, secret, minSeverity, matchers or enabled. */
export async function PATCH(request: Request, context: Context) {
  try {
    const principal = await requireRole(request, 'editor');
    const { id } = idPathSchema.parse(await context.params);
    const patch = channelPatchSchema.parse(await readJsonBody(request));
    const result = await updateChannel(await getDb(), processSecretBox(), id, patch, serverEnvironment().alertTargets);
    await audit(request, principal, { action: 'alert-channel.update', target: `alert channel ${id}` });
    return Response.json(result, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Deletes the channel and its delivery log. */
export async function DELETE(request: Request, context: Context) {
  try {
    const principal = await requireRole(request, 'editor');
    const { id } = idPathSchema.parse(await context.params);
    await deleteChannel(await getDb(), id);
    await audit(request, principal, { action: 'alert-channel.delete', target: `alert channel ${id}` });
    return new Response(null, { status: 204 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
