import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The `route` label of requests that matched no route: one value, whatever the path. */
export const UNMATCHED_ROUTE = 'unmatched';

type RequestLabel = 'method' | 'route' | 'status';

export type WebhookDeliveryOutcome = 'delivered' | 'failed' | 'retrying';

/**
 * The Prometheus series of contract §16, on a registry of this application's own (not
 * prom-client's global one), so that several apps in one process (the e2e tests) never clash.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
    // Counted by observeRequest in plain numbers and copied here when scraped: a labelled
    // counter's inc validates and hashes its labels on every call.
    collect: () => {
      this.requests.reset();
      for (const series of this.requestSeries.values()) {
        this.requests.inc(series.labels, series.count);
      }
    },
  });

  private readonly durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the first byte of a request to the end of its response, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly rateLimitRejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 by the rate limits',
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly purged = new Counter({
    name: 'purged_rows_total',
    help: 'Rows removed by the periodic purges, by kind of row',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly scrobbles = new Counter({
    name: 'scrobbles_total',
    help: 'Requests of media servers to the scrobble receiver, by scrobbler kind and outcome',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The series of each method, route pattern and status, looked up once: given a label object,
   * prom-client validates it and builds its key on every call, twice per request. Bounded as the
   * labels are (route patterns, never raw paths).
   */
  private readonly requestSeries = new Map<
    string,
    {
      labels: Record<RequestLabel, string>;
      count: number;
      durations: Histogram.Internal<RequestLabel>;
    }
  >();

  /** `route` is the route pattern (`/v1/my/anime/:id/ratings`), never a raw path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.requestSeries.get(key);
    if (series === undefined) {
      const labels = { method, route, status: String(status) };
      series = { labels, count: 0, durations: this.durations.labels(labels) };
      this.requestSeries.set(key, series);
    }
    series.count += 1;
    series.durations.observe(seconds);
  }

  countRateLimitRejection(): void {
    this.rateLimitRejections.inc();
  }

  countWebhookDelivery(outcome: WebhookDeliveryOutcome): void {
    this.webhookDeliveries.inc({ outcome });
  }

  /** `kind` and `outcome` are the bounded names of contract §21, never a secret or a name. */
  countScrobble(kind: string, outcome: string): void {
    this.scrobbles.inc({ kind, outcome });
  }

  countPurged(kind: string, rows: number): void {
    if (rows > 0) this.purged.inc({ kind }, rows);
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
