import { CodeSpans } from '../code-spans';

/** The API page's body: operations grouped by tag, each with its access, parameters, body and answers. */
export interface ApiReferenceProps {
  groups: {
    tag: string;
    description: string;
    operations: {
      id: string;
      method: string;
      path: string;
      summary: string;
      auth: string[];
      parameters: { name: string; in: string; required: boolean; type: string; description: string | null }[];
      body: string | null;
      responses: { status: string; description: string; type: string | null }[];
    }[];
  }[];
}

type OperationView = ApiReferenceProps['groups'][number]['operations'][number];

function Operation({ op }: { op: OperationView }) {
  return (
    <article className="panel api-operation" id={op.id} aria-labelledby={`${op.id}-title`}>
      <h3 id={`${op.id}-title`} className="api-operation-title">
        <span className={`badge api-method api-method-${op.method.toLowerCase()}`}>{op.method}</span> <code>{op.path}</code>
      </h3>
      <p>
        <CodeSpans text={op.summary} />
      </p>
      <p className="muted">Authorization: {op.auth.length > 0 ? op.auth.map((a) => `Bearer ${a}`).join(' or ') : 'none'}</p>
      {op.parameters.length > 0 && (
        <div className="table-wrap">
          <table className="data">
            <caption className="visually-hidden">Parameters of {op.method} {op.path}</caption>
            <thead>
              <tr>
                <th scope="col">Parameter</th>
                <th scope="col">In</th>
                <th scope="col">Type</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {op.parameters.map((p) => (
                <tr key={`${p.in}-${p.name}`}>
                  <td>
                    <code>{p.name}</code>
                    {p.required && <span className="muted"> (required)</span>}
                  </td>
                  <td>{p.in}</td>
                  <td>
                    <code>{p.type}</code>
                  </td>
                  <td>{p.description && <CodeSpans text={p.description} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {op.body && (
        <p>
          Body (JSON): <code>{op.body}</code>
        </p>
      )}
      <div className="table-wrap">
        <table className="data">
          <caption className="visually-hidden">Answers of {op.method} {op.path}</caption>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Body</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {op.responses.map((r) => (
              <tr key={r.status}>
                <td className="num">{r.status}</td>
                <td>{r.type && <code>{r.type}</code>}</td>
                <td>
                  <CodeSpans text={r.description} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </article>
  );
}

export function ApiReference({ groups }: ApiReferenceProps) {
  return (
    <>
      <nav aria-label="API sections" className="chips">
        {groups.map((g) => (
          <a key={g.tag} href={`#tag-${g.tag}`} className="chip">
            {g.tag} ({g.operations.length})
          </a>
        ))}
      </nav>
      {groups.map((g) => (
        <section key={g.tag} id={`tag-${g.tag}`} aria-labelledby={`tag-${g.tag}-title`}>
          <h2 id={`tag-${g.tag}-title`}>{g.tag}</h2>
          <p className="muted">
            <CodeSpans text={g.description} />
          </p>
          {g.operations.map((op) => (
            <Operation key={op.id} op={op} />
          ))}
        </section>
      ))}
    </>
  );
}
