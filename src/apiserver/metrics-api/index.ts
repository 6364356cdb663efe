export { MetricsScraper, type ScraperOptions } from './scraper.js';
export { metricsResources, serveMetrics, GROUP as METRICS_GROUP } from './handler.js';
