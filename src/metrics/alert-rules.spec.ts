import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { MetricsService } from './metrics.service';

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const dir = join(__dirname, '..', '..', 'ops', 'prometheus');

/**
 * The sample Prometheus files of docs/operating.md ("Metrics"), checked without promtool: valid YAML of the rule-file
 * shape, durations Prometheus reads, balanced PromQL, and only series this service exposes.
 */
describe('ops/prometheus', () => {
  const rules = (
    load(readFileSync(join(dir, 'alerts.yml'), 'utf8')) as { groups: { rules: Rule[] }[] }
  ).groups.flatMap((group) => group.rules);

  it('has the three alerts of docs/operating.md: error rate, p99 latency, webhook failures', () => {
    expect(rules.map((rule) => rule.alert)).toEqual([
      'RatingsHighErrorRate',
      'RatingsSlowRequests',
      'RatingsWebhookDeliveriesFailing',
    ]);
    for (const rule of rules) {
      expect(rule.for).toMatch(/^\d+[smh]$/);
      expect(rule.labels.severity).toMatch(/^(page|ticket)$/);
      expect(rule.annotations.summary).toEqual(expect.any(String));
    }
  });

  it('uses only series the service exposes, in balanced expressions', async () => {
    const metrics = new MetricsService();
    const exposed = new Set(
      (await metrics.registry.getMetricsAsJSON()).flatMap((metric) =>
        String(metric.type) === 'histogram'
          ? [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`]
          : [metric.name],
      ),
    );
    for (const rule of rules) {
      let depth = 0;
      for (const char of rule.expr) {
        depth += char === '(' ? 1 : char === ')' ? -1 : 0;
        expect(depth).toBeGreaterThanOrEqual(0);
      }
      expect(depth).toBe(0);
      const series = [...rule.expr.matchAll(/\b([a-z_]+_(?:total|bucket|count|sum))\b/g)].map(
        (match) => match[1],
      );
      expect(series.length).toBeGreaterThan(0);
      expect(series.filter((name) => !exposed.has(name))).toEqual([]);
    }
  });

  it('the scrape config sends METRICS_TOKEN as a bearer token and loads the rules', () => {
    const config = load(readFileSync(join(dir, 'prometheus.yml'), 'utf8')) as {
      rule_files: string[];
      scrape_configs: { metrics_path: string; authorization: { type: string } }[];
    };
    expect(config.rule_files).toEqual(['alerts.yml']);
    expect(config.scrape_configs[0]).toMatchObject({
      metrics_path: '/metrics',
      authorization: { type: 'Bearer' },
    });
  });
});
