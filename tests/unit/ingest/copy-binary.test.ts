import { describe, expect, it } from 'vitest';
import { encodeBinaryTuples } from '../../support/copy-tuples';

describe('encodeBinaryTuples', () => {
  it('writes each cell big-endian behind its byte length, arrays with their element oid, null as length -1', () => {
    const bytes = encodeBinaryTuples({ width: 4, values: [-2, -5_000_000_000, [3], null] }, ['int2', 'int8', 'int2[]', 'float8']);
    expect(bytes.toString('hex')).toBe([
      '0004',
      '00000002', 'fffe',
      '00000008', 'fffffffed5fa0e00',
      '0000001a', '00000001', '00000000', '00000015', '00000001', '00000001', '00000002', '0003',
      'ffffffff',
    ].join(''));
  });

  it('writes an int4 array with element oid 23, the largest int4 exactly, and a float8 exactly', () => {
    const bytes = encodeBinaryTuples({ width: 2, values: [[7, 2 ** 31 - 1], 1.5] }, ['int4[]', 'float8']);
    expect(bytes.subarray(2, 42).toString('hex')).toBe([
      '00000024', '00000001', '00000000', '00000017', '00000002', '00000001',
      '00000004', '00000007', '00000004', '7fffffff',
    ].join(''));
    expect(bytes.readDoubleBE(46)).toBe(1.5);
  });

  it('writes a float4 array with element oid 700, each element 4 bytes', () => {
    const bytes = encodeBinaryTuples({ width: 1, values: [[0.5, 97.25]] }, ['float4[]']);
    expect(bytes.toString('hex')).toBe([
      '0001',
      '00000024', '00000001', '00000000', '000002bc', '00000002', '00000001',
      '00000004', '3f000000', '00000004', '42c28000',
    ].join(''));
  });

  it('writes a text array with element oid 25, each element behind its UTF-8 byte length, and a float8 array (oid 701)', () => {
    const bytes = encodeBinaryTuples({ width: 2, values: [['vda', 'ü'], [0.5]] }, ['text[]', 'float8[]']);
    expect(bytes.toString('hex')).toBe([
      '0002',
      '00000021', '00000001', '00000000', '00000019', '00000002', '00000001',
      '00000003', Buffer.from('vda').toString('hex'), '00000002', 'c3bc',
      '00000020', '00000001', '00000000', '000002bd', '00000001', '00000001',
      '00000008', '3fe0000000000000',
    ].join(''));
  });

  it('writes an empty array as zero dimensions with its element oid', () => {
    expect(encodeBinaryTuples({ width: 1, values: [[]] }, ['text[]']).toString('hex')).toBe('0001' + '0000000c' + '00000000' + '00000000' + '00000019');
  });

  it.each([
    ['int2', 32_768],
    ['int4', 2 ** 31],
    ['int8', 2 ** 64],
    ['int2[]', [1, -32_769]],
    ['int4[]', [2 ** 31]],
    ['int4[]', [-(2 ** 31) - 1]],
  ] as const)('refuses a %s value outside the column range instead of wrapping it', (type, value) => {
    expect(() => encodeBinaryTuples({ width: 1, values: [value as never] }, [type])).toThrow(RangeError);
  });
});
