import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { deleteChannel, getChannel, processSecretBox, updateChannel } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { channelPatchSchema, idPathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Context = { params: Promise<{ id: string }> };

export async function GET(request: Request, context: Context) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = idPathSchema.parse(await context.params);
    return Response.json(await getChannel(await getDb(), id), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Changes name, url, secret, minSeverity, matchers or enabled. Admin token. */
export async function PATCH(request: Request, context: Context) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = idPathSchema.parse(await context.params);
    const patch = channelPatchSchema.parse(await readJsonBody(request));
    return Response.json(await updateChannel(await getDb(), processSecretBox(), id, patch), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Deletes the channel and its delivery log. Admin token. */
export async function DELETE(request: Request, context: Context) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = idPathSchema.parse(await context.params);
    await deleteChannel(await getDb(), id);
    return new Response(null, { status: 204 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
