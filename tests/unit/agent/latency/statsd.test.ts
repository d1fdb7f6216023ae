import { describe, expect, test } from 'vitest';
import { parseStatsdPacket } from '../../../../agent/latency/statsd';

describe('parseStatsdPacket with packets as real clients send them', () => {
  test('python statsd: timing() sends six decimals, a pipeline joins lines with newlines, sampling adds |@rate', () => {
    const packet = 'inference.predict:12.500000|ms\ninference.predict:7.250000|ms|@0.5\ninference.requests:1|c';
    expect(parseStatsdPacket(packet)).toEqual({
      metrics: [
        { name: 'inference.predict', valueMs: 12.5, sampleRate: 1, tags: {} },
        { name: 'inference.predict', valueMs: 7.25, sampleRate: 0.5, tags: {} },
      ],
      malformed: 0,
    });
  });

  test('hot-shots / DogStatsD: timing, histogram and distribution with sample rate and tags', () => {
    const packet = [
      'predict.latency:100|ms|#route:/predict,model:resnet',
      'predict.latency:42|h|@0.25|#route:/predict',
      'predict.latency:9.5|d|#canary',
    ].join('\n');
    expect(parseStatsdPacket(packet).metrics).toEqual([
      { name: 'predict.latency', valueMs: 100, sampleRate: 1, tags: { route: '/predict', model: 'resnet' } },
      { name: 'predict.latency', valueMs: 42, sampleRate: 0.25, tags: { route: '/predict' } },
      { name: 'predict.latency', valueMs: 9.5, sampleRate: 1, tags: { canary: '' } },
    ]);
  });

  test('DogStatsD 1.1 multi-value, 1.2 container id and 1.3 timestamp fields', () => {
    const { metrics, malformed } = parseStatsdPacket('rt:1:2.5:3|d|@0.5|#env:prod|c:83c0a99c0a54c0c1|T1656581400');
    expect(malformed).toBe(0);
    expect(metrics.map((m) => m.valueMs)).toEqual([1, 2.5, 3]);
    expect(metrics.every((m) => m.sampleRate === 0.5 && m.tags.env === 'prod')).toBe(true);
  });

  test('Etsy StatsD packs several samples of one name on a line as name:1|ms:2|ms', () => {
    expect(parseStatsdPacket('glork:320|ms:330|ms|@0.1').metrics).toEqual([
      { name: 'glork', valueMs: 320, sampleRate: 1, tags: {} },
      { name: 'glork', valueMs: 330, sampleRate: 0.1, tags: {} },
    ]);
  });

  test("Telegraf's statsd input examples: only the timings and histograms are kept, nothing is malformed", () => {
    const packet = [
      'deploys.test.myservice:1|c',
      'deploys.test.myservice:101|c|@0.1',
      'users.current.den001.myapp:32|g',
      'users.current.den001.myapp:+10|g',
      'users.current.den001.myapp:-10|g',
      'users.unique:101|s',
      'load.time:320|ms',
      'load.time.nanoseconds:1|h',
      'load.time:200|ms|@0.1',
    ].join('\n');
    const { metrics, malformed } = parseStatsdPacket(packet);
    expect(malformed).toBe(0);
    expect(metrics.map((m) => [m.name, m.valueMs, m.sampleRate])).toEqual([
      ['load.time', 320, 1],
      ['load.time.nanoseconds', 1, 1],
      ['load.time', 200, 0.1],
    ]);
  });

  test('tag values keep their colons, CRLF line ends and blank lines are tolerated', () => {
    const { metrics, malformed } = parseStatsdPacket('a:1|ms|#url:http://x:8080/p\r\n\r\n\nb:2|ms\r\n');
    expect(malformed).toBe(0);
    expect(metrics[0]!.tags).toEqual({ url: 'http://x:8080/p' });
    expect(metrics[1]).toEqual({ name: 'b', valueMs: 2, sampleRate: 1, tags: {} });
  });

  test('DogStatsD events and service checks are valid packets that carry no latency', () => {
    expect(parseStatsdPacket('_e{5,4}:title|text|#a:b\n_sc|redis.can_connect|0|#env:dev')).toEqual({ metrics: [], malformed: 0 });
  });

  test('a tag named __proto__ stays an ordinary tag', () => {
    const [metric] = parseStatsdPacket('a:1|ms|#__proto__:x').metrics;
    expect(Object.getPrototypeOf(metric!.tags)).toBe(Object.prototype);
    expect(Object.keys(metric!.tags)).toEqual(['__proto__']);
  });
});

describe('parseStatsdPacket counts malformed lines and keeps the good ones', () => {
  const bad: Array<[string, string]> = [
    ['no colon', 'predict.latency 12|ms'],
    ['empty name', ':12|ms'],
    ['no type', 'predict:12'],
    ['unknown type', 'predict:12|xx'],
    ['empty value', 'predict:|ms'],
    ['non-numeric value', 'predict:abc|ms'],
    ['NaN', 'predict:NaN|ms'],
    ['Infinity', 'predict:Infinity|ms'],
    ['hex value', 'predict:0x10|ms'],
    ['negative value', 'predict:-5|ms'],
    ['sample rate 0', 'predict:5|ms|@0'],
    ['sample rate above 1', 'predict:5|ms|@1.5'],
    ['non-numeric sample rate', 'predict:5|ms|@often'],
    ['name longer than 200 characters', `${'n'.repeat(201)}:5|ms`],
    ['17 tags', `predict:5|ms|#${Array.from({ length: 17 }, (_, i) => `t${i}:v`).join(',')}`],
    ['tag with empty key', 'predict:5|ms|#:v'],
    ['one bad value among several', 'predict:1:x:3|d'],
    ['one bad sample in the Etsy form', 'predict:1|ms:2|zz'],
  ];

  test.each(bad)('%s is malformed', (_, line) => {
    expect(parseStatsdPacket(`ok:1|ms\n${line}\nok:2|ms`)).toEqual({
      metrics: [
        { name: 'ok', valueMs: 1, sampleRate: 1, tags: {} },
        { name: 'ok', valueMs: 2, sampleRate: 1, tags: {} },
      ],
      malformed: 1,
    });
  });

  test('names of exactly 200 characters and exactly 16 tags are accepted', () => {
    const tags = Array.from({ length: 16 }, (_, i) => `t${i}:v`).join(',');
    expect(parseStatsdPacket(`${'n'.repeat(200)}:5|ms|#${tags}`).malformed).toBe(0);
  });

  test('random bytes never throw', () => {
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      const chars = Array.from({ length: (i % 64) + 1 }, () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return '0123456789:|@#,.\n-abcms'[seed % 24];
      });
      expect(() => parseStatsdPacket(chars.join(''))).not.toThrow();
    }
  });
});

describe('parseStatsdPacket on repeated tag sets', () => {
  test('a repeated tag set parses to equal tags, and a repeated bad one is refused every time', () => {
    const good = 'req:1|ms|#route:/predict,model:bert';
    expect(parseStatsdPacket(good).metrics[0]!.tags).toEqual({ route: '/predict', model: 'bert' });
    expect(parseStatsdPacket(good).metrics[0]!.tags).toEqual({ route: '/predict', model: 'bert' });
    const bad = `req:1|ms|#${'k'.repeat(101)}:v`;
    expect(parseStatsdPacket(bad)).toEqual({ metrics: [], malformed: 1 });
    expect(parseStatsdPacket(bad)).toEqual({ metrics: [], malformed: 1 });
  });
});
