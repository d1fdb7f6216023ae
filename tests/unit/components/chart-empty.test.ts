import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import { chartEmptiness } from '../../../components/host/chart-empty';
import { HOST_CHARTS } from '../../../components/host/host-charts';
import { NoReportsInRange } from '../../../components/host/no-reports';
import type { HostSeriesResponse } from '../../../lib/protocol/read-api/series';

const T0 = Date.parse('2026-12-05T09:00:00.000Z');

function reports(series: HostSeriesResponse['series']): HostSeriesResponse {
  return { hostId: 1, metric: 'cpu_user', unit: '%', from: '2026-12-05T09:00:00.000Z', to: '2026-12-05T10:00:00.000Z', resolution: 'raw', bucketMs: 10_000, series };
}

describe('chartEmptiness', () => {
  test('no report in the range: no data in this range, with the newest report’s time', () => {
    expect(chartEmptiness({ data: reports([]), isPlaceholderData: false }, '2026-12-05T08:58:30.000Z')).toEqual({
      kind: 'no-reports',
      lastReportAt: '2026-12-05T08:58:30.000Z',
    });
  });

  test('reports in the range (even without CPU times): the chart’s own reason, not “no data”', () => {
    const withCpu = reports([{ key: null, points: [{ t: T0, avg: 12, max: 14 }] }]);
    const withoutCpu = reports([{ key: null, points: [{ t: T0, avg: null, max: null }] }]);
    expect(chartEmptiness({ data: withCpu, isPlaceholderData: false }, '2026-12-05T09:30:00.000Z')).toEqual({ kind: 'not-in-reports' });
    expect(chartEmptiness({ data: withoutCpu, isPlaceholderData: false }, '2026-12-05T09:30:00.000Z')).toEqual({ kind: 'not-in-reports' });
  });

  test('until the range’s own answer comes (none yet, or the previous range’s kept on screen), it does not say', () => {
    expect(chartEmptiness({ data: undefined, isPlaceholderData: false }, null)).toEqual({ kind: 'checking' });
    expect(chartEmptiness({ data: reports([]), isPlaceholderData: true }, null)).toEqual({ kind: 'checking' });
  });

  test('the PSI chart blames the kernel only for reports without PSI, never for a range without reports', () => {
    const pressure = HOST_CHARTS.find((c) => c.id === 'pressure')!;
    expect(pressure.empty).toMatch(/^Its reports in this range carry no pressure stall information/);
  });
});

describe('NoReportsInRange', () => {
  const render = (lastReportAt: string | null) =>
    renderToStaticMarkup(createElement(NoReportsInRange, { lastReportAt }));

  test('says there is no data in the range and when the newest report was', () => {
    const html = render('2026-12-05T08:58:30.000Z');
    expect(html).toContain('No data in this range');
    expect(html).toContain('dateTime="2026-12-05T08:58:30.000Z"');
    expect(html).not.toContain('PSI');
  });

  test('a host that never reported says so', () => {
    expect(render(null)).toBe('No data: this host has not sent a report yet.');
  });
});
