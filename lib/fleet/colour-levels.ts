import { stealHigh } from '../findings/rules/cpu.steal-high';
import { diskSaturated } from '../findings/rules/storage.disk-saturated';
import { iowaitHigh } from '../findings/rules/storage.iowait-high';
import { thresholdResolver } from '../findings/thresholds';
import type { HostRule, ThresholdSpecs } from '../findings/types';
import type { ThresholdOverride } from '../protocol/findings';
import type { ColourLevels, HostColourLevels } from '../protocol/read-api/fleet';

interface ColourSource<D extends ThresholdSpecs = ThresholdSpecs> {
  rule: HostRule<D>;
  warn: keyof D & string;
  /** Null for a rule that only ever warns. */
  crit: (keyof D & string) | null;
}

const source = <D extends ThresholdSpecs>(s: ColourSource<D>): ColourSource => s as unknown as ColourSource;

/** Each coloured value and the rule (and its thresholds) that opens a finding about it. */
export const COLOUR_SOURCES: Record<keyof HostColourLevels, ColourSource> = {
  stealPct: source({ rule: stealHigh, warn: 'warningPct', crit: 'criticalPct' }),
  iowaitPct: source({ rule: iowaitHigh, warn: 'warningPct', crit: 'criticalPct' }),
  diskQueueDepth: source({ rule: diskSaturated, warn: 'queueDepth', crit: null }),
};

const OFF: ColourLevels = { warn: null, crit: null };

export interface ColourTarget {
  hostId: number;
  region: string;
  labels: Record<string, string>;
}

/**
 * The colour levels of many hosts from one list of overrides: each rule's defaults, replaced by the overrides
 * that apply to the host exactly as the findings engine resolves them; a rule disabled for the host colours nothing.
 */
export function colourLevelsResolver(overrides: readonly ThresholdOverride[]): (target: ColourTarget) => HostColourLevels {
  const entries = Object.entries(COLOUR_SOURCES).map(([name, s]) => ({ name, s, resolve: thresholdResolver(s.rule, overrides) }));
  return (target) => {
    const levels = {} as Record<string, ColourLevels>;
    for (const { name, s, resolve } of entries) {
      const { values, disabled } = resolve(target);
      levels[name] = disabled ? OFF : { warn: values[s.warn] ?? null, crit: s.crit === null ? null : (values[s.crit] ?? null) };
    }
    return levels as unknown as HostColourLevels;
  };
}
