/**
 * deploy/compose.yaml brought up as its header tells an operator to: `up -d` (podman-compose from
 * Debian, podman's settings for this machine in a test-local containers.conf: podmanCompose.ts)
 * on a copy of deploy/ whose sim.env is sim.env.example with a fresh token, the host port chosen
 * by EVM_SIM_PORT. The images are the ones the file names: the service's as built by
 * serviceImage.ts and tagged with the file's name for it (as `up --build` tags it); Redis and nginx
 * from stand-ins built of Debian's packages under the file's names (composeStandIns.ts). Through
 * the load balancer's published port:
 * - readiness answers once the four services run (and, waited for, both instances serve);
 * - a simulation with the token from the env file answers; with none, or another, 401; the token
 *   is in no log line;
 * - a fork created through the balancer is written and read through it, served by both instances
 *   (each request's X-Request-Id found in one instance's log), over the one Redis;
 * - the file's healthchecks pass on the running services (run by hand: no systemd timers here);
 * then `down -v` removes the project's containers and its volume (the network, left by
 * podman-compose 1.0, is removed after it).
 */
import { randomBytes } from 'node:crypto'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { freePort } from '../support/anvil.js'
import { ensureComposeStandIns } from '../support/container/composeStandIns.js'
import { dockerfileBaseImage } from '../support/container/nodeBaseImage.js'
import { podman, requirePodman } from '../support/container/podman.js'
import { composeProject, requirePodmanCompose, writeContainersConf, type ComposeProject } from '../support/container/podmanCompose.js'
import { answers } from '../support/container/serviceContainer.js'
import { root, serviceImage } from '../support/container/serviceImage.js'

const haveTools = requirePodman() && requirePodmanCompose()
const compose = parse(readFileSync(join(root, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image: string; healthcheck?: { retries: number } }>
}
const TOKEN = randomBytes(24).toString('hex')
const SERVICES = ['redis', 'sim-1', 'sim-2', 'lb']
const INSTANCES = ['sim-1', 'sim-2']
/** README's demo transfer: 1 DEMO from dev account 0 to account 1 */
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

let dir: string
let project: ComposeProject
let lb: string
const times: Record<string, number> = {}

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${lb}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
}

async function rpc(forkId: string, requestId: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await post(`/v1/forks/${forkId}/rpc`, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), {
    authorization: `Bearer ${TOKEN}`,
    'x-request-id': requestId,
  })
  const body = (await res.json()) as { result?: unknown; error?: unknown }
  if (res.status !== 200 || body.error !== undefined) throw new Error(`${method}: ${res.status} ${JSON.stringify(body)}`)
  return body.result
}

/** the JSON lines a service's container logged */
function logLines(service: string): Record<string, unknown>[] {
  const out = podman(['logs', project.containers().get(service)!.name])
  return out.split('\n').flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>]
    } catch {
      return []
    }
  })
}

/** which instance served each request id, from their logs (a line may take a moment to land) */
async function servedBy(ids: string[]): Promise<Map<string, string>> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const by = new Map<string, string>()
    for (const service of INSTANCES) for (const l of logLines(service)) if (ids.includes(l.requestId as string)) by.set(l.requestId as string, service)
    if (by.size === ids.length || Date.now() > deadline) return by
    await new Promise((r) => setTimeout(r, 250))
  }
}

/**
 * until the load balancer has sent requests to both instances: an instance that was not listening
 * yet when nginx first tried it counts as failed for nginx's fail_timeout (5 s); the time, ms
 */
async function untilBothServe(ms: number): Promise<number> {
  const started = Date.now()
  const ids: string[] = []
  for (let n = 1; ; n++) {
    ids.push(`probe-${n}-${randomBytes(4).toString('hex')}`)
    await fetch(`${lb}/v1/health/ready`, { headers: { 'x-request-id': ids.at(-1)! } })
    if (n % 2 === 0 && new Set((await servedBy(ids)).values()).size === INSTANCES.length) return Date.now() - started
    if (Date.now() - started > ms) throw new Error(`the load balancer sent no request to one of ${INSTANCES.join(', ')} within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

beforeAll(async () => {
  if (!haveTools) return
  const image = await serviceImage()
  podman(['tag', image, compose.services['sim-1']!.image])
  const base = dockerfileBaseImage(join(root, 'Dockerfile'))
  times.standInsMs = ensureComposeStandIns([compose.services.redis!.image, compose.services.lb!.image], base, console.log)
  dir = mkdtempSync(join(tmpdir(), 'compose-up-'))
  for (const f of ['compose.yaml', 'nginx.conf']) copyFileSync(join(root, 'deploy', f), join(dir, f))
  const example = readFileSync(join(root, 'deploy/sim.env.example'), 'utf8')
  if (!/^AUTH_TOKEN=$/m.test(example)) throw new Error('deploy/sim.env.example has no empty AUTH_TOKEN= line to fill in')
  writeFileSync(join(dir, 'sim.env'), example.replace(/^AUTH_TOKEN=$/m, `AUTH_TOKEN=${TOKEN}`))
  const port = await freePort()
  lb = `http://127.0.0.1:${port}`
  const env = { CONTAINERS_CONF: writeContainersConf(dir), EVM_SIM_PORT: String(port) }
  project = composeProject(join(dir, 'compose.yaml'), `evm-sim-test-${randomBytes(3).toString('hex')}`, env)
  const started = Date.now()
  project.compose(['up', '-d'])
  times.upMs = Date.now() - started
  times.readyMs = await answers(lb, '/v1/health/ready', 150_000)
  times.bothServeMs = await untilBothServe(90_000)
}, 40 * 60_000)

afterAll(() => {
  if (!project) return
  console.log(`compose: ${JSON.stringify(times)}`)
  project.removeAll()
  rmSync(dir, { recursive: true, force: true })
})

describe.runIf(haveTools)('deploy/compose.yaml, brought up', () => {
  it('up -d runs the four services, and the load balancer answers readiness', async () => {
    const running = project.containers()
    expect(SERVICES.map((s) => [s, running.get(s)?.state])).toEqual(SERVICES.map((s) => [s, 'running']))
    const res = await fetch(`${lb}/v1/health/ready`)
    expect([res.status, ((await res.json()) as { status: string }).status]).toEqual([200, 'ready'])
  })

  it('a simulation with the env file’s token answers; with none or another, 401; the token is in no log', async () => {
    const ok = await post('/v1/simulate', transfer, { authorization: `Bearer ${TOKEN}` })
    expect([ok.status, ((await ok.json()) as { data: { status: string } }).data.status]).toEqual([200, 'success'])
    const none = await post('/v1/simulate', transfer)
    expect([none.status, ((await none.json()) as { error: { code: string } }).error.code]).toEqual([401, 'AUTHENTICATION_REQUIRED'])
    const other = await post('/v1/forks', '{}', { authorization: `Bearer ${TOKEN}x` })
    expect([other.status, ((await other.json()) as { error: { code: string } }).error.code]).toEqual([401, 'AUTHENTICATION_INVALID'])
    for (const service of SERVICES) expect(podman(['logs', project.containers().get(service)!.name]), service).not.toContain(TOKEN)
  })

  it('a fork created through the load balancer is written and read through it, on both instances', async () => {
    const tag = randomBytes(4).toString('hex')
    const created = await post('/v1/forks', '{}', { authorization: `Bearer ${TOKEN}`, 'x-request-id': `create-${tag}` })
    expect(created.status).toBe(201)
    const fork = ((await created.json()) as { data: { forkId: string; headBlockNumber: string } }).data
    const ids = [`create-${tag}`]
    for (let k = 1; k <= 4; k++) {
      const account = `0x${k.toString(16).padStart(40, '0')}`
      const value = `0x${(0x1000 + k).toString(16)}`
      await rpc(fork.forkId, `w${k}-${tag}`, 'anvil_setBalance', [account, value])
      expect(await rpc(fork.forkId, `r${k}-${tag}`, 'eth_getBalance', [account, 'latest'])).toBe(value)
      ids.push(`w${k}-${tag}`, `r${k}-${tag}`)
    }
    await rpc(fork.forkId, `mine-${tag}`, 'evm_mine')
    expect(BigInt((await rpc(fork.forkId, `head-${tag}`, 'eth_blockNumber')) as string)).toBe(BigInt(fork.headBlockNumber) + 1n)
    ids.push(`mine-${tag}`, `head-${tag}`)

    const by = await servedBy(ids)
    expect(
      ids.filter((id) => !by.has(id)),
      'requests in no instance’s log',
    ).toEqual([])
    expect(new Set(by.values())).toEqual(new Set(INSTANCES))
    // a balance written through one instance was read back through the other
    expect([1, 2, 3, 4].some((k) => by.get(`w${k}-${tag}`) !== by.get(`r${k}-${tag}`))).toBe(true)
    // the one Redis of the file holds what they share
    const redis = project.containers().get('redis')!.name
    expect(Number(podman(['exec', redis, 'redis-cli', 'dbsize']).trim())).toBeGreaterThan(0)
  }, 60_000)

  it('the healthchecks of the Compose file pass on the running services', () => {
    // as the engine judges them: unhealthy only after `retries` failures in a row (a busy machine
    // can make one run of node outlast the timeout)
    for (const service of ['redis', ...INSTANCES]) {
      const { retries } = compose.services[service]!.healthcheck!
      const name = project.containers().get(service)!.name
      const failures: string[] = []
      while (failures.length < retries) {
        try {
          podman(['healthcheck', 'run', name])
          break
        } catch (e) {
          failures.push((e as Error).message.split('\n').at(-2) ?? '')
        }
      }
      expect(failures.length, `${service}: ${failures.join('; ')}`).toBeLessThan(retries)
    }
  }, 60_000)

  it('down -v removes its containers and its volume', () => {
    const started = Date.now()
    project.compose(['down', '-v'])
    times.downMs = Date.now() - started
    expect([...project.containers().keys()]).toEqual([])
    const left = project.leftovers()
    expect(left.volumes).toEqual([])
    // podman-compose 1.0 leaves the project's network (later versions remove it): afterAll does
    times.networksLeftByDown = left.networks.length
  }, 120_000)
})
