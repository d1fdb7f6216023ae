import type { Metadata } from 'next';
import { ApiReference } from '@/components/api-docs/api-reference';
import { apiReference } from '@/lib/openapi/reference';

export const metadata: Metadata = { title: 'API' };

export default function ApiPage() {
  const reference = apiReference();
  return (
    <>
      <div className="page-head">
        <h1>HTTP API</h1>
        <p className="muted">
          {reference.title} {reference.version}: every operation, from the OpenAPI 3.1 document at{' '}
          <a href="/api/openapi.json">/api/openapi.json</a>. Errors answer <code>{'{ "error": { "code", "message", "details"? } }'}</code>.
        </p>
      </div>
      <ApiReference groups={reference.groups} />
    </>
  );
}
