import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { expect, test } from 'vitest';
import { AlertItem } from '@/components/alerts/alert-item';
import type { Alert } from '@/lib/protocol/alerts';

const alert: Alert = {
  id: 7,
  ruleId: 'critical-finding',
  fingerprint: 'host=fra-inf-05',
  state: 'firing',
  severity: 'critical',
  hostId: 27,
  region: 'frankfurt',
  labels: { alertname: 'critical-finding', severity: 'critical', host: 'fra-inf-05' },
  annotations: {
    summary: 'Critical finding opened: `cpu.avx2-missing` on fra-inf-05',
    description: "Remedy: in the domain XML (`virsh edit <vm>`), QEMU `-cpu host`; [x](https://evil.example) <img src=x onerror=alert(1)>",
    likely_cause: 'steal on `fra-inf-05` rose with p99',
  },
  value: 1,
  peakValue: 1,
  threshold: 0,
  pendingAt: '2026-12-05T14:13:40.000Z',
  firedAt: '2026-12-05T14:13:40.000Z',
  resolvedAt: null,
  lastEvaluatedAt: '2026-12-05T14:13:40.000Z',
  acknowledgement: null,
};

const render = () =>
  renderToStaticMarkup(
    createElement(QueryClientProvider, { client: new QueryClient() }, createElement(AlertItem, { alert, rule: undefined, silencedBy: [], canWrite: false })),
  );

test('an alert’s summary, remedy and likely cause show their `code` spans as code, not as backticks', () => {
  const html = render();
  expect(html).toContain('<code>cpu.avx2-missing</code>');
  expect(html).toContain('<code>virsh edit &lt;vm&gt;</code>');
  expect(html).toContain('<code>-cpu host</code>');
  expect(html).toContain('<code>fra-inf-05</code> rose with p99');
  expect(html).not.toContain('`');
});

test('nothing else in the agent-derived text becomes markup: links and tags stay text', () => {
  const html = render();
  expect(html).toContain('[x](https://evil.example) &lt;img src=x onerror=alert(1)&gt;');
  expect(html).not.toContain('<img');
  expect(html).not.toContain('href="https://evil.example"');
});
