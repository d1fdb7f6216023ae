export * from './mapping';
export * from './latency-sketch';
