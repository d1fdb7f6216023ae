import { expect, test } from '@playwright/test';
import type { LatencySeries } from '../../lib/protocol';
import type { SloResponse } from '../../lib/protocol/read-api/slo';
import { LatencySketch } from '../../lib/sketch';
import { createEnrollmentKey, enrollHost, ingest } from './fleet-support';

const run = Date.now().toString(36);
const region = `slo-${run}`;
const TTFT = 'vllm:time_to_first_token_seconds';
// Agent-sent text: shown as text, never markup.
const model = `<b>llama</b>-${run}`;

function ttft(fastMs: number, slowMs: number): LatencySeries {
  const sketch = new LatencySketch();
  for (let i = 0; i < 95; i++) sketch.add(fastMs);
  for (let i = 0; i < 5; i++) sketch.add(slowMs);
  return { name: TTFT, tags: { model_name: model }, sketch: sketch.toWire() };
}

test.beforeAll(async ({ request }) => {
  const key = await createEnrollmentKey(request, region);
  const token = await enrollHost(request, key, `gpu-${run}`);
  await ingest(request, token, 3, () => ({ latency: [ttft(300, 4000)] }));
});

test('the SLO page shows each objective per region and model with the API\'s budget, burn and worst hosts', async ({ page, request }) => {
  await page.goto('/');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'SLOs' }).click();
  await expect(page).toHaveURL(/\/slo$/);
  const objective = page.getByRole('region', { name: '99 % of time to first token ≤ 1000 ms' });
  const row = objective.locator(`tr[data-region="${region}"]`);
  await expect(row).toHaveCount(1);
  await expect(row.getByRole('cell', { name: model, exact: true })).toBeVisible();
  await expect(row.locator('b')).toHaveCount(0);

  const api = (await (await request.get('/api/v1/slo')).json()) as SloResponse;
  const expected = api.objectives.find((o) => o.ruleIds.includes('ttft-slo-fast-burn'))!.rows.find((r) => r.region === region)!;
  // 15 of 300 first tokens over 1 s against a 1 % budget: 5 budgets' worth, in the last hour.
  expect(expected).toMatchObject({ requests: 300, slow: 15, model });
  expect(expected.burn1h).toBeCloseTo(5, 9);
  await expect(row.locator('[data-metric="burn-1h"]')).toHaveText('5.00×');
  await expect(row.locator('[data-metric="budget"]')).toHaveText('overspent 400 %');
  await expect(row.locator('[data-metric="budget"]')).toHaveClass(/sev-bad/);
  await expect(row.locator('[data-metric="requests"]')).toHaveText('300');
  await row.getByRole('link', { name: `gpu-${run}` }).click();
  await expect(page).toHaveURL(/\/hosts\/\d+/);
});
