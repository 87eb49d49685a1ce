/**
 * The service itself (src/main.ts, worker threads and all) serving a named chain configured only
 * from the environment (CHAIN_<NAME>_*): the chain answers under its prefix; a chain id that does
 * not match its upstream fails the start with one line naming the chain; a chain whose upstream is
 * down at start leaves the service starting, and is served once a real Anvil answers on its URL; a
 * chain without an upstream is an embedded devnet of its kind.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { startOpAnvil } from '../support/opAnvil.js'
import { parsePromText, sampleSum } from '../support/promText.js'
import { testToken } from './support/startTestApp.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const haveAnvil = requireAnvil()

function startService(extra: Record<string, string>) {
  const env = { ...process.env, APP_ENV: 'test', PORT: '0', WORKERS: '1', LOG_LEVEL: 'info', ...extra } as Record<string, string>
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const listening = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>
      if (entry.msg === 'listening') resolve(entry.url as string)
    })
    child.once('exit', (code) => reject(Object.assign(new Error(`exited (${code})`), { code, stderr })))
  })
  return { child, listening, stderr: () => stderr }
}

describe.runIf(haveAnvil)('the service with a chain from CHAIN_<NAME>_* variables', () => {
  let op: AnvilInstance
  beforeAll(async () => {
    op = await startOpAnvil('isthmus')
  }, 60_000)
  afterAll(async () => {
    await op?.stop()
  })

  it('serves it under /v1/chains/{name}/ beside the default devnet', async () => {
    const svc = startService({ CHAIN_OP_MAIN_RPC_URL: op.url, CHAIN_OP_MAIN_KIND: 'op-stack', CHAIN_OP_MAIN_CHAIN_ID: '10' })
    try {
      const url = await svc.listening
      const list = (await (await fetch(`${url}/v1/chains`, { headers: { authorization: `Bearer ${testToken}` } })).json()) as {
        data: { name: string; chainId: number; kind: string }[]
      }
      expect(list.data.map((c: { name: string; chainId: number; kind: string }) => [c.name, c.chainId, c.kind])).toEqual([
        ['default', 31337, 'ethereum'],
        ['op-main', 10, 'op-stack'],
      ])
      const rpc = await fetch(`${url}/v1/chains/op-main/rpc/${testToken}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      expect(((await rpc.json()) as { result: string }).result).toBe('0xa')
    } finally {
      const exited = new Promise((resolve) => svc.child.once('exit', resolve))
      svc.child.kill('SIGTERM')
      await exited
    }
  }, 60_000)

  it("refuses to start when a chain's upstream answers another chain id, naming the chain", async () => {
    const svc = startService({ CHAIN_BASE_RPC_URL: op.url, CHAIN_BASE_CHAIN_ID: '8453' })
    const err = (await svc.listening.catch((e: unknown) => e)) as { code: number; stderr: string }
    expect(err.code).toBe(1)
    expect(err.stderr).toMatch(/failed to start: chain 'base': the upstream answers chain id 10, not the configured 8453/)
    expect(err.stderr).not.toContain(op.url)
  }, 60_000)

  it('starts with a chain whose upstream is down, serves it once its Anvil answers, and runs a chain without rpc_url as a devnet of its kind', async () => {
    const port = await freePort()
    const svc = startService({ CHAIN_LATE_RPC_URL: `http://127.0.0.1:${port}`, CHAIN_LATE_CHAIN_ID: '31337', CHAIN_OPDEV_KIND: 'op-stack' })
    let late: AnvilInstance | undefined
    try {
      const url = await svc.listening
      const chains = async () =>
        (
          (await (await fetch(`${url}/v1/chains`, { headers: { authorization: `Bearer ${testToken}` } })).json()) as {
            data: { name: string; status: string; kind: string; network: string }[]
          }
        ).data
      expect((await chains()).map((c) => [c.name, c.status])).toEqual([
        ['default', 'ok'],
        ['late', 'down'],
        ['opdev', 'ok'],
      ])
      expect((await chains()).find((c) => c.name === 'opdev')).toMatchObject({ kind: 'op-stack', network: 'devnet' })
      const down = await fetch(`${url}/v1/chains/late/rpc/${testToken}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      expect(((await down.json()) as { error: { code: number; message: string } }).error).toMatchObject({
        code: -32000,
        message: expect.stringContaining("chain 'late'"),
      })
      // the scrape still answers, the chain's upstream counted down
      const scrape = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${testToken}` } })
      expect(scrape.status).toBe(200)
      expect(sampleSum(parsePromText(await scrape.text()), 'evmsim_upstream_up', { chain: 'late' })).toBe(0)
      late = await startAnvil({ port })
      let status = ''
      for (let i = 0; i < 200 && status !== 'ok'; i++) {
        status = (await chains()).find((c) => c.name === 'late')!.status
        if (status !== 'ok') await new Promise((ok) => setTimeout(ok, 100))
      }
      expect(status).toBe('ok')
      const rpc = await fetch(`${url}/v1/chains/late/rpc/${testToken}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      expect(((await rpc.json()) as { result: string }).result).toBe('0x7a69')
    } finally {
      const exited = new Promise((resolve) => svc.child.once('exit', resolve))
      svc.child.kill('SIGTERM')
      await exited
      await late?.stop()
    }
  }, 90_000)
})
