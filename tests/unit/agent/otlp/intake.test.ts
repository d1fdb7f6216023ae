import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createOtlpAccumulator, type OtlpAccumulator } from '../../../../agent/otlp/accumulator';
import { MAX_OTLP_BODY_BYTES, startOtlpIntake, type OtlpIntake } from '../../../../agent/otlp/intake';
import { decodeProtobufRequest } from '../../../../agent/otlp/wire';
import type { Logger } from '../../../../agent/log';

let accumulator: OtlpAccumulator;
let intake: OtlpIntake;
const warnings: unknown[] = [];
const log: Logger = { debug() {}, info() {}, warn: (msg, fields) => void warnings.push([msg, fields]), error() {} };

beforeEach(async () => {
  warnings.length = 0;
  accumulator = createOtlpAccumulator({ startedAtNs: 0 });
  intake = await startOtlpIntake({ port: 0, accumulator, log });
});

afterEach(async () => {
  await intake.close();
});

// OTLP/JSON as the specification writes it: 64-bit integers as strings, enums as numbers.
const body = (count: string, bucketCounts: string[]) => ({
  resourceMetrics: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'tgi' } }] },
      scopeMetrics: [
        {
          scope: { name: 'tgi' },
          metrics: [
            {
              name: 'gen_ai.server.time_to_first_token',
              unit: 's',
              histogram: {
                aggregationTemporality: 1,
                dataPoints: [{ startTimeUnixNano: '1700000000000000000', timeUnixNano: '1700000010000000000', count, sum: 0.9, bucketCounts, explicitBounds: [0.05, 0.1], attributes: [] }],
              },
            },
          ],
        },
      ],
    },
  ],
});

async function post(payload: Uint8Array<ArrayBuffer> | string, headers: Record<string, string>, path = '/v1/metrics') {
  const res = await fetch(`http://127.0.0.1:${intake.port}${path}`, { method: 'POST', headers, body: payload });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('startOtlpIntake', () => {
  test('OTLP/JSON with string integers, gzip-compressed, is read and answered with an empty response', async () => {
    const res = await post(zlib.gzipSync(JSON.stringify(body('10', ['2', '6', '2']))), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res).toMatchObject({ status: 200, type: 'application/json' });
    expect(JSON.parse(res.bytes.toString())).toEqual({});
    const [series] = accumulator.drain();
    expect(series).toMatchObject({ name: 'gen_ai.server.time_to_first_token', tags: { service: 'tgi' }, sketch: { count: 10 } });
    expect(series!.sketch.sum).toBeCloseTo(900, 9);
  });

  test('refused points are a partial success naming how many and why, logged once while the reason stays', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await post(JSON.stringify(body('11', ['2', '6', '2'])), { 'content-type': 'application/json' });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.bytes.toString())).toEqual({ partialSuccess: { rejectedDataPoints: '1', errorMessage: expect.stringMatching(/add up to 10, not the point's count 11/) } });
    }
    expect(warnings).toHaveLength(1);
  });

  test('a body that is not OTLP is a 400 with a google.rpc.Status; nothing is kept', async () => {
    const res = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff]), { 'content-type': 'application/x-protobuf' });
    expect(res).toMatchObject({ status: 400, type: 'application/x-protobuf' });
    // A Status is code (field 1) = 3 INVALID_ARGUMENT, then the message: the bytes name it.
    expect(res.bytes[0]).toBe(0x08);
    expect(res.bytes[1]).toBe(3);
    expect(res.bytes.toString('latin1')).toMatch(/not an ExportMetricsServiceRequest/);
    const json = await post('{"resourceMetrics": 5}', { 'content-type': 'application/json' });
    expect(json.status).toBe(400);
    expect(JSON.parse(json.bytes.toString())).toMatchObject({ code: 3, message: expect.stringMatching(/resourceMetrics: array expected/) });
    expect(accumulator.drain()).toEqual([]);
  });

  test('refuses other paths, content types, encodings and bodies past the bound', async () => {
    expect((await post('{}', { 'content-type': 'application/json' }, '/v1/traces')).status).toBe(404);
    expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' })).status).toBe(415);
    const bomb = zlib.gzipSync(Buffer.alloc(MAX_OTLP_BODY_BYTES + 1));
    expect((await post(bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' })).status).toBe(413);
  });

  test('an empty protobuf body is an empty request', () => {
    expect(decodeProtobufRequest(new Uint8Array())).toEqual({ resourceMetrics: [] });
  });
});
