import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { LogFields, Logger } from '../../../../agent/log';
import { createScraper } from '../../../../agent/scrape/scraper';
import { parseScrapeTarget } from '../../../../agent/scrape/target';
import { latencySeriesSchema, serverSampleSchema } from '../../../../lib/protocol';

const ALL = readFileSync(path.join('tests/fixtures/scrape', 'all-servers.prom'), 'utf8');
const DOCUMENTED = readFileSync(path.join('tests/fixtures/scrape', 'documented-formats.prom'), 'utf8');
const LLM = readFileSync(path.join('tests/fixtures/scrape', 'llm-engines.prom'), 'utf8');
const LLAMACPP = readFileSync(path.join('tests/fixtures/scrape', 'llamacpp.prom'), 'utf8');
const TRTLLM = readFileSync(path.join('tests/fixtures/scrape', 'trtllm-triton.prom'), 'utf8');

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

  test('vLLM’s per-request TPOT is its own series beside the per-token ITL', async () => {
    const s = scraperOver([LLM.replace(/^vllm:request_time_per_output_token_seconds_(bucket|count|sum)[^\n]*\n/gm, ''), LLM]);
    await s.collect();
    const tpot = (await s.collect()).latency.filter((l) => l.name.startsWith('vllm:'));
    expect(tpot.map((l) => [l.name, l.sketch.count])).toEqual([['vllm:request_time_per_output_token_seconds', 3]]);
    expect(tpot[0]!.sketch.sum).toBeCloseTo(73, 6);
  });

  test('SGLang and Dynamo: TTFT, ITL, e2e and queue histograms under their own names, their queue gauges', async () => {
    const s = scraperOver([LLM.replace(/^(sglang|dynamo)[^\n]*_(bucket|count|sum)[^\n]*\n/gm, ''), LLM]);
    const first = await s.collect();
    expect(first.servers[0]).toMatchObject({ waiting: 6 + 3, running: 24 + 9 });
    const second = await s.collect();
    expect(second.latency.map((l) => `${l.name} ${l.sketch.count}`).sort()).toEqual([
      'dynamo_frontend_inter_token_latency_seconds 4',
      'dynamo_frontend_request_duration_seconds 4',
      'dynamo_frontend_time_to_first_token_seconds 4',
      'sglang:e2e_request_latency_seconds 5',
      'sglang:inter_token_latency_seconds 5',
      'sglang:queue_time_seconds 5',
      'sglang:time_to_first_token_seconds 5',
    ]);
    const ttft = second.latency.find((l) => l.name === 'sglang:time_to_first_token_seconds')!;
    expect(ttft.tags).toEqual({ engine_type: 'unified', model_name: 'Qwen/Qwen2.5-7B-Instruct', pp_rank: '0', scrape: 'vllm', tp_rank: '0' });
    expect(ttft.sketch.sum).toBeCloseTo(3950, 6);
    // SGLang's queue histogram starts at le="0.0": a zero wait is counted as zero, not as half a bucket.
    expect(second.latency.find((l) => l.name === 'sglang:queue_time_seconds')!.sketch.zeroCount).toBe(1);
    // Mean latency and queue time from the e2e and queue histograms: (19.2 s + 50.4 s) / 9, 5.85 s / 5.
    expect(second.servers[0]!.latencyMeanMs).toBeCloseTo(69_600 / 9, 6);
    expect(second.servers[0]!.queueMeanMs).toBeCloseTo(1170, 6);
  });

  test('llama.cpp publishes counters and gauges only: a mean time per generated token, never a latency series', async () => {
    const later = LLAMACPP.replace('llamacpp:tokens_predicted_total 3469', 'llamacpp:tokens_predicted_total 3969')
      .replace('llamacpp:tokens_predicted_seconds_total 104.07', 'llamacpp:tokens_predicted_seconds_total 119.07');
    const s = scraperOver([LLAMACPP, later, later]);
    const first = await s.collect();
    expect(first.servers[0]).toMatchObject({ ok: true, waiting: 1, running: 2, tokenMeanMs: null, latencyMeanMs: null });
    const second = await s.collect();
    expect(second.latency).toEqual([]);
    // 15 s of generation over 500 tokens.
    expect(second.servers[0]!.tokenMeanMs).toBeCloseTo(30, 9);
    expect(second.servers[0]).toMatchObject({ latencyMeanMs: null, requestsPerS: null, kvCachePct: null, preemptionsPerMin: null });
    expect(serverSampleSchema.safeParse(second.servers[0]).success).toBe(true);
    // An idle interval generated nothing: no mean, not a zero.
    expect((await s.collect()).servers[0]!.tokenMeanMs).toBeNull();
  });

  test('KV cache in use and preemptions per minute: vLLM kv_cache_usage_perc and preemptions, SGLang token_usage and retractions', async () => {
    const later = LLM.replace(/^(vllm:num_preemptions_total\{[^}]*\}) 40\.0$/m, '$1 60.0')
      .replace(/^(sglang:num_retracted_requests_total\{[^}]*\}) 12\.0$/m, '$1 17.0');
    const s = scraperOver([LLM, later]);
    const first = await s.collect();
    // The fullest engine counts: vLLM at 0.98 beside SGLang at 0.93.
    expect(first.servers[0]).toMatchObject({ kvCachePct: 98, preemptionsPerMin: null });
    // 20 preemptions + 5 retractions over the 10 s between scrapes.
    expect((await s.collect()).servers[0]!.preemptionsPerMin).toBeCloseTo(150, 9);
  });

  test('the older vLLM gpu_cache_usage_perc is read where kv_cache_usage_perc is missing; a value outside 0–1 is no reading', async () => {
    const old = (v: string) => `# TYPE vllm:gpu_cache_usage_perc gauge\nvllm:gpu_cache_usage_perc{model_name="m"} ${v}\n`;
    const s = scraperOver([old('0.42'), old('NaN'), old('42')]);
    expect((await s.collect()).servers[0]!.kvCachePct).toBeCloseTo(42, 9);
    expect((await s.collect()).servers[0]!.kvCachePct).toBeNull();
    expect((await s.collect()).servers[0]!.kvCachePct).toBeNull();
  });

  test('TensorRT-LLM under Triton: KV blocks in use are used ÷ max of the same model, not its "fraction" member', async () => {
    const s = scraperOver([TRTLLM, TRTLLM.replace(/(kv_cache_block_type="used",[^}]*\}) 1$/m, '$1 5615'), TRTLLM.replace(/(kv_cache_block_type="max",[^}]*\}) 6239$/m, '$1 0')]);
    expect((await s.collect()).servers[0]!.kvCachePct).toBeCloseTo((100 * 1) / 6239, 9);
    expect((await s.collect()).servers[0]!.kvCachePct).toBeCloseTo((100 * 5615) / 6239, 9);
    // A pool of no blocks says nothing.
    expect((await s.collect()).servers[0]!.kvCachePct).toBeNull();
  });
});
