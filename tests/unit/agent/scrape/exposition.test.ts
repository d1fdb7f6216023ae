import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ExpositionError, parseExposition } from '../../../../agent/scrape/exposition';

const fixture = (name: string) => readFileSync(path.join('tests/fixtures/scrape', name), 'utf8');

describe('parseExposition on real expositions', () => {
  test('the Python client’s output of every server parses into typed families, histogram samples under their family', () => {
    const families = parseExposition(fixture('all-servers.prom'));
    const byName = new Map(families.map((f) => [f.name, f]));
    const e2e = byName.get('vllm:e2e_request_latency_seconds')!;
    expect(e2e.type).toBe('histogram');
    expect(e2e.help).toBe('Histogram of e2e request latency in seconds.');
    // 21 finite buckets, +Inf, _count and _sum for the one label set.
    expect(e2e.samples).toHaveLength(24);
    expect(e2e.samples[0]).toEqual({
      name: 'vllm:e2e_request_latency_seconds_bucket',
      labels: { engine: '0', le: '0.3', model_name: 'meta-llama/Llama-3.1-8B-Instruct' },
      value: 1,
    });
    expect(byName.get('vllm:e2e_request_latency_seconds_created')!.type).toBe('gauge');
    expect(byName.get('tgi_request_duration')!.samples.filter((s) => s.name.endsWith('_bucket'))).toHaveLength(36);
    expect(byName.get('vllm:request_success_total')!.samples[0]!.value).toBe(6);
    // Triton's cumulative durations, served untyped under their exact names.
    expect(byName.get('nv_inference_request_duration_us')).toMatchObject({ type: 'untyped', samples: [{ value: 520000 }] });
  });

  test('the documented Triton and TorchServe formats parse: counters without _total, a summary, trailing commas', () => {
    const families = parseExposition(fixture('documented-formats.prom'));
    const byName = new Map(families.map((f) => [f.name, f]));
    expect(byName.get('nv_inference_request_duration_us')).toMatchObject({ type: 'counter', samples: [{ labels: { model: 'my_model', version: '1' }, value: 483000 }] });
    expect(byName.get('nv_inference_queue_summary_us')!.samples).toHaveLength(4);
    expect(byName.get('ts_queue_latency_microseconds')!.samples[0]).toEqual({
      name: 'ts_queue_latency_microseconds',
      labels: { uuid: 'd5f84dfb-fae8-4f92-b217-2f385ca7470b', model_name: 'noop', model_version: 'default' },
      value: 364.884,
    });
  });

  test('escapes, special values, timestamps, blank lines and plain comments', () => {
    const text = [
      '# a plain comment',
      '',
      'a{path="C:\\\\dir",quote="say \\"hi\\"",nl="x\\ny"} +Inf 1700000000000',
      'b NaN',
      'c -1.5e-3',
      'd{} 7',
    ].join('\n');
    const samples = parseExposition(text).flatMap((f) => f.samples);
    expect(samples[0]!.labels).toEqual({ path: 'C:\\dir', quote: 'say "hi"', nl: 'x\ny' });
    expect(samples.map((s) => s.value)).toEqual([Infinity, NaN, -0.0015, 7]);
  });
});

describe('parseExposition refuses what breaks the format, naming the line', () => {
  const cases: [string, string, RegExp][] = [
    ['an unterminated label value', 'ok 1\nx{le="0.5 3', /line 2: unterminated value of label "le"/],
    ['a value that is not a number', 'x 12abc', /line 1: invalid value "12abc"/],
    ['no value', 'x{a="b"}', /line 1: no value/],
    ['text after the timestamp', 'x 1 2 3', /unexpected text/],
    ['an invalid timestamp', 'x 1 soon', /invalid timestamp/],
    ['an invalid metric name', '9x 1', /invalid metric name/],
    ['an invalid label name', 'x{9a="b"} 1', /invalid label name/],
    ['a bad escape', 'x{a="\\t"} 1', /invalid escape/],
    ['a label given twice', 'x{a="1",a="2"} 1', /label "a" given twice/],
    ['a missing comma', 'x{a="1" b="2"} 1', /expected "," or "}"/],
    ['the same sample twice', 'x{a="1"} 1\nx{a="1"} 2', /line 2: duplicate sample x\{a="1"\}/],
    ['an unknown type', '# TYPE x histogramm', /unknown type "histogramm"/],
    ['a second TYPE line', '# TYPE x gauge\n# TYPE x gauge', /line 2: second TYPE line/],
    ['a TYPE line after the samples', 'x 1\n# TYPE x gauge', /after its samples/],
    ['a second HELP line', '# HELP x a\n# HELP x b', /second HELP line/],
    ['a histogram sample under its bare name', '# TYPE x histogram\nx 1', /bare name of a histogram/],
  ];
  test.each(cases)('%s', (_what, text, message) => {
    expect(() => parseExposition(text)).toThrow(ExpositionError);
    expect(() => parseExposition(text)).toThrow(message);
  });
});
