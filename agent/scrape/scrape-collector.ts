import { defineCollector } from '../collectors/registration';
import { createScraper, type ScrapeResult } from './scraper';

/** The model servers' Prometheus /metrics (--scrape): latency series and one servers[] entry each; off without targets. */
export const scrapeCollector = defineCollector<ScrapeResult>({
  name: 'scrape',
  reads: ['the --scrape targets\' /metrics'],
  cadence: 'rates',
  create: ({ config, log }) => {
    const scrape = config.scrape;
    if (!scrape?.targets.length) return null;
    const scraper = createScraper({
      targets: scrape.targets,
      histograms: scrape.histograms,
      maxSeries: scrape.maxSeries,
      limits: { timeoutMs: scrape.timeoutMs, maxBytes: scrape.maxBytes },
      log,
    });
    log.info('scraping model servers', { targets: scrape.targets.map((t) => `${t.name}=${t.url.href}`).join(' ') });
    return { collect: (ctx) => scraper.collect(ctx.nowMs) };
  },
  toReport: (scraped) => ({ sections: { servers: scraped.servers }, scrapedLatency: scraped.latency }),
});
