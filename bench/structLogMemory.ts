/**
 * Peak memory of a one-million-step struct-log trace, end to end through the HTTP app (engine,
 * tracer, JSON response), on the embedded devnet. The loop contract is put in place with a state
 * override, so no deployment is needed. Anvil runs the same trace (debug_traceCall with the same
 * override) in the same run, for its time and peak RSS. Run: `npx tsx bench/structLogMemory.ts [steps]`.
 */
import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { startAnvil } from '../test/support/anvil.js'
import { loadConfig } from '../config/loadConfig.js'
import { createMemoryCacheStore } from '../host/cache/memoryCacheStore.js'
import { createEngine } from '../engine/index.js'
import { createApp } from '../src/app.js'
import { createLogger } from '../src/logger.js'

const steps = Number(process.argv[2] ?? 1_000_000)
// PUSH3 n; JUMPDEST; PUSH1 1; SWAP1; SUB; DUP1; PUSH1 4; JUMPI; STOP — 7 steps per iteration
const iterations = Math.ceil((steps - 3) / 7)
const code = `0x62${iterations.toString(16).padStart(6, '0')}5b600190038060045700`
const LOOP = '0x00000000000000000000000000000000000100ff'

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0)

async function main() {
  const config = loadConfig({ env: { ...process.env, APP_ENV: 'test', AUTH_TOKEN: '', RPC_URL: '' } })
  const cache = createMemoryCacheStore()
  const engine = await createEngine({
    cache,
    gasCap: 50_000_000n,
    rpcTimeoutMs: 10_000,
    maxStructLogSteps: Math.max(steps + 10, 1_000_000),
    simulationTtlSeconds: 60,
  })
  const app = createApp({ config: { ...config, api: { ...config.api, auth_token: '' } }, engine, cache, logger: createLogger({ level: 'error', secrets: [] }) })
  const before = process.memoryUsage().rss
  for (const cfg of [{ disableMemory: true }, { cleanStructLogs: true }] as const) {
    const t = performance.now()
    const res = await app.request('/v1/trace/call', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        call: { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: LOOP, data: '0x', gas: '0x2faf080' },
        stateOverrides: { [LOOP]: { code } },
        tracerConfig: { structLogger: cfg },
      }),
    })
    const text = await res.text()
    const ms = performance.now() - t
    const logs = (text.match(/"pc":/g) ?? []).length
    console.log(`structLogger ${JSON.stringify(cfg)}: HTTP ${res.status}, ${logs} steps, response ${mb(text.length)} MB, ${(ms / 1000).toFixed(1)} s`)
  }
  const peak = process.resourceUsage().maxRSS * 1024
  console.log(`peak RSS ${mb(peak)} MB (process start ${mb(before)} MB)`)
  await engine.close()
  await anvilRun()
}

/** the same trace on Anvil, with its peak RSS from /proc (VmHWM) */
async function anvilRun() {
  const anvil = await startAnvil()
  try {
    const pid = execSync(`pgrep -f "anvil.*--port ${anvil.port}"`).toString().trim().split('\n')[0]
    const peakKb = () => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)![1])
    const t = performance.now()
    const res = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'debug_traceCall',
        params: [
          { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: LOOP, data: '0x', gas: '0x2faf080' },
          'latest',
          { disableMemory: true, stateOverrides: { [LOOP]: { code } } },
        ],
      }),
    })
    const text = await res.text()
    const ms = performance.now() - t
    console.log(
      `Anvil debug_traceCall {"disableMemory":true}: ${(text.match(/"pc":/g) ?? []).length} steps, response ${mb(text.length)} MB, ${(ms / 1000).toFixed(1)} s, peak RSS ${mb(peakKb() * 1024)} MB`,
    )
  } finally {
    await anvil.stop()
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e)
    process.exit(1)
  },
)
