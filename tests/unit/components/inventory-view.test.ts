import { describe, expect, test } from 'vitest';
import { containerView, envEntries, evidenceText, formatBytes, hypervisorText, instructionSetBadges, inventorySections, pathPieces, splitFindings } from '../../../components/host/inventory-view';
import type { Finding } from '../../../lib/protocol/findings';
import { cleanCpu, cleanInventory, watchedProcess } from '../../support/findings-facts';

describe('inventory view', () => {
  test('AVX2, FMA and AVX-512 show as present or missing from the CPU flags', () => {
    expect(instructionSetBadges(['avx2', 'fma', 'avx512f']).map((b) => [b.name, b.present])).toEqual([['AVX2', true], ['FMA', true], ['AVX-512', true]]);
    expect(instructionSetBadges(['avx', 'sse4_2', 'AVX2']).map((b) => b.present)).toEqual([true, false, false]);
  });

  test('the hypervisor reads as its kind and vendor, or bare metal', () => {
    expect(hypervisorText(cleanCpu())).toBe('kvm (KVMKVMKVM)');
    expect(hypervisorText(cleanCpu({ hypervisor: 'none', hypervisorVendor: null }))).toBe('bare metal (no hypervisor)');
  });

  test('parts the agent could not read come with its reason', () => {
    const sections = inventorySections(cleanInventory({ disks: { unavailable: 'no /sys/block' }, cgroup: { unavailable: 'not mounted' } }));
    expect(sections).toMatchObject({ disks: [], disksUnavailable: 'no /sys/block', cgroup: null, cgroupUnavailable: 'not mounted', cpuUnavailable: null });
    expect(sections.cpu?.model).toContain('Xeon');
  });

  test('sizes in SI units, env settings by name', () => {
    expect([0, 999, 1500, 2.5e11, 1e12].map(formatBytes)).toEqual(['0 B', '999 B', '1.5 kB', '250 GB', '1.0 TB']);
    expect(formatBytes(null)).toBe('—');
    expect(envEntries(watchedProcess({ env: { OMP_NUM_THREADS: '8', KMP_BLOCKTIME: '0' } }))).toEqual([['KMP_BLOCKTIME', '0'], ['OMP_NUM_THREADS', '8']]);
  });

  test('a container shows its short id, its engine (or that the path names none), and its pod with the QoS class', () => {
    const id = '25d057a4c6c9555f2a0eb106e8896968c28f1c44aca4754174851aca7f89ad26';
    expect(containerView({ runtime: 'containerd', id, pod: { uid: '9493223b-520e-4a97-a45f-359dcf967006', qosClass: 'besteffort' } })).toEqual({
      id, shortId: '25d057a4c6c9', engine: 'containerd', pod: { uid: '9493223b-520e-4a97-a45f-359dcf967006', qosClass: 'BestEffort' },
    });
    expect(containerView({ runtime: null, id })).toEqual({ id, shortId: '25d057a4c6c9', engine: 'engine not named by its cgroup', pod: null });
  });

  test('evidence values read with their units', () => {
    expect(evidenceText({ label: 'steal', value: 14.237, unit: '%' })).toBe('14.2 %');
    expect(evidenceText({ label: 'ratio', value: 1.5 })).toBe('1.50');
    expect(evidenceText({ label: 'pinned', value: false })).toBe('no');
    expect(evidenceText({ label: 'x', value: null })).toBe('—');
  });
});

describe('findings split', () => {
  const finding = (id: number, patch: Partial<Finding>): Finding => ({
    id, ruleId: 'r', title: 't', category: 'agent', severity: 'info', state: 'open', hostId: 1, hostname: 'h', region: 'oslo', subject: '',
    message: '', remedy: '', docsPath: '', evidence: { values: [] }, value: null, peakValue: null, firstSeenAt: '2026-12-01T00:00:00.000Z',
    openedAt: null, resolvedAt: null, updatedAt: '2026-12-01T00:00:00.000Z', acknowledgement: null, effect: null, ...patch,
  });

  test('open ones most severe first (open before pending); resolved ones newest first', () => {
    const { active, resolved } = splitFindings([
      finding(1, { severity: 'info' }),
      finding(2, { severity: 'critical', state: 'pending' }),
      finding(3, { severity: 'critical' }),
      finding(4, { state: 'resolved', resolvedAt: '2026-12-01T01:00:00.000Z' }),
      finding(5, { state: 'resolved', resolvedAt: '2026-12-01T02:00:00.000Z' }),
      finding(6, { severity: 'warning' }),
    ]);
    expect(active.map((f) => f.id)).toEqual([3, 2, 6, 1]);
    expect(resolved.map((f) => f.id)).toEqual([5, 4]);
  });
});

describe('pathPieces', () => {
  test('a cgroup path is cut after each slash, never inside a name, and joins back to itself', () => {
    const path = '/kubepods.slice/kubepods-burstable.slice/cri-containerd-3f2a9c.scope';
    expect(pathPieces(path)).toEqual(['/', 'kubepods.slice/', 'kubepods-burstable.slice/', 'cri-containerd-3f2a9c.scope']);
    expect(pathPieces(path).join('')).toBe(path);
    expect(pathPieces('/')).toEqual(['/']);
    expect(pathPieces('system.slice')).toEqual(['system.slice']);
  });
});
