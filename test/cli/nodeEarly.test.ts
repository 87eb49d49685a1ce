/**
 * A development node binds its port before its engine loads: `eth_chainId` is answered from what
 * the flags and the upstream tell (the devnet's id, `--chain-id`, the forked chain's), every other
 * request waits for the app and is then answered by it; with a token or a rate limit asked for,
 * nothing is answered early.
 */
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEVNET_CHAIN_ID as ENGINE_DEVNET_CHAIN_ID } from '../../engine/chains/memory/accounts.js'
import { listenAhead, type ListeningAhead } from '../../host/server.js'
import { DEVNET_CHAIN_ID, earlyAnswers } from '../../src/cli/nodeEarly.js'
import { nodeFlags, type NodeFlags } from '../../src/cli/nodeFlags.js'
import { freePort, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'

const flags = (argv: string[]) => nodeFlags(argv) as NodeFlags
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    json: (await r.json()) as { id?: unknown; result?: unknown },
  }))
const chainIdCall = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] })

describe('earlyAnswers', () => {
  const ask = (f: NodeFlags, body: unknown, path = '/') =>
    earlyAnswers(f)(new Request(`http://node${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))

  it("answers the devnet's chain id as the engine knows it, with the caller's id", async () => {
    expect(DEVNET_CHAIN_ID).toBe(ENGINE_DEVNET_CHAIN_ID)
    const answer = await ask(flags([]), chainIdCall('a'))
    expect(await answer!.json()).toEqual({ jsonrpc: '2.0', id: 'a', result: `0x${DEVNET_CHAIN_ID.toString(16)}` })
  })

  it('answers --chain-id', async () => {
    expect(await (await ask(flags(['--chain-id', '777']), chainIdCall(3)))!.json()).toMatchObject({ id: 3, result: '0x309' })
  })

  it('leaves other methods, batches, other paths and malformed calls to the engine', async () => {
    const f = flags([])
    expect(await ask(f, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })).toBeUndefined()
    expect(await ask(f, [chainIdCall(1)])).toBeUndefined()
    expect(await ask(f, chainIdCall(1), '/v1/health')).toBeUndefined()
    expect(await ask(f, { id: 1, method: 'eth_chainId' })).toBeUndefined()
    expect(await ask(f, { ...chainIdCall(1), params: ['x'] })).toBeUndefined()
  })

  it('answers nothing early when a token or a rate limit is asked for', async () => {
    expect(await ask(flags(['--auth-token', 'secret']), chainIdCall(1))).toBeUndefined()
    expect(await ask(flags(['--rate-limit', '5']), chainIdCall(1))).toBeUndefined()
  })

  describe.skipIf(!requireAnvil())('of a fork', () => {
    let upstream: AnvilInstance
    beforeAll(async () => {
      upstream = await startAnvil({ chainId: 4242 })
    }, 60_000)
    afterAll(() => upstream?.stop())

    it("answers the forked chain's id, asked of the upstream", async () => {
      expect(await (await ask(flags(['--fork-url', upstream.url]), chainIdCall(1)))!.json()).toMatchObject({ result: '0x1092' })
    })

    it('leaves the question to the engine when the upstream does not answer', async () => {
      expect(await ask(flags(['--fork-url', 'http://127.0.0.1:9']), chainIdCall(1))).toBeUndefined()
    })
  })
})

describe('listenAhead', () => {
  let server: ListeningAhead
  beforeAll(async () => {
    server = await listenAhead(earlyAnswers(flags([])), { host: '127.0.0.1', port: 0 })
  })
  afterAll(() => server?.close(0))

  it('answers eth_chainId before the app comes, and holds the rest until it does', async () => {
    expect((await post(server.url, chainIdCall(1))).json.result).toBe('0x7a69')
    let held = false
    const waiting = post(server.url, { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] }).then((a) => ((held = true), a))
    await new Promise((r) => setTimeout(r, 200))
    expect(held).toBe(false)
    server.serve({ fetch: async (req) => Response.json({ jsonrpc: '2.0', id: ((await req.json()) as { id: number }).id, result: '0x2a' }) })
    expect((await waiting).json).toEqual({ jsonrpc: '2.0', id: 2, result: '0x2a' })
    // once the app is there, it answers everything, eth_chainId included
    expect((await post(server.url, chainIdCall(3))).json.result).toBe('0x2a')
  })
})

describe('evm-sim node', () => {
  it('answers eth_chainId while its engine loads, then the engine answers the same id', async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
    const child = spawn(
      process.execPath,
      ['--import', createRequire(import.meta.url).resolve('tsx'), main, 'node', '--port', String(port), '--chain-id', '777'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    let out = ''
    child.stdout.on('data', (d) => (out += String(d)))
    try {
      let early: { result?: unknown } | undefined
      while (!early) {
        expect(child.exitCode).toBeNull()
        early = await post(url, chainIdCall(1))
          .then((a) => a.json)
          .catch(() => undefined)
        // the start-up lines come once the engine is up: none yet when the first answer comes
        if (early) expect(out).not.toContain('Listening on')
        else await new Promise((r) => setTimeout(r, 20))
      }
      expect(early.result).toBe('0x309')
      const block = await post(url, { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] })
      expect(block.json.result).toMatch(/^0x[0-9a-f]+$/)
      expect((await post(url, chainIdCall(3))).json.result).toBe('0x309')
    } finally {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGINT')
      expect(await exited).toBe(0)
    }
  }, 120_000)
})
