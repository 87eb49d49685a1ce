/**
 * `npm run client:generate`: client/schema.ts from the OpenAPI document a devnet app serves.
 */
import { writeFileSync } from 'node:fs'
import { schemaText } from '../client/generate.js'
import { startDevnetApp } from '../test/src/support/devnetApp.js'

const app = await startDevnetApp()
try {
  const { json } = await app.request('/openapi.json')
  writeFileSync(new URL('../client/schema.ts', import.meta.url), await schemaText(json as object))
} finally {
  await app.close()
}
