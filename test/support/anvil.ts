/**
 * Starts a real Anvil (npm `@foundry-rs/anvil-linux-amd64`, run directly) on 127.0.0.1 for a test
 * file. Missing locally: the test says so loudly; under CI=true a missing Anvil is a failure.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createServer } from 'node:net'

const require = createRequire(import.meta.url)

export function anvilBinary(): string | undefined {
  try {
    const pkg = require.resolve('@foundry-rs/anvil-linux-amd64/package.json')
    const bin = join(dirname(pkg), 'bin', 'anvil')
    return existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
}

/** Throws under CI when Anvil is missing; locally prints a loud warning and returns false. */
export function requireAnvil(): boolean {
  if (anvilBinary()) return true
  const msg = 'ANVIL MISSING: @foundry-rs/anvil-linux-amd64 is not installed; Anvil-backed tests cannot run'
  if (process.env.CI === 'true') throw new Error(msg)
  console.warn(`\n!!!!! ${msg} !!!!!\n`)
  return false
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })
}

export interface AnvilInstance {
  url: string
  port: number
  /** the anvil process (the bench reads its CPU use) */
  pid: number
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>
  stop(): Promise<void>
}

export interface AnvilOptions {
  /** extra CLI args, e.g. ['--hardfork', 'cancun'] */
  args?: string[]
  chainId?: number
  /** a port chosen ahead (a URL configured before the node starts); default: a free one */
  port?: number
}

export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilInstance> {
  const bin = anvilBinary()
  if (!bin) throw new Error('Anvil binary not found (npm i @foundry-rs/anvil-linux-amd64)')
  const port = opts.port ?? (await freePort())
  const args = ['--host', '127.0.0.1', '--port', String(port), '--steps-tracing', '--silent', '--chain-id', String(opts.chainId ?? 31337), ...(opts.args ?? [])]
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (d) => (stderr += String(d)))
  const url = `http://127.0.0.1:${port}`
  let id = 0
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    })
    const body = (await res.json()) as { result?: T; error?: { message: string; data?: unknown } }
    if (body.error) throw Object.assign(new Error(`${method}: ${body.error.message}`), { data: body.error.data })
    return body.result as T
  }
  const deadline = Date.now() + 20_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited early: ${stderr}`)
    try {
      await rpc('eth_chainId')
      break
    } catch {
      if (Date.now() > deadline) throw new Error(`anvil did not start on ${url}: ${stderr}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return {
    url,
    port,
    pid: child.pid!,
    rpc,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/** a sent transaction's receipt: Anvil mines it at once, but its receipt is readable only a moment later */
export async function receiptOf<T = { contractAddress: `0x${string}` | null; status: `0x${string}`; blockNumber: `0x${string}` }>(
  anvil: Pick<AnvilInstance, 'rpc'>,
  hash: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const receipt = await anvil.rpc<T | null>('eth_getTransactionReceipt', [hash])
    if (receipt) return receipt
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The ten well-known development accounts (mnemonic "test test ... junk"). */
export const DEV_ACCOUNTS = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
  '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
  '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc',
  '0x976ea74026e726554db657fa54763abd0c3a0aa9',
  '0x14dc79964da2c08b23698b3d3cc7ca32193d9955',
  '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
  '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
] as const
