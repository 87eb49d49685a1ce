/**
 * GET /v1/openapi.json (OpenAPI 3.1, generated from the zod schemas) and GET /v1/openapi/docs,
 * the interactive explorer (interface §1): Swagger UI from the npm package swagger-ui-dist, its
 * JS/CSS served by this service, never a CDN, so it works on a machine with no internet. The
 * validator badge (which calls validator.swagger.io) is off. Authorize works with the bearer
 * scheme and X-API-Key declared in the schema.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { OpenAPIHono } from '@hono/zod-openapi'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'
import { registerSecuritySchemes } from './document.js'

export const explorerPaths = { schema: '/v1/openapi.json', docs: '/v1/openapi/docs', assets: '/v1/openapi/docs/assets/' }

const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

/**
 * `chains`: the named chains a deployment serves besides the default one. Every route answers
 * for one of them under /v1/chains/{name}/ too: the document says so once, as a second server
 * whose `name` variable lists them (the explorer's server picker), not as every path twice.
 */
export function registerExplorer(app: OpenAPIHono<HttpEnv>, info: { version: string; chains?: string[] }): void {
  registerSecuritySchemes(app)
  const chains = info.chains ?? []
  app.doc31(explorerPaths.schema, {
    openapi: '3.1.0',
    ...(chains.length > 0 && {
      servers: [
        { url: '/', description: 'the default chain' },
        {
          url: '/v1/chains/{name}',
          description: 'a named chain (GET /v1/chains): every route, under its prefix',
          variables: { name: { default: chains[0]!, enum: chains } },
        },
      ],
    }),
    info: {
      title: 'EVM simulation and tracing service',
      version: info.version,
      description:
        'Simulate transactions, generate access lists and trace calls with geth-exact tracers. ' +
        'Every response other than health is enveloped: `{success: true, data}` or `{success: false, error: {code, message, details?, suggestion?}}`. ' +
        'When the service has an auth token, send it as `Authorization: Bearer <token>` or `X-API-Key: <token>`. ' +
        'The trace viewer at [/v1/ui](/v1/ui) draws the decoded call tree (tracer `callTree`).',
    },
    tags: [
      { name: 'simulation', description: 'simulate calls, batches and access lists' },
      { name: 'trace', description: 'geth tracers: callTracer, prestateTracer, structLogger, 4byteTracer' },
      { name: 'service', description: 'health' },
      { name: 'json-rpc', description: 'JSON-RPC 2.0: the eth_, debug_ and trace_ methods of geth and reth' },
      { name: 'forks', description: "writable forks: the resource, a development node's JSON-RPC and the REST routes on a fork" },
    ],
  })

  const dist = swaggerUiDir()
  const files = new Map(Object.entries(assets).map(([name, type]) => [name, { body: readFileSync(join(dist, name)), type }]))

  app.get(explorerPaths.docs, (c) => c.html(page()))
  app.get(`${explorerPaths.assets}:file`, (c) => {
    const file = files.get(c.req.param('file') ?? '')
    if (!file) throw new ApiError('NOT_FOUND', 'no such explorer asset')
    return c.body(new Uint8Array(file.body), 200, { 'Content-Type': file.type, 'Cache-Control': 'public, max-age=86400' })
  })
}

/** the installed swagger-ui-dist folder, found the way node resolves the package */
function swaggerUiDir(): string {
  const require = createRequire(import.meta.url)
  return dirname(require.resolve('swagger-ui-dist/package.json'))
}

function page(): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>EVM simulation service: API explorer</title>
  <link rel="icon" type="image/png" href="${explorerPaths.assets}favicon-32x32.png">
  <link rel="stylesheet" href="${explorerPaths.assets}swagger-ui.css">
</head>
<body>
  <p style="margin:8px 20px;font:14px system-ui,sans-serif">Looking at a transaction? The <a href="/v1/ui">trace viewer</a> draws its decoded call tree.</p>
  <div id="swagger-ui"></div>
  <script src="${explorerPaths.assets}swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: '${explorerPaths.schema}',
      dom_id: '#swagger-ui',
      deepLinking: true,
      persistAuthorization: true,
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
    })
  </script>
</body>
</html>`
}
