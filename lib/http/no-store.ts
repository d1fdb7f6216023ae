/** What the API, its errors, ingest and the sign-in redirects answer with: per caller, changing, never to be cached. */
export const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/** Marks an answer uncacheable unless it carries a cache policy of its own (a public download). */
export function noStore(response: Response): Response {
  if (!response.headers.has('Cache-Control')) response.headers.set('Cache-Control', NO_STORE['Cache-Control']);
  return response;
}
