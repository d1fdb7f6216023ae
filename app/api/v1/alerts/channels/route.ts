import { createChannel, listChannels } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { channelInputSchema } from '@/lib/protocol/alerts';
import { processSecretBox } from '@/lib/server/process-secret-box';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Channels with their secrets shown as a prefix only. */
export const GET = route({ role: 'editor', handle: async () => ({ channels: await listChannels(await getDb()) }) });

/** Creates a webhook, Slack or Alertmanager channel. */
export const POST = route({
  role: 'editor',
  body: channelInputSchema,
  status: 201,
  handle: async ({ body }) => createChannel(await getDb(), processSecretBox(), body, serverEnvironment().alertTargets),
  audit: (_, channel) => ({ action: 'alert-channel.create', target: `alert channel ${channel.id} (${channel.name})` }),
});
