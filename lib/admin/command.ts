import { parseArgs, type ParseArgsConfig } from 'node:util';
import { userInputSchema } from '../protocol/auth';
import type { Role } from '../protocol/roles';
import { enrollmentKeyIdSchema, enrollmentKeyInputSchema, parseDurationMs, type EnrollmentKeyRequest } from '../auth/enrollment-key-input';

export const ADMIN_USAGE = `usage:
  npm run admin -- keys create --name NAME --region REGION [--label k=v ...] [--expires 30d] [--max-hosts N]
  npm run admin -- keys list
  npm run admin -- keys revoke ID
  npm run admin -- hosts revoke-token HOST_ID
  npm run admin -- hosts approve-reenroll HOST_ID
  npm run admin -- users create --email EMAIL --role viewer|editor|admin [--name NAME]
  npm run admin -- users list`;

export type AdminCommand =
  | { command: 'help' }
  | { command: 'keys create'; input: EnrollmentKeyRequest }
  | { command: 'keys list' }
  | { command: 'keys revoke'; keyId: number }
  | { command: 'hosts revoke-token'; hostId: number }
  | { command: 'hosts approve-reenroll'; hostId: number }
  | { command: 'users create'; email: string; role: Role; name: string }
  | { command: 'users list' };

/** A command line the CLI refuses before touching the database (exit 2, with the usage). */
export class UsageError extends Error {}

const help = { help: { type: 'boolean', short: 'h' } } as const;

function strictArgs<O extends ParseArgsConfig['options']>(args: string[], options: O, positionals: number) {
  try {
    const parsed = parseArgs({ args, options: { ...options, ...help }, strict: true, allowPositionals: positionals > 0 });
    if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument '${parsed.positionals[positionals]}'`);
    return parsed;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message);
  }
}

export function parseLabels(values: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid --label "${value}": use key=value`);
    labels[value.slice(0, eq)] = value.slice(eq + 1);
  }
  return labels;
}

function id(text: string | undefined, what: string): number {
  if (text === undefined) throw new UsageError(`${what} is missing`);
  const parsed = enrollmentKeyIdSchema.safeParse(text);
  if (!parsed.success) throw new UsageError(`${what} must be a positive whole number, not "${text}"`);
  return parsed.data;
}

/** `argv` is what follows `npm run admin --`; `nowMs` dates `--expires`. */
export function parseAdminCommand(argv: readonly string[], nowMs = Date.now()): AdminCommand {
  const [area, verb, ...rest] = argv;
  if (area === undefined || area === '--help' || area === '-h') return { command: 'help' };
  const command = `${area} ${verb ?? ''}`;
  switch (command) {
    case 'keys create': {
      const { values } = strictArgs(rest, { name: { type: 'string' }, region: { type: 'string' }, label: { type: 'string', multiple: true }, expires: { type: 'string' }, 'max-hosts': { type: 'string' } }, 0);
      if (values.help) return { command: 'help' };
      if (values.name === undefined) throw new UsageError('--name is required');
      if (values.region === undefined) throw new UsageError('--region is required');
      let expiresAt: Date | null = null;
      if (values.expires !== undefined) {
        try {
          expiresAt = new Date(nowMs + parseDurationMs(values.expires));
        } catch (err) {
          throw new UsageError(`--expires: ${(err as Error).message}`);
        }
      }
      const maxHosts = values['max-hosts'] === undefined ? null : Number(values['max-hosts']);
      const input = enrollmentKeyInputSchema.safeParse({ name: values.name, region: values.region, labels: parseLabels(values.label ?? []), expiresAt, maxHosts });
      if (!input.success) {
        const first = input.error.issues[0]!;
        const flag = { labels: 'label', maxHosts: 'max-hosts' }[String(first.path[0])] ?? String(first.path[0]);
        throw new UsageError(`--${flag}: ${first.message}`);
      }
      return { command, input: input.data };
    }
    case 'keys list': {
      const { values } = strictArgs(rest, {}, 0);
      return values.help ? { command: 'help' } : { command };
    }
    case 'keys revoke': {
      const { values, positionals } = strictArgs(rest, {}, 1);
      return values.help ? { command: 'help' } : { command, keyId: id(positionals[0], 'the enrollment key ID') };
    }
    case 'hosts revoke-token':
    case 'hosts approve-reenroll': {
      const { values, positionals } = strictArgs(rest, {}, 1);
      return values.help ? { command: 'help' } : { command, hostId: id(positionals[0], 'HOST_ID') };
    }
    case 'users create': {
      const { values } = strictArgs(rest, { email: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' } }, 0);
      if (values.help) return { command: 'help' };
      const input = userInputSchema.safeParse({ email: values.email, role: values.role, name: values.name ?? '' });
      if (!input.success) {
        const first = input.error.issues[0]!;
        throw new UsageError(`--${String(first.path[0])}: ${first.message}`);
      }
      return { command, email: input.data.email, role: input.data.role, name: input.data.name };
    }
    case 'users list': {
      const { values } = strictArgs(rest, {}, 0);
      return values.help ? { command: 'help' } : { command };
    }
    default:
      throw new UsageError(`unknown command "${argv.slice(0, 2).join(' ')}"`);
  }
}
