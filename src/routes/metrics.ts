/**
 * GET /metrics: the instance's Prometheus metrics in the text format (host/metrics/), behind the
 * same bearer token as the API (docs/decisions/0086-metrics-endpoint.md). Not under a chain's prefix:
 * every chain is in it, by its `chain` label.
 *
 * @example
 * registerMetrics(app, { metrics })
 * // curl -H "authorization: Bearer $TOKEN" localhost:8080/metrics
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { ServiceMetrics } from '../../host/metrics/serviceMetrics.js'
import type { HttpEnv } from '../httpEnv.js'

export const METRICS_PATH = '/metrics'

export function registerMetrics(app: OpenAPIHono<HttpEnv>, opts: { metrics: Pick<ServiceMetrics, 'exposition' | 'contentType'> }): void {
  app.get(METRICS_PATH, async (c) => c.body(await opts.metrics.exposition(), 200, { 'Content-Type': opts.metrics.contentType }))
}
