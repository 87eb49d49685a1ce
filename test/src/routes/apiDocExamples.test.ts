/**
 * The curl examples of docs/api.md and docs/trace-viewer.md, run over real HTTP (createApp on a
 * free port) against the real engine on the embedded devnet: every example answers success with
 * real data — decoded logs, transfers, an access list, a trace of a demo transaction by its
 * (deterministic) hash, and the stored simulation read back by its id. The examples are parsed
 * from the pages themselves, so the documents and the service cannot drift apart unnoticed.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { DEMO_TOKEN_ADDRESS } from '../../../engine/chains/devnet/demoTransactions.js'
import { createDevnet } from '../../../engine/chains/devnet/devnetChain.js'
import { createEngine } from '../../../engine/index.js'
import type { Engine } from '../../../engine/types.js'
import { createApp } from '../../../src/app.js'
import { createLogger } from '../../../src/logger.js'
import { listen, type Listening } from '../../../host/server.js'

interface Example {
  path: string
  body?: string
}

/** `curl -s $B/<path> [-H "$J"] [-d '<json>']` blocks of the REST pages */
function docExamples(): Example[] {
  const docs = ['api.md', 'trace-viewer.md'].map((page) => readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', page), 'utf8')).join('\n')
  const out: Example[] = []
  for (const m of docs.matchAll(/curl -s \$B(\/[^\s'"|]+)((?:\s+-H "\$J")?(?:\s+-d '([\s\S]*?)')?)/g)) {
    out.push({ path: m[1]!, body: m[3] })
  }
  return out
}

let server: Listening
let engine: Engine
let token: string
let demoHash: string
const examples = docExamples()

beforeAll(async () => {
  const config = loadConfig({ env: { APP_ENV: 'test', RPC_URL: '' } })
  token = config.api.auth_token
  const cache = createMemoryCacheStore()
  engine = await createEngine({
    cache,
    gasCap: BigInt(config.chain.gas_cap),
    rpcTimeoutMs: 5_000,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 600,
  })
  // the demo ERC-20 transfer of block 4 (its hash is the same on every start)
  const devnet = await createDevnet()
  demoHash = devnet.receipts().find((r) => r.blockNumber === 4n)!.transactionHash
  const logger = createLogger({ level: 'silent', secrets: [] })
  server = await listen(createApp({ config, engine, cache, logger }), { host: '127.0.0.1', port: 0 })
}, 60_000)
afterAll(async () => {
  await server?.close(1000)
  await engine?.close()
})

async function run(path: string, body?: string) {
  const res = await fetch(`${server.url}/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  })
  return { status: res.status, json: (await res.json()) as Record<string, any> } // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('the REST pages’ curl examples over HTTP on the devnet', () => {
  it('finds the examples, and the /trace/tx one names the devnet’s real block-4 transfer', () => {
    expect(examples.find((e) => e.path === '/trace/tx')?.body).toContain(demoHash)
    const paths = new Set(examples.map((e) => e.path))
    for (const p of ['/simulate', '/simulate/batch', '/simulate/access-list', '/trace/tx', '/trace/call', '/trace/call-many']) expect(paths).toContain(p)
  })

  it('every POST example answers 200 with success', async () => {
    for (const ex of examples.filter((e) => e.body !== undefined)) {
      const { status, json } = await run(ex.path, ex.body)
      expect({ path: ex.path, status, success: json.success }, JSON.stringify(json).slice(0, 400)).toEqual({ path: ex.path, status: 200, success: true })
    }
  })

  it('/simulate decodes the demo token transfer and stores the result under its id', async () => {
    const ex = examples.find((e) => e.path === '/simulate' && e.body?.includes('"params"'))!
    const { json } = await run(ex.path, ex.body)
    const log = json.data.calls[0].logs[0]
    expect(log.address).toBe(DEMO_TOKEN_ADDRESS)
    expect(log.decoded.summary).toBe('Transfer 1 DEMO from 0xf39f…2266 to 0x7099…79c8')
    expect(json.data.calls[0].transfers[0]).toMatchObject({ type: 'erc20', token: DEMO_TOKEN_ADDRESS })
    // the sender's asset changes, read from balances before and after: 1 DEMO out
    const sender = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
    const demo = json.data.assetChanges.find((a: { account: string; token: string | null }) => a.account === sender && a.token === DEMO_TOKEN_ADDRESS)
    expect(demo).toMatchObject({ type: 'erc20', symbol: 'DEMO', decimals: 18 })
    expect(BigInt(demo.before) - BigInt(demo.after)).toBe(10n ** 18n)
    const stored = await run(`/simulations/${json.data.simulationId}`)
    expect(stored.status).toBe(200)
    expect(stored.json.data).toEqual(json.data)
  })

  it('/simulate/access-list lists the demo token’s balance slots', async () => {
    const ex = examples.find((e) => e.path === '/simulate/access-list')!
    const { json } = await run(ex.path, ex.body)
    expect(json.data.accessList).toEqual([{ address: DEMO_TOKEN_ADDRESS, storageKeys: expect.arrayContaining([expect.stringMatching(/^0x[0-9a-f]{64}$/)]) }])
    expect(json.data.accessList[0].storageKeys).toHaveLength(2)
    expect(BigInt(json.data.gasUsed)).toBeGreaterThan(21_000n)
  })

  it('/trace/tx traces a demo transaction by its hash', async () => {
    const ex = examples.find((e) => e.path === '/trace/tx')!
    const { json } = await run(ex.path, ex.body)
    expect(json.data.callTracer).toMatchObject({ to: DEMO_TOKEN_ADDRESS, type: 'CALL' })
    expect(json.data.callTracer.logs[0].topics[0]).toBe('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef')
  })

  it('/simulate/batch: one summary per item', async () => {
    const ex = examples.find((e) => e.path === '/simulate/batch' && e.body?.trim().startsWith('['))!
    const { json } = await run(ex.path, ex.body)
    expect(json.data).toHaveLength(2)
    for (const item of json.data) expect(item).toMatchObject({ simulationId: expect.stringMatching(/^sim_/), status: 'success' })
  })

  it('an unknown simulation id is 404 NOT_FOUND', async () => {
    const { status, json } = await run('/simulations/sim_00000000-0000-4000-8000-000000000000')
    expect(status).toBe(404)
    expect(json.error.code).toBe('NOT_FOUND')
  })
})
