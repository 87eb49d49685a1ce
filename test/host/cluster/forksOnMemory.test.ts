/**
 * Several HTTP processes on memory:// (the real entry point, PROCESSES=2): each process would hold
 * forks of its own, so a fork created through one would be unknown to the next request's. Every
 * fork route answers 503 FORKS_UNAVAILABLE saying to set CACHE_URL=redis://, and no fork is made.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../config/loadConfig.js'
import { freePort } from '../../support/anvil.js'

const root = new URL('../../../', import.meta.url)
const token = loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token

describe('PROCESSES=2 on memory://: writable forks', () => {
  let child: ChildProcess | undefined
  afterAll(() => {
    if (child?.exitCode === null) child.kill('SIGKILL')
  })

  it('are refused with what to change, on every process', async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: { ...process.env, APP_ENV: 'test', PORT: String(port), PROCESSES: '2', WORKERS: '1', RPC_URL: '', CACHE_URL: 'memory://', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const proc = child
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        if ((JSON.parse(line) as { msg?: string }).msg === 'HTTP processes listening') resolve()
      })
      proc.once('exit', (code) => reject(new Error(`the service exited (${code})`)))
    })
    const call = async (method: string, path: string, body?: unknown) => {
      // a new connection each time: the cluster's round robin hands them to both processes
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', connection: 'close' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      })
      return { status: res.status, json: (await res.json()) as { success: boolean; error: { code: string | number; message: string; suggestion?: string } } }
    }
    for (let i = 0; i < 4; i++) {
      const created = await call('POST', '/v1/forks', {})
      expect(created.status).toBe(503)
      expect(created.json.error.code).toBe('FORKS_UNAVAILABLE')
      expect(created.json.error.message).toMatch(/shared cache store with 2 HTTP processes/)
      expect(created.json.error.suggestion).toMatch(/CACHE_URL=redis:\/\//)
    }
    expect((await call('GET', '/v1/forks')).json.error.code).toBe('FORKS_UNAVAILABLE')
    const rpc = await call('POST', '/v1/forks/fork_3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d/rpc', { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })
    // a JSON-RPC client is told in its own dialect: an error object with the same text
    expect(rpc.json.error.message).toMatch(/shared cache store with 2 HTTP processes/)
    // the rest of the service answers as usual
    expect((await fetch(`${url}/v1/health`)).status).toBe(200)
  }, 120_000)
})
