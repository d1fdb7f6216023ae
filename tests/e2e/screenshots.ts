import type { Page } from '@playwright/test';

/** `npm run screenshots` sets this; a plain `npm test` leaves the tracked docs/screenshots alone. */
export const screenshotsAsked = process.env.INFERWATCH_SCREENSHOTS === '1';

export async function screenshotIfAsked(page: Page, name: string, options: { fullPage?: boolean; settleMs?: number } = {}): Promise<void> {
  if (!screenshotsAsked) return;
  await page.waitForLoadState('networkidle');
  if (options.settleMs) await page.waitForTimeout(options.settleMs);
  await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: options.fullPage ?? false });
}
