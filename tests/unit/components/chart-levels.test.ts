import { describe, expect, test } from 'vitest';
import { levelLines } from '../../../components/host/chart-levels';
import { HOST_CHARTS } from '../../../components/host/host-charts';
import { COLOUR_SOURCES } from '../../../lib/fleet/colour-levels';

const fmt = (v: number) => v.toFixed(1);

describe('levelLines', () => {
  test('a warning and a critical line at the host’s levels, saying which rule draws them', () => {
    expect(levelLines({ warn: 5, crit: 15 }, { ruleId: 'cpu.steal-high' }, fmt)).toEqual([
      { value: 5, tone: 'warn', text: 'cpu.steal-high warns past 5.0 on this host' },
      { value: 15, tone: 'bad', text: 'cpu.steal-high is critical past 15.0 on this host' },
    ]);
  });

  test('a rule that only warns draws one line; a disabled rule or a host not loaded yet, none', () => {
    expect(levelLines({ warn: 4, crit: null }, { ruleId: 'storage.disk-saturated', where: 'HDDs' }, fmt)).toEqual([
      { value: 4, tone: 'warn', text: 'storage.disk-saturated warns past 4.0 on this host, on HDDs' },
    ]);
    expect(levelLines({ warn: null, crit: null }, { ruleId: 'storage.disk-saturated' }, fmt)).toEqual([]);
    expect(levelLines(undefined, { ruleId: 'storage.disk-saturated' }, fmt)).toEqual([]);
  });

  test('a chart names the rule its levels come from, as the server resolves them', () => {
    const charted = HOST_CHARTS.flatMap((chart) => ('levels' in chart && chart.levels ? [chart.levels] : []));
    expect(charted.length).toBeGreaterThan(0);
    for (const levels of charted) expect(COLOUR_SOURCES[levels.of].rule.id).toBe(levels.ruleId);
  });
});
