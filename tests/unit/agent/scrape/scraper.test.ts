import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { LogFields, Logger } from '../../../../agent/log';
import { createScraper } from '../../../../agent/scrape/scraper';
import { parseScrapeTarget } from '../../../../agent/scrape/target';
import { latencySeriesSchema, serverSampleSchema } from '../../../../lib/protocol';

const ALL = readFileSync(path.join('tests/fixtures/scrape', 'all-servers.prom'), 'utf8');
const DOCUMENTED = readFileSync(path.join('tests/fixtures/scrape', 'documented-formats.prom'), 'utf8');

function recordingLog() {
  const lines: { level: string; msg: string; fields?: LogFields }[] = [];
  const at = (level: string) => (msg: string, fields?: LogFields) => void lines.push({ level, msg, fields });
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { log, lines };
}

/** A histogram exposition of one vLLM series in the Python client's shape. */
function vllm(cumulative: [number, number, number], sum: number, created = 1_700_000_000, model = 'm'): string {
  const labels = `engine="0",model_name="${model}"`;
  return [
    '# TYPE vllm:e2e_request_latency_seconds histogram',
    `vllm:e2e_request_latency_seconds_bucket{${labels},le="0.5"} ${cumulative[0]}`,
    `vllm:e2e_request_latency_seconds_bucket{${labels},le="2.0"} ${cumulative[1]}`,
    `vllm:e2e_request_latency_seconds_bucket{${labels},le="+Inf"} ${cumulative[2]}`,
    `vllm:e2e_request_latency_seconds_count{${labels}} ${cumulative[2]}`,
    `vllm:e2e_request_latency_seconds_sum{${labels}} ${sum}`,
    '# TYPE vllm:e2e_request_latency_seconds_created gauge',
    `vllm:e2e_request_latency_seconds_created{${labels}} ${created}`,
    '',
  ].join('\n');
}

/** A scraper over one target whose expositions are handed out in order. */
function scraperOver(texts: (string | Error)[], more: { maxSeries?: number } = {}) {
  const { log, lines } = recordingLog();
  let i = 0;
  const scraper = createScraper({
    targets: [parseScrapeTarget('vllm=http://127.0.0.1:8000/metrics', false)],
    limits: { timeoutMs: 1000, maxBytes: 1 << 20 },
    log,
    ...more,
    fetch: async () => {
      const next = texts[Math.min(i++, texts.length - 1)]!;
      if (next instanceof Error) throw next;
      return next;
    },
  });
  let now = 0;
  return { lines, collect: () => scraper.collect((now += 10_000)) };
}

describe('createScraper', () => {
  test('the first scrape is a baseline; the next reports what the server observed in between, as ms, tagged with the scrape', async () => {
    const s = scraperOver([vllm([1, 2, 2], 1.5), vllm([3, 5, 6], 6.5)]);
    const first = await s.collect();
    expect(first.latency).toEqual([]);
    expect(first.servers[0]).toMatchObject({ name: 'vllm', ok: true, latencyMeanMs: null });
    const second = await s.collect();
    expect(second.latency).toHaveLength(1);
    const series = second.latency[0]!;
    expect(series).toMatchObject({ name: 'vllm:e2e_request_latency_seconds', tags: { engine: '0', model_name: 'm', scrape: 'vllm' } });
    expect(series.sketch.count).toBe(4);
    expect(series.sketch.sum).toBeCloseTo(5000, 6);
    expect(latencySeriesSchema.safeParse(series).success).toBe(true);
    expect(second.servers[0]).toMatchObject({ ok: true, requestsPerS: 0.4, latencyMeanMs: 1250 });
  });

  test('a server restart between scrapes costs no negative and no doubled count', async () => {
    const s = scraperOver([vllm([5, 9, 10], 20), vllm([6, 10, 11], 21), vllm([1, 1, 1], 0.2, 1_700_000_100), vllm([4, 12, 20], 30, 1_700_000_100)]);
    await s.collect();
    expect((await s.collect()).latency[0]!.sketch.count).toBe(1);
    // Restarted with one request: counted once, not as −10.
    expect((await s.collect()).latency[0]!.sketch.count).toBe(1);
    expect((await s.collect()).latency[0]!.sketch.count).toBe(19);
  });

  test('a restart that already counted past the old totals is told by _created, so its counts are not taken as growth', async () => {
    const s = scraperOver([vllm([1, 2, 2], 1.5), vllm([3, 5, 6], 6, 1_700_000_500)]);
    await s.collect();
    expect((await s.collect()).latency[0]!.sketch.count).toBe(6);
  });

  test('a malformed exposition costs that scrape only: logged once, the next good scrape covers both intervals', async () => {
    const broken = `${vllm([2, 3, 3], 2)}vllm:e2e_request_latency_seconds_bucket{le="0.5",model_name="broken 1.0\n`;
    const s = scraperOver([vllm([1, 2, 2], 1.5), broken, broken, vllm([4, 6, 7], 9)]);
    await s.collect();
    const failed = await s.collect();
    expect(failed.latency).toEqual([]);
    expect(failed.servers[0]).toMatchObject({ ok: false, error: expect.stringMatching(/^malformed exposition: line 9: unterminated value of label "model_name"/) });
    expect(serverSampleSchema.safeParse(failed.servers[0]).success).toBe(true);
    await s.collect();
    const recovered = await s.collect();
    expect(recovered.latency[0]!.sketch.count).toBe(5);
    const warnings = s.lines.filter((l) => l.msg.startsWith('scrape failed'));
    expect(warnings).toHaveLength(1);
    expect(s.lines.some((l) => l.msg === 'scrape recovered')).toBe(true);
  });

  test('an unreachable server is a failed scrape with the reason, and the agent goes on', async () => {
    const s = scraperOver([new Error('connect ECONNREFUSED 127.0.0.1:8000')]);
    expect((await s.collect()).servers[0]).toMatchObject({ ok: false, error: 'connect ECONNREFUSED 127.0.0.1:8000', waiting: null });
  });

  test('label sets beyond the series bound are dropped, counted in the server sample and logged once', async () => {
    const exposition = (n: number) => [...Array(n).keys()].map((i) => vllm([1, 1, 1], 0.1, 1, `model-${i}`).replaceAll('# TYPE vllm:e2e_request_latency_seconds histogram\n', '').replaceAll('# TYPE vllm:e2e_request_latency_seconds_created gauge\n', '')).join('');
    const s = scraperOver([exposition(5), exposition(5), exposition(5)], { maxSeries: 3 });
    await s.collect();
    const next = await s.collect();
    expect(next.servers[0]!.droppedSeries).toBe(2);
    await s.collect();
    expect(s.lines.filter((l) => l.msg === 'scrape: latency series dropped')).toHaveLength(1);
  });

  test('the real expositions: every known histogram, Triton’s and TorchServe’s means from their counters, the gauges', async () => {
    const grown = ALL.replace('nv_inference_request_success{model="resnet50",version="1"} 40.0', 'nv_inference_request_success{model="resnet50",version="1"} 50.0')
      .replace('nv_inference_request_duration_us{model="resnet50",version="1"} 520000.0', 'nv_inference_request_duration_us{model="resnet50",version="1"} 620000.0');
    const s = scraperOver([ALL.replace(/^(vllm|tgi|bentoml|ray)[^\n]*_(bucket|count|sum)[^\n]*\n/gm, ''), grown]);
    const first = await s.collect();
    expect(first.servers[0]).toMatchObject({ waiting: 4 + 2 + 3, running: 16, batchSize: 7 });
    const second = await s.collect();
    expect(second.latency.map((l) => l.name).sort()).toEqual([
      'bentoml_service_request_duration_seconds',
      'ray_serve_deployment_processing_latency_ms',
      'ray_serve_http_request_latency_ms',
      'tgi_request_duration',
      'tgi_request_queue_duration',
      'vllm:e2e_request_latency_seconds',
      'vllm:inter_token_latency_seconds',
      'vllm:request_queue_time_seconds',
      'vllm:time_to_first_token_seconds',
    ]);
    // Triton: 100 000 µs over 10 new requests; it replaces the histograms' latency mean for the target.
    expect(second.servers[0]!.latencyMeanMs).toBeCloseTo(10, 9);
  });

  test('Triton’s documented counters give mean queue time and request latency, labelled as means, not percentiles', async () => {
    const later = DOCUMENTED.replace('nv_inference_request_success{model="my_model",version="1"} 161', 'nv_inference_request_success{model="my_model",version="1"} 171')
      .replace('nv_inference_queue_duration_us{model="my_model",version="1"} 11110', 'nv_inference_queue_duration_us{model="my_model",version="1"} 12110')
      .replace('nv_inference_request_duration_us{model="my_model",version="1"} 483000', 'nv_inference_request_duration_us{model="my_model",version="1"} 513000');
    const s = scraperOver([DOCUMENTED, later]);
    await s.collect();
    const { servers, latency } = await s.collect();
    expect(latency).toEqual([]);
    expect(servers[0]).toMatchObject({ queueMeanMs: 0.1, latencyMeanMs: 3, requestsPerS: 1 });
  });
});
