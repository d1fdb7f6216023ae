import { z } from 'zod';
import { isUniqueViolation } from '../../db/errors';
import type { Database } from '../../db/open';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { ConflictError, InvalidPayloadError, NotFoundError } from '../../errors';
import { CHANNEL_KINDS, storedLabelMatcherSchema, type Channel, type ChannelInput, type ChannelKind, type ChannelPatch, type LabelMatcher } from '../../protocol/alerts';
import { withArticle } from '../../protocol/article';
import { SEVERITIES, type Severity } from '../../protocol/findings';
import { secretPrefix, type SecretBox } from './secret-box';
import { PUBLIC_TARGETS_ONLY, refusedUrl, type TargetPolicy } from './target-policy';

const channelRow = z.object({
  id: column.id,
  name: z.string(),
  kind: z.enum(CHANNEL_KINDS),
  url: z.string().nullable(),
  secret_ciphertext: z.string().nullable(),
  secret_prefix: z.string().nullable(),
  min_severity: z.enum(SEVERITIES),
  matchers: z.array(storedLabelMatcherSchema),
  enabled: z.boolean(),
  deliveries_total: column.int8,
  failures_total: column.int8,
  created_at: column.timestamp,
  updated_at: column.timestamp,
});
type ChannelRow = z.output<typeof channelRow>;

/** A channel as the delivery worker needs it, secret opened. Never leaves the server. */
export interface DeliverableChannel {
  id: number;
  name: string;
  kind: ChannelKind;
  url: string;
  secret: string | null;
  minSeverity: Severity;
  matchers: LabelMatcher[];
  updatedAtMs: number;
}

const toChannel = (r: ChannelRow): Channel => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  url: r.kind === 'slack' ? null : r.url,
  secretPrefix: r.secret_prefix,
  minSeverity: r.min_severity,
  matchers: r.matchers,
  enabled: r.enabled,
  deliveriesTotal: r.deliveries_total,
  failuresTotal: r.failures_total,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

function secretOf(input: ChannelInput): { url: string; secret: string | null } {
  switch (input.kind) {
    case 'webhook':
      return { url: input.url, secret: input.secret };
    case 'slack':
      return { url: input.webhookUrl, secret: input.webhookUrl };
    case 'alertmanager':
      return { url: input.url, secret: input.bearerToken ?? null };
  }
}

/** A URL whose host is a refused address (a literal IP, localhost) is a 400 naming `path`; names are checked at send. */
function checkTarget(url: string, path: string, targets: TargetPolicy): void {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new InvalidPayloadError('a channel sends to an http:// or https:// URL', [{ path, message: 'not an http(s) URL' }]);
  }
  const refused = refusedUrl(url, targets);
  if (refused !== null) {
    throw new InvalidPayloadError(`alert channels may not send to ${refused} (INFERWATCH_ALERT_ALLOW_PRIVATE or INFERWATCH_ALERT_ALLOWED_NETWORKS allow it)`, [
      { path, message: 'a non-public address' },
    ]);
  }
}

export async function listChannels(db: Pick<Database, 'sql'>): Promise<Channel[]> {
  const rows = await queryRows(db.sql, 'alert_channels', channelRow, 'SELECT * FROM alert_channels ORDER BY id');
  return rows.map(toChannel);
}

export async function getChannel(db: Pick<Database, 'sql'>, id: number): Promise<Channel> {
  const [row] = await queryRows(db.sql, 'alert_channels', channelRow, 'SELECT * FROM alert_channels WHERE id = $1', [id]);
  if (!row) throw new NotFoundError(`channel ${id} not found`);
  return toChannel(row);
}

/** Creates a channel; its secret is stored sealed and shown only as a prefix from then on. */
export async function createChannel(db: Pick<Database, 'sql'>, box: SecretBox, input: ChannelInput, targets: TargetPolicy = PUBLIC_TARGETS_ONLY): Promise<Channel> {
  const { url, secret } = secretOf(input);
  checkTarget(url, input.kind === 'slack' ? 'webhookUrl' : 'url', targets);
  try {
    const [row] = await queryRows(
      db.sql,
      'alert_channels',
      channelRow,
      `INSERT INTO alert_channels (name, kind, url, secret_ciphertext, secret_prefix, min_severity, matchers, enabled)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) RETURNING *`,
      [
        input.name,
        input.kind,
        // A Slack URL is the secret itself: only its sealed form is stored.
        input.kind === 'slack' ? null : url,
        secret === null ? null : box.seal(secret),
        secret === null ? null : secretPrefix(secret),
        input.minSeverity,
        JSON.stringify(input.matchers),
        input.enabled,
      ],
    );
    return toChannel(row!);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`a channel named ${input.name} exists`);
    throw err;
  }
}

export async function updateChannel(
  db: Pick<Database, 'sql'>,
  box: SecretBox,
  id: number,
  patch: ChannelPatch,
  targets: TargetPolicy = PUBLIC_TARGETS_ONLY,
): Promise<Channel> {
  const [current] = await queryRows(db.sql, 'alert_channels', channelRow, 'SELECT * FROM alert_channels WHERE id = $1', [id]);
  if (!current) throw new NotFoundError(`channel ${id} not found`);
  if (current.kind === 'slack' && patch.url !== undefined) {
    throw new InvalidPayloadError('a Slack channel has no separate URL: its webhook URL is the secret', [{ path: 'url', message: 'set secret instead' }]);
  }
  if (current.kind !== 'alertmanager' && patch.secret === null) {
    throw new InvalidPayloadError(`${withArticle(current.kind)} channel needs its secret`, [{ path: 'secret', message: 'cannot be removed' }]);
  }
  if (current.kind === 'webhook' && typeof patch.secret === 'string' && patch.secret.length < 16) {
    throw new InvalidPayloadError('a webhook signing secret needs at least 16 characters', [{ path: 'secret', message: 'too short' }]);
  }
  // A secret (signing key, bearer token) belongs to the receiver it was given for: sending it to a new URL needs the
  // editor to give it again, so a changed URL cannot carry the old secret off to a receiver of someone else's choosing.
  if (patch.url !== undefined && patch.url !== current.url && current.secret_ciphertext !== null && patch.secret === undefined) {
    throw new InvalidPayloadError(`changing ${withArticle(current.kind)} channel's URL needs its secret again`, [
      { path: 'secret', message: 'required with a new url (or null to remove it, Alertmanager only)' },
    ]);
  }
  if (patch.url !== undefined) checkTarget(patch.url, 'url', targets);
  // A Slack channel's secret is its URL.
  if (current.kind === 'slack' && typeof patch.secret === 'string') checkTarget(patch.secret, 'secret', targets);
  const secretChanged = patch.secret !== undefined;
  try {
    const [row] = await queryRows(
      db.sql,
      'alert_channels',
      channelRow,
      `UPDATE alert_channels SET
         name = COALESCE($2, name), url = COALESCE($3, url), min_severity = COALESCE($4, min_severity),
         matchers = COALESCE($5::jsonb, matchers), enabled = COALESCE($6, enabled),
         secret_ciphertext = CASE WHEN $7 THEN $8 ELSE secret_ciphertext END,
         secret_prefix = CASE WHEN $7 THEN $9 ELSE secret_prefix END,
         updated_at = now()
       WHERE id = $1 RETURNING *`,
      [
        id,
        patch.name ?? null,
        patch.url ?? null,
        patch.minSeverity ?? null,
        patch.matchers ? JSON.stringify(patch.matchers) : null,
        patch.enabled ?? null,
        secretChanged,
        typeof patch.secret === 'string' ? box.seal(patch.secret) : null,
        typeof patch.secret === 'string' ? secretPrefix(patch.secret) : null,
      ],
    );
    return toChannel(row!);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`a channel named ${patch.name} exists`);
    throw err;
  }
}

/** Deletes the channel and its delivery log. */
export async function deleteChannel(db: Pick<Database, 'sql'>, id: number): Promise<void> {
  const rows = await db.sql.query('DELETE FROM alert_channels WHERE id = $1 RETURNING id', [id]);
  if (rows.length === 0) throw new NotFoundError(`channel ${id} not found`);
}

/** The enabled Alertmanager channels, which are sent the full set of firing alerts now and then. */
export async function readEnabledAlertmanagerIds(sql: Pick<Sql, 'query'>): Promise<number[]> {
  const rows = await queryRows(sql, 'alert_channels', idRow, `SELECT id FROM alert_channels WHERE enabled AND kind = 'alertmanager'`);
  return rows.map((r) => r.id);
}

/** Counts one delivery's outcome on its channel, in the transaction that records the delivery. */
export async function countDeliveryOutcome(tx: Pick<Sql, 'query'>, channelId: number, outcome: 'delivered' | 'failed'): Promise<void> {
  const counter = outcome === 'delivered' ? 'deliveries_total' : 'failures_total';
  await tx.query(`UPDATE alert_channels SET ${counter} = ${counter} + 1 WHERE id = $1`, [channelId]);
}

const idRow = z.object({ id: column.id });

const countersRow = z.object({ name: z.string(), kind: z.string(), failures: column.int8, deliveries: column.int8 });

/** Every channel's delivery counters, for /metrics. */
export function readChannelCounters(sql: Pick<Sql, 'query'>) {
  return queryRows(sql, 'alert_channels', countersRow, 'SELECT name, kind, failures_total AS failures, deliveries_total AS deliveries FROM alert_channels ORDER BY name');
}

/** Enabled channels with their secrets opened, for the worker and the engine's routing. */
export async function readDeliverableChannels(sql: Sql, box: SecretBox | null): Promise<DeliverableChannel[]> {
  const rows = await queryRows(sql, 'alert_channels', channelRow, 'SELECT * FROM alert_channels WHERE enabled ORDER BY id');
  return rows.map((r) => {
    const secret = r.secret_ciphertext && box ? box.open(r.secret_ciphertext) : null;
    return toDeliverable(r, secret);
  });
}

function toDeliverable(r: ChannelRow, secret: string | null): DeliverableChannel {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    url: r.kind === 'slack' ? (secret ?? '') : (r.url ?? ''),
    secret,
    minSeverity: r.min_severity,
    matchers: r.matchers,
    updatedAtMs: r.updated_at.getTime(),
  };
}
