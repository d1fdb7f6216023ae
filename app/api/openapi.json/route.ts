import { route } from '@/lib/http/route';
import { openApiDocument } from '@/lib/openapi/document';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The OpenAPI 3.1 document of every route, generated from the zod schemas the routes parse with. Public: it holds no data. */
export const GET = route({ handle: () => openApiDocument() });
