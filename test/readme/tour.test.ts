/**
 * The README's one-minute tour, run as written: each `sh` block of the tour runs in bash (curl and
 * jq, as a reader runs it) against the service on the embedded devnet, configured as `npm start`
 * configures it (development), and what it prints must be the `text` block that follows it. The
 * one elision the tour may use is `…` for hex digits left out of a long value; everything else
 * is compared exactly. The viewer's URL must open the page.
 */
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createDevnet } from '../../engine/chains/devnet/devnetChain.js'
import { createEngine } from '../../engine/index.js'
import type { Engine } from '../../engine/types.js'
import { createApp } from '../../src/app.js'
import { createLogger } from '../../src/logger.js'
import { listen, type Listening } from '../../host/server.js'

const root = join(import.meta.dirname, '..', '..')
const README_ORIGIN = 'http://127.0.0.1:8080'
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const start = readme.indexOf('## A one-minute tour')
const tour = readme.slice(start, readme.indexOf('\n## ', start + 5))

const blocks = [...tour.matchAll(/```(sh|text)\n([\s\S]*?)```/g)].map((m) => ({ kind: m[1]!, text: m[2]! }))
const setup = blocks[0]?.text ?? ''
const examples = blocks
  .slice(1)
  .flatMap((b, i, rest) => (b.kind === 'sh' && rest[i + 1]?.kind === 'text' ? [{ command: b.text, printed: rest[i + 1]!.text }] : []))
const viewerUrls = [...tour.matchAll(/<(http:\/\/127\.0\.0\.1:8080\/v1\/ui[^>]*)>/g)].map((m) => m[1]!)

/** the printed output as a pattern: exact, except that `…` stands for hex digits (or is itself) */
export function printedPattern(printed: string): RegExp {
  const exact = printed
    .trimEnd()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${exact.join('(?:…|[0-9a-f]+)')}$`)
}

function hasTool(name: string): boolean {
  try {
    execFileSync('bash', ['-c', `command -v ${name}`], { stdio: 'ignore' })
    return true
  } catch {
    const msg = `${name.toUpperCase()} MISSING: the README tour runs curl and jq; install them (Debian: apt-get install curl jq)`
    if (process.env.CI === 'true') throw new Error(msg)
    console.warn(`\n!!!!! ${msg} !!!!!\n`)
    return false
  }
}
const tools = hasTool('curl') && hasTool('jq')

let server: Listening
let engine: Engine
let demoTransfer: string

beforeAll(async () => {
  // what `npm start` runs with no RPC_URL: the development configuration on the devnet
  const config = loadConfig({ env: { APP_ENV: 'development', RPC_URL: '' } })
  const cache = createMemoryCacheStore()
  engine = await createEngine({
    cache,
    gasCap: BigInt(config.chain.gas_cap),
    rpcTimeoutMs: config.chain.rpc_timeout_ms,
    maxStructLogSteps: config.limits.max_struct_log_steps,
    simulationTtlSeconds: config.cache.simulation_ttl_seconds,
  })
  const devnet = await createDevnet()
  demoTransfer = devnet.receipts().find((r) => r.blockNumber === 4n)!.transactionHash
  const logger = createLogger({ level: 'silent', secrets: [] })
  server = await listen(createApp({ config, engine, cache, logger }), { host: '127.0.0.1', port: 0 })
}, 60_000)
afterAll(async () => {
  await server?.close(1000)
  await engine?.close()
})

const live = (text: string) => text.split(README_ORIGIN).join(server.url)

const bash = (script: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('bash', ['-c', `set -eo pipefail\n${script}`], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })

describe('the README tour', () => {
  it('has what the tour promises: a simulation with asset changes, a trace, an access list, a JSON-RPC call, a wallet preview, sources registered, the viewer', () => {
    expect(setup).toContain(`B=${README_ORIGIN}/v1`)
    const paths = examples.map((e) => /curl -s \$B(\/[\w/-]+)/.exec(e.command)?.[1])
    expect(paths).toEqual(['/simulate', '/trace/tx', '/simulate/access-list', '/rpc', '/simulate', '/simulate/signature', '/sources'])
    // the build-info registered is the devnet's demo contracts' (scripts/compile-demo.ts writes both)
    expect(examples[6]!.command).toContain('scripts/demo-contracts/build-info.json')
    expect(examples[4]!.command).toContain('"traceAssetChanges": true')
    expect(examples[0]!.command).toContain('"traceAssetChanges": true')
    expect(viewerUrls).toHaveLength(1)
    expect(existsSync(join(root, 'docs/trace-viewer.png'))).toBe(true)
  })

  it('compares printed output strictly, `…` standing only for hex digits', () => {
    const p = printedPattern('{"input":"0xa9059cbb…00","summary":"0xf39f…2266"}')
    expect(p.test('{"input":"0xa9059cbb0000ff00","summary":"0xf39f…2266"}')).toBe(true)
    expect(p.test('{"input":"0xa9059cbb0000ff00","summary":"0xf39f…2267"}')).toBe(false)
    expect(p.test('{"input":"0xa9059cbb00", "x":1,"00","summary":"0xf39f…2266"}')).toBe(false)
    expect(printedPattern('{"gasUsed":"0x86a0"}').test('{"gasUsed":"0x86a1"}')).toBe(false)
  })

  it.runIf(tools).each(examples.map((e, i) => [i, e] as const))('example %i prints what the README shows', async (_i, example) => {
    const { code, stdout, stderr } = await bash(`${live(setup)}\n${live(example.command)}`)
    expect(code, stderr).toBe(0)
    expect(stdout.trimEnd()).toMatch(printedPattern(example.printed))
  })

  it('the viewer URL opens the page on the devnet’s block-4 transfer', async () => {
    const url = new URL(viewerUrls[0]!)
    expect(url.searchParams.get('tx')).toBe(demoTransfer)
    const res = await fetch(live(viewerUrls[0]!))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await res.text()).toContain('<script')
  })
})
