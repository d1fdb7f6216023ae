import { getDb } from '@/lib/db';
import { deleteThresholdOverride } from '@/lib/findings/store/threshold-overrides';
import { route } from '@/lib/http/route';
import { findingPathSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export const DELETE = route({
  role: 'editor',
  params: findingPathSchema,
  status: 204,
  handle: async ({ params }) => deleteThresholdOverride(await getDb(), params.id),
  audit: ({ params }) => ({ action: 'threshold-override.delete', target: `threshold override ${params.id}` }),
});
