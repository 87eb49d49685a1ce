/**
 * Run by test/deploy/image.test.ts after its own cases, in the same file (one build, and no
 * containers of another file starting meanwhile): two containers of the service's image over one Redis (the test's own redis-server, reached over
 * host networking) behind a round-robin proxy (test/support/container/roundRobinProxy.ts):
 * - a fork created through one instance is written and read through the other;
 * - one instance stopped (`podman stop`: SIGTERM) while 8 clients send simulations and fork reads and writes
 *   through the proxy: no request fails, and the stopped instance exits 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../support/anvil.js'
import { podmanSpawn } from '../support/container/podman.js'
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/container/roundRobinProxy.js'
import { answers, removeServices, runService, type ServiceContainer } from '../support/container/serviceContainer.js'
import { requireRedisServer, startRedisServer, type RedisServer } from '../support/redisServer.js'

const ACCOUNT = '0x00000000000000000000000000000000000a11ce'
const transfer = JSON.stringify({
  params: {
    calls: [
      {
        from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
        to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        data: '0xa9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000000000000000000000000000000000000000000de0b6b3a7640000',
      },
    ],
  },
})

async function rpc(url: string, forkId: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(`${url}/v1/forks/${forkId}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: unknown; error?: unknown }
  if (res.status !== 200 || body.error !== undefined) throw new Error(`${method}: ${res.status} ${JSON.stringify(body)}`)
  return body.result
}

async function createFork(url: string): Promise<{ forkId: string; headBlockNumber: string }> {
  const res = await fetch(`${url}/v1/forks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  expect(res.status).toBe(201)
  return ((await res.json()) as { data: { forkId: string; headBlockNumber: string } }).data
}

/** the cases over two containers of `imageName()`, built by the caller */
export function twoInstancesSuite(imageName: () => string): void {
  describe.runIf(requireRedisServer())('two instances of the image over one Redis', () => {
    let redis: RedisServer
    let a: ServiceContainer
    let b: ServiceContainer
    let proxy: RoundRobinProxy
    beforeAll(async () => {
      const image = imageName()
      redis = await startRedisServer()
      // one engine thread each: two instances share this machine's cores; no rate limit in the way
      const env = { CACHE_URL: redis.url, WORKERS: '1', RATE_LIMIT_REQUESTS: '1000000' }
      a = runService(image, await freePort(), env)
      b = runService(image, await freePort(), env)
      await Promise.all([answers(a.url, '/v1/health/ready', 60_000), answers(b.url, '/v1/health/ready', 60_000)])
      proxy = await startRoundRobinProxy([a.url, b.url])
    }, 120_000)

    afterAll(async () => {
      await proxy?.close()
      removeServices()
      await redis?.stop()
    })

    it('a fork created through one is written and read through the other', async () => {
      const fork = await createFork(a.url)
      await rpc(b.url, fork.forkId, 'anvil_setBalance', [ACCOUNT, '0x1234'])
      await rpc(b.url, fork.forkId, 'evm_mine')
      expect(await rpc(a.url, fork.forkId, 'eth_getBalance', [ACCOUNT, 'latest'])).toBe('0x1234')
      expect(BigInt((await rpc(a.url, fork.forkId, 'eth_blockNumber')) as string)).toBe(BigInt(fork.headBlockNumber) + 1n)
    }, 60_000)

    it('one stopped with SIGTERM while 8 clients send requests: no request fails', async () => {
      const fork = await createFork(proxy.url)
      const failures: string[] = []
      const backends = new Map<string, number>()
      let running = true
      let sent = 0
      const client = async (n: number) => {
        for (let i = 0; running; i++) {
          sent++
          try {
            if (i % 3 === 0) {
              const res = await fetch(`${proxy.url}/v1/simulate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: transfer })
              const body = (await res.json()) as { data?: { status: string } }
              if (res.status !== 200 || body.data?.status !== 'success') throw new Error(`simulate: ${res.status} ${JSON.stringify(body)}`)
              const backend = res.headers.get('x-backend')!
              backends.set(backend, (backends.get(backend) ?? 0) + 1)
            } else if (i % 3 === 1)
              await rpc(proxy.url, fork.forkId, 'anvil_setBalance', [`0x${n.toString(16).padStart(40, '0')}`, `0x${(i + 1).toString(16)}`])
            else await rpc(proxy.url, fork.forkId, 'eth_getBalance', [ACCOUNT, 'latest'])
          } catch (e) {
            failures.push(String(e))
          }
        }
      }
      const clients = Array.from({ length: 8 }, (_, n) => client(n + 1))
      await new Promise((r) => setTimeout(r, 1500))
      const beforeStop = sent
      // as an operator stops it: the image's STOPSIGNAL (SIGTERM), SIGKILL only after 60 s
      const stop = podmanSpawn(['stop', '-t', '60', a.name])
      expect(await a.exited).toBe(0)
      if (stop.exitCode === null) await new Promise((r) => stop.once('exit', r))
      const atStop = new Map(backends)
      await new Promise((r) => setTimeout(r, 1500))
      running = false
      await Promise.all(clients)
      expect(failures).toEqual([])
      expect(beforeStop).toBeGreaterThan(8)
      expect(sent).toBeGreaterThan(beforeStop)
      // both served before the stop; only the one left served after it
      expect(atStop.get(a.url)).toBeGreaterThan(0)
      expect(backends.get(a.url)).toBe(atStop.get(a.url))
      expect(backends.get(b.url)).toBeGreaterThan(atStop.get(b.url) ?? 0)
      expect(a.logs.some((l) => l.msg === 'stopped')).toBe(true)
    }, 120_000)
  })
}
