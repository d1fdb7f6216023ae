import { describe, expect, test } from 'vitest';
import { sparklineGeometry } from '../../../components/charts/sparkline-geometry';

const box = { width: 100, height: 12, fromMs: 0, toMs: 100 };

describe('sparkline geometry', () => {
  test('points map onto the box: time across, value up from the bottom', () => {
    const g = sparklineGeometry([{ t: 0, v: 0 }, { t: 50, v: 10 }, { t: 100, v: 5 }], box);
    expect(g.path).toBe('M0.0,11.0L50.0,1.0L100.0,6.0');
    expect(g).toMatchObject({ last: 5, max: 10, lastPoint: { x: 100, y: 6 } });
  });

  test('a minute without a value breaks the line rather than bridging it', () => {
    const g = sparklineGeometry([{ t: 0, v: 1 }, { t: 10, v: null }, { t: 20, v: 1 }, { t: 30, v: 1 }], box);
    expect(g.path.match(/M/g)).toHaveLength(2);
  });

  test('a single minute is one point, still marked', () => {
    expect(sparklineGeometry([{ t: 50, v: 2 }], box)).toMatchObject({ path: 'M50.0,1.0', lastPoint: { x: 50, y: 1 } });
  });

  test('the scale floor keeps a small flat value low; unsorted input is drawn in time order', () => {
    const g = sparklineGeometry([{ t: 100, v: 0.5 }, { t: 0, v: 0.5 }], { ...box, minMax: 5 });
    expect(g.path).toBe('M0.0,10.0L100.0,10.0');
    expect(g.last).toBe(0.5);
  });

  test('no values, no path', () => {
    expect(sparklineGeometry([{ t: 0, v: null }], box)).toEqual({ path: '', last: null, max: null, lastPoint: null });
    expect(sparklineGeometry([], box).path).toBe('');
  });
});
