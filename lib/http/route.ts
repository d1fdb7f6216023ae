import type { z } from 'zod';
import { audit as recordAudit, requireRole, type Principal } from '../auth/principal';
import type { AuditEvent } from '../auth/audit';
import { toErrorResponse } from '../errors';
import type { Role } from '../protocol/roles';
import { searchParamsObject } from '../protocol/read-api/params';
import { readJsonBody } from './json-body';
import { noStore } from './no-store';

/** What Next hands a route handler beside the request: the dynamic segments of its path. */
interface RouteContext {
  params: Promise<Record<string, string>>;
}

/** Next's build checks a handler's second parameter: present (not optional) on a path with segments, absent elsewhere. */
type Handler<P> = P extends Schema ? (request: Request, context: RouteContext) => Promise<Response> : (request: Request) => Promise<Response>;

type Schema = z.ZodType;
type Parsed<S> = S extends Schema ? z.output<S> : undefined;

export interface RouteInput<R extends Role | undefined, P, Q, B> {
  request: Request;
  principal: R extends Role ? Principal : undefined;
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

/** Without a response schema a handler may answer any JSON value, or build its own Response (text, a redirect, cookies). */
type Answer<A> = A extends Schema ? z.input<A> : unknown;

/** What a route declares: who may call it, what it parses, what it does, what it answers and what it records. */
interface RouteOptions<R extends Role | undefined, P, Q, B, A, T> {
  /** The least role the caller needs (401 for nobody, 403 for less); without it the route is public or checks itself. */
  role?: R;
  /** The path's dynamic segments. */
  params?: P;
  /** The query string, as an object of each key's first value. */
  query?: Q;
  /** The JSON body; read only once the role is checked, refused past `bodyMaxBytes` (256 KiB by default). */
  body?: B;
  bodyMaxBytes?: number;
  /** The answer's schema (lib/protocol): the handler must return its input shape. Typed, not checked at run time. */
  response?: A;
  /** 201 for a creation; 204 answers no body (the handler's result still reaches `audit`). */
  status?: 200 | 201 | 204;
  handle: (input: RouteInput<R, P, Q, B>) => Promise<T> | T;
  /** The audit row of a write that succeeded, from what was asked and what `handle` answered; needs a `role`. */
  audit?: (input: RouteInput<R, P, Q, B>, result: T) => AuditEvent;
}

/**
 * One route handler from its declaration: role → path params → query → body → `handle` → the audit row → the answer.
 * A thrown error becomes the one error envelope (lib/errors). Every answer carries `Cache-Control: no-store` unless the
 * handler built a Response with a cache policy of its own (a public download).
 */
export function route<
  R extends Role | undefined = undefined,
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  A extends Schema | undefined = undefined,
  T extends Answer<A> = Answer<A>,
>(options: RouteOptions<R, P, Q, B, A, T>): Handler<P> {
  if (options.audit && options.role === undefined) throw new Error('a route that records an audit row needs a role: nobody would be recorded');
  const handler = async (request: Request, context?: RouteContext): Promise<Response> => {
    try {
      const principal = options.role === undefined ? undefined : await requireRole(request, options.role);
      const input = {
        request,
        principal,
        params: options.params?.parse(await context?.params),
        query: options.query?.parse(searchParamsObject(new URL(request.url).searchParams)),
        body: options.body?.parse(await readJsonBody(request, options.bodyMaxBytes)),
      } as RouteInput<R, P, Q, B>;
      const result = await options.handle(input);
      if (options.audit && principal) await recordAudit(request, principal, options.audit(input, result));
      return noStore(answer(result, options.status ?? 200));
    } catch (err) {
      return noStore(toErrorResponse(err));
    }
  };
  return handler as Handler<P>;
}

function answer(result: unknown, status: 200 | 201 | 204): Response {
  if (result instanceof Response) return result;
  return status === 204 ? new Response(null, { status }) : Response.json(result, { status });
}
