import protobuf from 'protobufjs/light.js';

/**
 * The part of OTLP's metrics messages the agent reads (opentelemetry-proto, metrics/v1 and collector/metrics/v1),
 * as a reflection descriptor by field number. Fields left out (exemplars, summaries, scope attributes) are skipped on
 * decode like any unknown field. One descriptor serves both encodings: protobuf is decoded by it, OTLP/JSON is read
 * through `fromObject`, so a JSON body and a binary one become the same object.
 */
const keyValue = { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } };
const anyValue = {
  oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue'] } },
  fields: {
    stringValue: { type: 'string', id: 1 },
    boolValue: { type: 'bool', id: 2 },
    intValue: { type: 'int64', id: 3 },
    doubleValue: { type: 'double', id: 4 },
  },
};
const temporality = { values: { AGGREGATION_TEMPORALITY_UNSPECIFIED: 0, AGGREGATION_TEMPORALITY_DELTA: 1, AGGREGATION_TEMPORALITY_CUMULATIVE: 2 } };

const DESCRIPTOR = {
  nested: {
    KeyValue: keyValue,
    AnyValue: anyValue,
    AggregationTemporality: temporality,
    ExportMetricsServiceRequest: { fields: { resourceMetrics: { rule: 'repeated', type: 'ResourceMetrics', id: 1 } } },
    ExportMetricsServiceResponse: { fields: { partialSuccess: { type: 'PartialSuccess', id: 1 } } },
    Status: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 } } },
    PartialSuccess: { fields: { rejectedDataPoints: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } } },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    ResourceMetrics: { fields: { resource: { type: 'Resource', id: 1 }, scopeMetrics: { rule: 'repeated', type: 'ScopeMetrics', id: 2 } } },
    ScopeMetrics: { fields: { metrics: { rule: 'repeated', type: 'Metric', id: 2 } } },
    Metric: {
      oneofs: { data: { oneof: ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'] } },
      fields: {
        name: { type: 'string', id: 1 },
        unit: { type: 'string', id: 3 },
        gauge: { type: 'Points', id: 5 },
        sum: { type: 'Points', id: 7 },
        histogram: { type: 'Histogram', id: 9 },
        exponentialHistogram: { type: 'ExponentialHistogram', id: 10 },
        summary: { type: 'Points', id: 11 },
      },
    },
    // Gauge, sum and summary points are not read, only recognised, so their points are left undecoded.
    Points: { fields: {} },
    Histogram: {
      fields: {
        dataPoints: { rule: 'repeated', type: 'HistogramDataPoint', id: 1 },
        aggregationTemporality: { type: 'AggregationTemporality', id: 2 },
      },
    },
    ExponentialHistogram: {
      fields: {
        dataPoints: { rule: 'repeated', type: 'ExponentialHistogramDataPoint', id: 1 },
        aggregationTemporality: { type: 'AggregationTemporality', id: 2 },
      },
    },
    HistogramDataPoint: {
      fields: {
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        startTimeUnixNano: { type: 'fixed64', id: 2 },
        timeUnixNano: { type: 'fixed64', id: 3 },
        count: { type: 'fixed64', id: 4 },
        sum: { type: 'double', id: 5, options: { proto3_optional: true } },
        bucketCounts: { rule: 'repeated', type: 'fixed64', id: 6 },
        explicitBounds: { rule: 'repeated', type: 'double', id: 7 },
      },
    },
    ExponentialHistogramDataPoint: {
      fields: {
        attributes: { rule: 'repeated', type: 'KeyValue', id: 1 },
        startTimeUnixNano: { type: 'fixed64', id: 2 },
        timeUnixNano: { type: 'fixed64', id: 3 },
        count: { type: 'fixed64', id: 4 },
        sum: { type: 'double', id: 5, options: { proto3_optional: true } },
        scale: { type: 'sint32', id: 6 },
        zeroCount: { type: 'fixed64', id: 7 },
        positive: { type: 'Buckets', id: 8 },
        negative: { type: 'Buckets', id: 9 },
        zeroThreshold: { type: 'double', id: 14 },
      },
    },
    Buckets: { fields: { offset: { type: 'sint32', id: 1 }, bucketCounts: { rule: 'repeated', type: 'uint64', id: 2 } } },
  },
};

const root = protobuf.Root.fromJSON(DESCRIPTOR);
const requestType = root.lookupType('ExportMetricsServiceRequest');
const responseType = root.lookupType('ExportMetricsServiceResponse');
const statusType = root.lookupType('Status');

/** What the decoders hand back: every 64-bit integer as a JS number, every repeated field present. */
export interface OtlpAttribute {
  key: string;
  value?: { stringValue?: string; boolValue?: boolean; intValue?: number; doubleValue?: number };
}
export interface OtlpHistogramPoint {
  attributes: OtlpAttribute[];
  startTimeUnixNano: number;
  timeUnixNano: number;
  count: number;
  sum?: number;
  bucketCounts: number[];
  explicitBounds: number[];
}
export interface OtlpBuckets {
  offset: number;
  bucketCounts: number[];
}
export interface OtlpExponentialPoint {
  attributes: OtlpAttribute[];
  startTimeUnixNano: number;
  timeUnixNano: number;
  count: number;
  sum?: number;
  scale: number;
  zeroCount: number;
  positive?: OtlpBuckets;
  negative?: OtlpBuckets;
  zeroThreshold: number;
}
export interface OtlpMetric {
  name: string;
  unit: string;
  histogram?: { dataPoints: OtlpHistogramPoint[]; aggregationTemporality: number };
  exponentialHistogram?: { dataPoints: OtlpExponentialPoint[]; aggregationTemporality: number };
}
export interface OtlpRequest {
  resourceMetrics: { resource?: { attributes: OtlpAttribute[] }; scopeMetrics: { metrics: OtlpMetric[] }[] }[];
}

const AS_PLAIN: protobuf.IConversionOptions = { longs: Number, enums: Number, defaults: true, arrays: true };

/** Fixed64 values past 2^53 lose precision as numbers: a count or a nanosecond time that large is not a real one. */
function toRequest(message: protobuf.Message): OtlpRequest {
  return requestType.toObject(message, AS_PLAIN) as OtlpRequest;
}

/** Throws on a body that is not an ExportMetricsServiceRequest. */
export function decodeProtobufRequest(body: Uint8Array): OtlpRequest {
  return toRequest(requestType.decode(body));
}

/**
 * OTLP/JSON (lowerCamelCase fields, 64-bit integers as strings or numbers, enums as integers). `fromObject` refuses
 * a field of the wrong shape (an object where a list belongs); values it cannot read as numbers become NaN, which
 * the points' checks refuse.
 */
export function decodeJsonRequest(json: unknown): OtlpRequest {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('the body must be an ExportMetricsServiceRequest object');
  return toRequest(requestType.fromObject(json as Record<string, unknown>));
}

/** The response a sender expects, empty unless some points were rejected (OTLP's partial success). */
export function encodeResponse(rejected: number, message: string, as: 'protobuf' | 'json'): Buffer {
  const body = rejected > 0 ? { partialSuccess: { rejectedDataPoints: rejected, errorMessage: message } } : {};
  if (as === 'json') return Buffer.from(JSON.stringify(responseType.toObject(responseType.fromObject(body), { longs: String })));
  return Buffer.from(responseType.encode(responseType.fromObject(body)).finish());
}

/** gRPC status codes for the HTTP statuses the intake answers with (google.rpc.Code). */
const RPC_CODE: Record<number, number> = { 400: 3, 404: 5, 405: 12, 413: 8, 415: 3, 500: 13 };

/** The body of a refused export: a google.rpc.Status, as OTLP/HTTP specifies. */
export function encodeStatus(httpStatus: number, message: string, as: 'protobuf' | 'json'): Buffer {
  const status = statusType.fromObject({ code: RPC_CODE[httpStatus] ?? 2, message });
  if (as === 'json') return Buffer.from(JSON.stringify(statusType.toObject(status)));
  return Buffer.from(statusType.encode(status).finish());
}
