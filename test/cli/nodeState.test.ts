/**
 * `evm-sim node --state <file>`: the state is written to the file at exit (Ctrl-C) as Anvil's
 * `--state` writes it, and a node started again on the file sees the same balances, nonces, code
 * and storage — a sender's spent balance included, not reset to `--balance`.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS, freePort } from '../support/anvil.js'
import { CLI_MAIN, TSX } from '../support/evmSimCli.js'

const A0 = DEV_ACCOUNTS[0]
const SINK = '0x000000000000000000000000000000000000d00d'
const STORE = '0x00000000000000000000000000000000000057a7'

async function startNode(state: string) {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, ['--import', TSX, CLI_MAIN, 'node', '--port', String(port), '--state', state, '--silent'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  let id = 0
  const rpc = async (method: string, params: unknown[] = []): Promise<unknown> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    })
    const answer = (await res.json()) as { result?: unknown; error?: { message: string } }
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`)
    return answer.result
  }
  const deadline = Date.now() + 100_000
  while (!(await rpc('eth_blockNumber').catch(() => undefined))) {
    expect(child.exitCode).toBeNull()
    expect(Date.now() < deadline).toBe(true)
    await new Promise((r) => setTimeout(r, 100))
  }
  const stop = () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGINT')))
  return { rpc, stop }
}

describe('evm-sim node --state', () => {
  it('dumps the state at exit and loads it at the next start', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'evm-sim-state-')), 'state.json')
    const first = await startNode(state)
    await first.rpc('eth_sendTransaction', [{ from: A0, to: SINK, value: '0xde0b6b3a7640000' }])
    await first.rpc('anvil_setCode', [STORE, '0x600160005500'])
    await first.rpc('anvil_setStorageAt', [STORE, '0x1', `0x${'ab'.padStart(64, '0')}`])
    const read = async (rpc: (m: string, p?: unknown[]) => Promise<unknown>) => ({
      sender: await rpc('eth_getBalance', [A0, 'latest']),
      senderNonce: await rpc('eth_getTransactionCount', [A0, 'latest']),
      sink: await rpc('eth_getBalance', [SINK, 'latest']),
      code: await rpc('eth_getCode', [STORE, 'latest']),
      slot: await rpc('eth_getStorageAt', [STORE, '0x1', 'latest']),
    })
    const before = await read(first.rpc)
    expect(before.sink).toBe('0xde0b6b3a7640000')
    expect(await first.stop()).toBe(0)
    expect(existsSync(state)).toBe(true)
    // Anvil's state file: accounts by address, with balance, nonce, code and storage
    const saved = JSON.parse(readFileSync(state, 'utf8')) as { accounts: Record<string, { balance: string; code: string; storage: Record<string, string> }> }
    const stored = Object.entries(saved.accounts).find(([address]) => address.toLowerCase() === STORE)?.[1]
    expect(stored?.code).toBe('0x600160005500')
    const second = await startNode(state)
    try {
      expect(await read(second.rpc)).toEqual(before)
    } finally {
      expect(await second.stop()).toBe(0)
    }
  }, 240_000)
})
