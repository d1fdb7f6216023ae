import type { ColourLevels } from '@/lib/protocol/read-api/fleet';
import type { LevelLine } from '../charts/time-chart-config';

/** A chart's warning and critical lines: the levels the server resolved for this host from the rule that judges the value. */
export function levelLines(
  levels: ColourLevels | undefined,
  source: { ruleId: string; where?: string },
  format: (value: number) => string,
): LevelLine[] {
  if (!levels) return [];
  const where = source.where ? `, on ${source.where}` : '';
  const lines: LevelLine[] = [];
  if (levels.warn !== null) lines.push({ value: levels.warn, tone: 'warn', text: `${source.ruleId} warns past ${format(levels.warn)} on this host${where}` });
  if (levels.crit !== null) lines.push({ value: levels.crit, tone: 'bad', text: `${source.ruleId} is critical past ${format(levels.crit)} on this host${where}` });
  return lines;
}
