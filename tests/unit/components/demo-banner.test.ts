import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import { DemoBanner } from '../../../components/shell/demo-banner';
import { SESSION_QUERY_KEY } from '../../../components/hooks/use-session-query';
import { DEMO_FLEET_HREF, demoBannerText } from '../../../components/shell/demo-banner-text';
import { serializeFleetUrl } from '../../../components/fleet/search-params';

describe('demoBannerText', () => {
  test('no demo hosts: no banner', () => {
    expect(demoBannerText({ hosts: 0, reporting: 0 })).toBeNull();
  });

  test('demo hosts reporting: they are simulated, and INFERWATCH_DEMO=0 turns them off', () => {
    const text = demoBannerText({ hosts: 42, reporting: 41 })!;
    expect(text.lead).toBe('Demo fleet: 42 simulated hosts, labelled demo=true, report made-up numbers beside your own hosts.');
    expect(text.detail).toContain('INFERWATCH_DEMO=0');
  });

  test('demo hosts no longer reporting: the demo is off, and why they are still listed', () => {
    const text = demoBannerText({ hosts: 1, reporting: 0 })!;
    expect(text.lead).toBe('Demo fleet: 1 simulated host, labelled demo=true, is still listed but no longer reports.');
    expect(text.detail).not.toContain('INFERWATCH_DEMO=0');
  });
});

describe('DemoBanner', () => {
  function render(demo: { hosts: number; reporting: number }) {
    const client = new QueryClient();
    client.setQueryData(SESSION_QUERY_KEY, { principal: { kind: 'user', name: 'Ann', email: 'ann@example.com', role: 'viewer' } });
    client.setQueryData(['demo-fleet'], demo);
    return renderToStaticMarkup(createElement(QueryClientProvider, { client }, createElement(DemoBanner)));
  }

  test('renders nothing without demo hosts, and the notice with them', () => {
    expect(render({ hosts: 0, reporting: 0 })).toBe('');
    const html = render({ hosts: 42, reporting: 42 });
    expect(html).toContain('data-testid="demo-banner"');
    expect(html).toContain('42 simulated hosts');
    expect(html).toContain('INFERWATCH_DEMO=0');
    expect(html).toContain('href="/?label=demo:true"');
  });

  test('links to the fleet filtered as its own URL state writes the filter', () => {
    expect(DEMO_FLEET_HREF).toBe(serializeFleetUrl('/', { label: 'demo:true' }));
  });
});
