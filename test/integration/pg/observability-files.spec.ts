import { register } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestSchema, describeWithDatabase } from '../../fixtures/database.js';
import { OBSERVABILITY_FILES, referencedSeries } from '../../fixtures/observability-files.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/** The series a registered metric exposes: histograms add _bucket, _sum and _count. */
function seriesOf(metric: { name: string; type: string }): string[] {
  return metric.type === 'histogram'
    ? [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`]
    : [metric.name];
}

describeWithDatabase('the Grafana dashboard and Prometheus rules use only metrics QueueBox registers', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startQueueBoxApp(await createTestSchema(), {
      destinations: { sink: { type: 'http', url: 'http://127.0.0.1:9/unused' } },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it.each(OBSERVABILITY_FILES)('%s', async (file) => {
    const metrics = await register.getMetricsAsJSON();
    const registered = new Set(
      metrics
        .filter((metric) => metric.name.startsWith('queuebox_'))
        .flatMap((metric) => seriesOf({ name: metric.name, type: String(metric.type) })),
    );
    const referenced = referencedSeries(file);
    expect(referenced.length).toBeGreaterThan(10);
    expect(referenced.filter((name) => !registered.has(name))).toEqual([]);
  });
});
