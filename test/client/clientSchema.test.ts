/**
 * client/schema.ts is what openapi-typescript makes today of the document the running service
 * serves (GET /v1/openapi.json), formatted as the repository formats it: a route or schema
 * changed without `npm run client:generate` fails here.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { schemaText } from '../../client/generate.js'
import { startDevnetApp, type DevnetApp } from '../src/support/devnetApp.js'

let app: DevnetApp
beforeAll(async () => {
  app = await startDevnetApp()
}, 60_000)
afterAll(() => app?.close())

it('regenerating the client types from the served OpenAPI document gives no diff', async () => {
  const { status, json } = await app.request('/openapi.json')
  expect(status).toBe(200)
  const generated = await schemaText(json as object)
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome')
  const formatted = spawnSync(process.execPath, [biome, 'format', '--stdin-file-path=client/schema.ts'], { input: generated, encoding: 'utf8' })
  expect(formatted.status, formatted.stderr).toBe(0)
  expect(formatted.stdout).toBe(readFileSync(new URL('../../client/schema.ts', import.meta.url), 'utf8'))
}, 60_000)
