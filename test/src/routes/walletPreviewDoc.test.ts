/**
 * The examples of docs/wallet-preview.md (the README's wallet-preview example among them), run
 * over real HTTP against the real engine on the embedded devnet: each answer, through the page's
 * own `jq '.data | {…}'` selection, equals the output the page shows. The examples are parsed
 * from the page itself, so the document and the service cannot drift apart unnoticed.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDevnetApp, type DevnetApp } from '../support/devnetApp.js'

interface Example {
  path: string
  body: string
  select: (data: unknown) => unknown
  output: unknown
}

function pageExamples(): Example[] {
  const page = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'wallet-preview.md'), 'utf8')
  const re = /curl -s \$B(\/\S+) -H "\$J" -d '([^']*)' \\\n\s*\| jq '\.data \| \{([^}]*)\}'\n```\n\n```json\n([\s\S]*?)\n```/g
  const full = [...page.matchAll(re)].map((m) => ({ path: m[1]!, body: m[2]!, select: selectKeys(m[3]!), output: JSON.parse(m[4]!) as unknown }))
  // the short form: `| jq -c '[.data.<list>[].<field>]'` and its answer as a `# ` line
  const short = /curl -s \$B(\/\S+) -H "\$J" -d '([^']*)' \\\n\s*\| jq -c '\[\.data\.(\w+)\[\]\.(\w+)\]'\n# (.*)\n/g
  const shortOnes = [...page.matchAll(short)].map((m) => ({ path: m[1]!, body: m[2]!, select: pluck(m[3]!, m[4]!), output: JSON.parse(m[5]!) as unknown }))
  return [...shortOnes, ...full]
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Data = any
const selectKeys = (list: string) => (data: Data) =>
  Object.fromEntries(
    list
      .split(',')
      .map((k) => k.trim())
      .map((k) => [k, data[k]]),
  )
const pluck = (list: string, field: string) => (data: Data) => (data[list] as Data[]).map((e) => e[field])

const examples = pageExamples()
let app: DevnetApp

beforeAll(async () => {
  app = await startDevnetApp()
}, 60_000)
afterAll(async () => app?.close())

describe('docs/wallet-preview.md examples on the devnet', () => {
  it('the page holds the short form, the whole simulation and the Permit2 signature examples', () => {
    expect(examples.map((e) => e.path)).toEqual(['/simulate', '/simulate', '/simulate/signature'])
  })

  for (const [i, example] of examples.entries()) {
    it(`example ${i + 1}: POST ${example.path} answers what the page shows`, async () => {
      const { status, json } = await app.request(example.path, example.body)
      expect(status, JSON.stringify(json)).toBe(200)
      expect(example.select(json.data)).toEqual(example.output)
    })
  }
})
