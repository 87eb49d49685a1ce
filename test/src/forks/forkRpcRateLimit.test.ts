/**
 * A fork's JSON-RPC endpoint counts in a rate-limit bucket of its own
 * (docs/decisions/0102-fork-endpoint-rate-limit.md): on the development defaults a test runner's
 * hundreds of state reads pass where the REST limit of 100 a minute would refuse them; a low fork
 * limit refuses with a JSON-RPC error -32005 and Retry-After; the two buckets never spend each
 * other; a batch counts once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../config/loadConfig.js'
import { isForkRpcPath } from '../../../src/rpc/pathToken.js'
import { cast, requireCast } from '../../support/cast.js'
import { startForkApp, type ForkApp } from './forkApp.js'

/** the demo ERC-20 the devnet deploys at start (docs/interface.md §12): code and storage to read */
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const ACCOUNTS = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
]
const hex = (n: number) => `0x${n.toString(16)}`

/** the i-th read of a test runner's kind: a balance, a storage slot or an account's code */
function read(i: number) {
  const account = ACCOUNTS[i % ACCOUNTS.length]!
  const params = [
    [account, 'latest'],
    [TOKEN, hex(i % 8), 'latest'],
    [i % 2 ? TOKEN : account, 'latest'],
  ][i % 3]
  return { jsonrpc: '2.0', id: i, method: ['eth_getBalance', 'eth_getStorageAt', 'eth_getCode'][i % 3]!, params }
}

/** one POST of a JSON-RPC body to `url`: status, headers and JSON answer */
async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  // loosely typed: the tests assert on its shape
  const json: any = await res.json()
  return { status: res.status, headers: res.headers, json }
}

/** `count` calls of `one`, `width` at a time, in order */
async function inWaves<T>(count: number, width: number, one: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < count; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, k) => one(i + k)))))
  return out
}

describe('which paths count in the fork JSON-RPC bucket', () => {
  it('a fork endpoint, with a token in the path or under a chain prefix; nothing else', () => {
    for (const path of [
      '/v1/forks/fork_1/rpc',
      '/v1/forks/fork_1/rpc/s3cret',
      '/v1/chains/base/v1/forks/fork_1/rpc',
      '/v1/chains/base/forks/fork_1/rpc/s3cret',
    ])
      expect(isForkRpcPath(path), path).toBe(true)
    for (const path of [
      '/v1/rpc',
      '/v1/rpc/s3cret',
      '/v1/forks',
      '/v1/forks/fork_1',
      '/v1/forks/fork_1/simulate',
      '/v1/forks/fork_1/trace/tx',
      '/v1/forks/fork_1/rpcx',
    ])
      expect(isForkRpcPath(path), path).toBe(false)
  })
})

describe('a fork JSON-RPC endpoint on the development defaults', () => {
  let app: ForkApp
  let rpcUrl: string
  let forkId: string
  beforeAll(async () => {
    // the development configuration as shipped: REST 100 a minute, the fork endpoint its own limit
    app = await startForkApp({ env: { APP_ENV: 'development', RATE_LIMIT_REQUESTS: String(loadConfig({ env: {} }).api.rate_limit_requests) } })
    const created = await app.request('POST', '/v1/forks', {})
    forkId = created.json.data.forkId
    rpcUrl = created.json.data.rpcUrl
  })
  afterAll(async () => app?.close())

  it('runs on the shipped development limits', () => {
    const shipped = loadConfig({ env: {} }).api
    expect(shipped).toMatchObject({
      rate_limit_requests: 100,
      rate_limit_duration: 60,
      fork_rpc_rate_limit_requests: 100_000,
      fork_rpc_rate_limit_duration: 60,
    })
    expect(app.config.api).toMatchObject(shipped)
  })

  it('answers several hundred reads and batches of reads from one client, none refused, without spending the REST limit', async () => {
    const singles = await inWaves(400, 16, (i) => post(rpcUrl, read(i)))
    const batches = await inWaves(40, 8, (b) =>
      post(
        rpcUrl,
        Array.from({ length: 10 }, (_, k) => read(b * 10 + k)),
      ),
    )
    for (const r of [...singles, ...batches]) expect(r.status).toBe(200)
    for (const r of singles) expect(r.json.error).toBeUndefined()
    for (const r of batches) for (const item of r.json) expect(item.error).toBeUndefined()
    expect(singles[0]!.headers.get('ratelimit-limit')).toBe('100000')
    // 440 HTTP requests on the fork endpoint, more than the REST limit of 100 would let through
    const last = batches.at(-1)!.headers
    expect(Number(last.get('ratelimit-remaining'))).toBeLessThanOrEqual(100_000 - 440)
    // the REST bucket counted only the fork's creation
    const rest = await fetch(`${app.url}/v1/forks/${forkId}`)
    expect(rest.status).toBe(200)
    expect(rest.headers.get('ratelimit-limit')).toBe('100')
    expect(rest.headers.get('ratelimit-remaining')).toBe('98')
  })
})

describe('a fork JSON-RPC endpoint with a low limit of its own', () => {
  let app: ForkApp
  let forkId: string
  beforeAll(async () => {
    app = await startForkApp({ env: { RATE_LIMIT_REQUESTS: '4', FORK_RPC_RATE_LIMIT_REQUESTS: '3', FORK_RPC_RATE_LIMIT_DURATION: '30' } })
    forkId = (await app.createFork()).forkId
  })
  afterAll(async () => app?.close())

  const token = () => app.config.api.auth_token
  const rpcPath = () => `${app.url}/v1/forks/${forkId}/rpc`

  it('takes the limit from FORK_RPC_RATE_LIMIT_REQUESTS and FORK_RPC_RATE_LIMIT_DURATION', () => {
    expect(app.config.api).toMatchObject({ rate_limit_requests: 4, fork_rpc_rate_limit_requests: 3, fork_rpc_rate_limit_duration: 30 })
  })

  it('counts a batch once, counts the path-token URL in the same bucket, then refuses with -32005 and Retry-After', async () => {
    // the REST bucket spent to its end first: the fork endpoint does not notice
    for (let i = 0; i < 3; i++) expect((await app.request('GET', `/v1/forks/${forkId}`)).status).toBe(200)
    expect((await app.request('GET', `/v1/forks/${forkId}`)).status).toBe(429)

    const auth = { authorization: `Bearer ${token()}` }
    const batch = await post(
      rpcPath(),
      Array.from({ length: 20 }, (_, i) => read(i)),
      auth,
    )
    expect(batch.status).toBe(200)
    expect(batch.json).toHaveLength(20)
    expect(batch.headers.get('ratelimit-limit')).toBe('3')
    expect(batch.headers.get('ratelimit-remaining')).toBe('2')
    const single = await post(rpcPath(), read(1), auth)
    expect(single.json.result).toMatch(/^0x/)
    expect(single.headers.get('ratelimit-remaining')).toBe('1')
    // a tool that cannot send headers puts the token in the path: the same bucket
    const inPath = await post(`${rpcPath()}/${token()}`, read(2))
    expect(inPath.json.result).toMatch(/^0x/)
    expect(inPath.headers.get('ratelimit-remaining')).toBe('0')

    const refused = await post(rpcPath(), read(3), auth)
    expect(refused.status).toBe(429)
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32005, message: 'fork JSON-RPC rate limit of 3 requests per 30s exceeded' },
    })
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(30)
    expect((await post(`${rpcPath()}/${token()}`, read(4))).json.error.code).toBe(-32005)
  })

  it('leaves the REST answers as they are: their own 429, their own limit in the headers', async () => {
    const rest = await fetch(`${app.url}/v1/forks/${forkId}`, { headers: { authorization: `Bearer ${token()}` } })
    expect(rest.status).toBe(429)
    expect(rest.headers.get('ratelimit-limit')).toBe('4')
    expect(((await rest.json()) as { error: unknown }).error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      message: 'rate limit of 4 requests per 60s exceeded',
    })
  })
})

describe('a fork JSON-RPC endpoint does not spend the REST bucket', () => {
  let app: ForkApp
  beforeAll(async () => {
    app = await startForkApp({ env: { RATE_LIMIT_REQUESTS: '3', FORK_RPC_RATE_LIMIT_REQUESTS: '50' } })
  })
  afterAll(async () => app?.close())

  it('fork JSON-RPC requests past the REST limit leave REST requests their whole budget', async () => {
    const { forkId } = await app.createFork()
    for (let i = 0; i < 10; i++) expect((await app.rpc(forkId, 'eth_blockNumber')).status).toBe(200)
    // the creation and these two: 3, the REST limit, all let through
    expect((await app.request('GET', `/v1/forks/${forkId}`)).status).toBe(200)
    expect((await app.request('GET', '/v1/forks')).status).toBe(200)
    expect((await app.request('GET', '/v1/forks')).status).toBe(429)
  })
})

describe('Foundry cast on a fork, on the development defaults', () => {
  const hasCast = requireCast()
  let app: ForkApp
  beforeAll(async () => {
    app = await startForkApp({ env: { APP_ENV: 'development', RATE_LIMIT_REQUESTS: '100' } })
  })
  afterAll(async () => app?.close())

  it.runIf(hasCast)(
    'several hundred cast reads, a send and a cast run of it: none refused',
    async () => {
      const created = await app.request('POST', '/v1/forks', {})
      const rpc = ['--rpc-url', created.json.data.rpcUrl as string]
      const reads = await inWaves(300, 6, (i) => {
        const account = ACCOUNTS[i % ACCOUNTS.length]!
        if (i % 3 === 0) return cast(['balance', account, ...rpc])
        if (i % 3 === 1) return cast(['storage', TOKEN, String(i % 8), ...rpc])
        return cast(['nonce', account, ...rpc])
      })
      expect(reads.filter((r) => r.trim() === '')).toEqual([])
      const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
      const sent = JSON.parse(await cast(['send', '--private-key', key, '--json', ...rpc, TOKEN, 'transfer(address,uint256)', ACCOUNTS[1]!, '5']))
      expect(sent.status).toBe('0x1')
      const run = await cast(['run', sent.transactionHash, '--decode-internal', ...rpc], { timeoutMs: 120_000 })
      expect(run).toMatch(/Transaction successfully executed/)
      // the REST bucket counted only the fork's creation
      const rest = await fetch(`${app.url}/v1/forks/${created.json.data.forkId}`)
      expect(rest.headers.get('ratelimit-remaining')).toBe('98')
    },
    300_000,
  )
})
