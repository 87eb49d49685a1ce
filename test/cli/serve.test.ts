/**
 * `evm-sim serve`: the service as `npm start` runs it, its flags setting their variables over the
 * caller's — it listens on `--port`, serves the chain of `--rpc-url` (a real Anvil of its own
 * chain id), answers /v1/health, and stops on SIGTERM with exit 0; an unknown flag is one line
 * and exit code 2.
 */
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { CLI_MAIN, evmSim, TSX } from '../support/evmSimCli.js'

const CHAIN_ID = 4343

describe.skipIf(!requireAnvil())('evm-sim serve', () => {
  let upstream: AnvilInstance
  beforeAll(async () => {
    upstream = await startAnvil({ chainId: CHAIN_ID })
  }, 60_000)
  afterAll(() => upstream?.stop())

  it('serves the chain of --rpc-url on --port, over the variables of the caller, and stops on SIGTERM', async () => {
    const [port, otherPort] = [await freePort(), await freePort()]
    const env = { ...process.env, PORT: String(otherPort), RPC_URL: '', APP_ENV: 'development', PROCESSES: '1', LOG_LEVEL: 'warn' }
    const child = spawn(process.execPath, ['--import', TSX, CLI_MAIN, 'serve', '--port', String(port), '--rpc-url', upstream.url, '--workers', '1'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += String(d)))
    try {
      let health: { status: number; json: { status: string; chainId: number } } | undefined
      const deadline = Date.now() + 100_000
      while (!health) {
        expect(child.exitCode, stderr).toBeNull()
        expect(Date.now() < deadline, `no answer on ${port}: ${stderr}`).toBe(true)
        health = await fetch(`http://127.0.0.1:${port}/v1/health`)
          .then(async (r) => ({ status: r.status, json: (await r.json()) as { status: string; chainId: number } }))
          .catch(() => undefined)
        if (!health) await new Promise((r) => setTimeout(r, 200))
      }
      expect(health.status).toBe(200)
      expect(health.json).toMatchObject({ status: 'ok', chainId: CHAIN_ID })
      // the variable the flag overrode is not listened on
      expect(await fetch(`http://127.0.0.1:${otherPort}/v1/health`).catch(() => 'refused')).toBe('refused')
    } finally {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    }
  }, 150_000)

  it('refuses an unknown flag with one line, exit 2', async () => {
    const r = await evmSim(['serve', '--fork-url', upstream.url])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^evm-sim: .*fork-url.*\n$/)
  }, 60_000)
})
