import { parentPort } from 'node:worker_threads';
import { decodeRequest, type DecodeInput } from './decode-request';

parentPort!.on('message', ({ id, input }: { id: number; input: DecodeInput }) => {
  const output = decodeRequest(input);
  parentPort!.postMessage({ id, output }, output.ok ? [output.encoded.data.buffer as ArrayBuffer] : []);
});
