import { deleteChannel, getChannel, updateChannel } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { channelPatchSchema, idPathSchema } from '@/lib/protocol/alerts';
import { processSecretBox } from '@/lib/server/process-secret-box';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = route({
  role: 'editor',
  params: idPathSchema,
  handle: async ({ params }) => getChannel(await getDb(), params.id),
});

/** Changes name, url, secret, minSeverity, matchers or enabled. */
export const PATCH = route({
  role: 'editor',
  params: idPathSchema,
  body: channelPatchSchema,
  handle: async ({ params, body }) => updateChannel(await getDb(), processSecretBox(), params.id, body, serverEnvironment().alertTargets),
  audit: ({ params }) => ({ action: 'alert-channel.update', target: `alert channel ${params.id}` }),
});

/** Deletes the channel and its delivery log. */
export const DELETE = route({
  role: 'editor',
  params: idPathSchema,
  status: 204,
  handle: async ({ params }) => deleteChannel(await getDb(), params.id),
  audit: ({ params }) => ({ action: 'alert-channel.delete', target: `alert channel ${params.id}` }),
});
