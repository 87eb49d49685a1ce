/**
 * A real Redis Cluster of the test's own: three primaries, each with a replica, six `redis-server`
 * processes in cluster mode on free ports in a temporary directory, joined by `redis-cli --cluster
 * create … --cluster-replicas 1`. A node is killed for real (SIGKILL), and the test waits for the
 * cluster to promote its replica (`cluster-node-timeout` 1000 ms: a failover takes a second or two).
 * Missing redis-server or redis-cli: a loud warning and the tests skip; under CI=true a failure.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './anvil.js'
import { redisServerBinary, waitFor } from './redisServer.js'

const run = promisify(execFile)
const NODE_TIMEOUT_MS = 1000

function redisCliBinary(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v redis-cli'], { encoding: 'utf8' })
  const bin = r.stdout.trim()
  return r.status === 0 && bin ? bin : undefined
}

/** Throws under CI when redis-server or redis-cli is missing; locally prints a loud warning and returns false. */
export function requireRedisCluster(): boolean {
  if (redisServerBinary() && redisCliBinary()) return true
  const msg = 'REDIS MISSING: redis-server and redis-cli are needed for the Redis Cluster tests (apt-get install redis-server)'
  if (process.env.CI === 'true') throw new Error(msg)
  console.warn(`\n!!!!! ${msg} !!!!!\n`)
  return false
}

export interface ClusterNode {
  port: number
  id: string
  primary: boolean
  failed: boolean
  /** the primary's id, for a replica */
  primaryId?: string
}

export interface RedisCluster {
  /** `redis+cluster://` with every node as a seed */
  url: string
  ports: number[]
  /** the cluster's view of its nodes, asked of a live one */
  nodes(): Promise<ClusterNode[]>
  /** the port of the primary serving `key` now */
  primaryOf(key: string): Promise<number>
  /** the port of the primary serving each key now */
  primariesOf(keys: string[]): Promise<number[]>
  /** SIGKILL of one node: an outage, not a shutdown */
  kill(port: number): Promise<void>
  /** SIGSTOP / SIGCONT of one node: it holds its sockets and answers nothing meanwhile */
  pause(port: number): void
  resume(port: number): void
  /** until a live primary serves every slot the dead `port` served, and the cluster is ok */
  waitForFailover(port: number): Promise<void>
  /** a command on one node, through redis-cli: its output */
  cli(port: number, ...args: string[]): Promise<string>
  /** commands on one connection to one node (READONLY, then a read of a replica): their outputs */
  session(port: number, ...commands: string[][]): Promise<string[]>
  stop(): Promise<void>
}

export async function startRedisCluster(): Promise<RedisCluster> {
  const server = redisServerBinary()
  const cliBin = redisCliBinary()
  if (!server || !cliBin) throw new Error('redis-server or redis-cli not found')
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-test-'))
  const ports: number[] = []
  while (ports.length < 6) {
    const p = await freePort()
    if (!ports.includes(p)) ports.push(p)
  }
  const children = new Map<number, ChildProcess>()
  const dead = new Set<number>()
  const cli = async (port: number, ...args: string[]) => (await run(cliBin, ['-p', String(port), ...args], { encoding: 'utf8' })).stdout.trim()
  for (const port of ports) {
    const child = spawn(
      server,
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
        ...['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', String(NODE_TIMEOUT_MS)],
      ],
      { stdio: 'ignore' },
    )
    children.set(port, child)
  }
  const stop = async () => {
    await Promise.all([...children.keys()].map((p) => killPort(children, p)))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (const port of ports) await waitFor(async () => (await cli(port, 'ping').catch(() => '')) === 'PONG', `redis-server on ${port}`)
    await run(cliBin, ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], { encoding: 'utf8' })
    for (const port of ports) await waitFor(async () => (await cli(port, 'cluster', 'info')).includes('cluster_state:ok'), `node ${port} to see the cluster ok`)
    // every replica copying its primary: until then a write waits for it in vain
    for (const port of ports) {
      await waitFor(async () => {
        const info = await cli(port, 'info', 'replication')
        return info.includes('role:master') ? /connected_slaves:1\b/.test(info) && /state=online/.test(info) : info.includes('master_link_status:up')
      }, `node ${port} to replicate`)
    }
  } catch (e) {
    await stop()
    throw e
  }
  const live = () => ports.find((p) => !dead.has(p))!
  const nodes = async () => parseNodes(await cli(live(), 'cluster', 'nodes'))
  const cluster: RedisCluster = {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    nodes,
    async primaryOf(key) {
      return (await cluster.primariesOf([key]))[0]!
    },
    async primariesOf(keys) {
      const owners = await slotOwners(cli, live())
      const slots = (await cluster.session(live(), ...keys.map((k) => ['CLUSTER', 'KEYSLOT', k]))).map(Number)
      return slots.map((slot) => {
        const port = owners.find((o) => slot >= o.from && slot <= o.to)?.port
        if (port === undefined) throw new Error(`no primary serves slot ${slot}`)
        return port
      })
    },
    async kill(port) {
      dead.add(port)
      await killPort(children, port)
    },
    pause: (port) => void children.get(port)?.kill('SIGSTOP'),
    resume: (port) => void children.get(port)?.kill('SIGCONT'),
    async waitForFailover(port) {
      const deadline = Date.now() + 30_000
      for (;;) {
        const owners = await slotOwners(cli, live()).catch(() => [])
        const ok = (await cli(live(), 'cluster', 'info').catch(() => '')).includes('cluster_state:ok')
        if (ok && owners.length > 0 && owners.every((o) => o.port !== port && !dead.has(o.port))) return
        if (Date.now() > deadline) throw new Error(`the replica of ${port} was not promoted within 30 s`)
        await new Promise((r) => setTimeout(r, 100))
      }
    },
    cli,
    async session(port, ...commands) {
      const r = spawnSync(cliBin, ['-p', String(port)], { input: commands.map((c) => c.join(' ')).join('\n'), encoding: 'utf8' })
      return r.stdout.trim().split('\n')
    },
    stop,
  }
  return cluster
}

async function killPort(children: Map<number, ChildProcess>, port: number): Promise<void> {
  const c = children.get(port)
  if (!c || c.exitCode !== null || c.signalCode !== null) return
  await new Promise<void>((resolve) => {
    c.once('exit', () => resolve())
    c.kill('SIGKILL')
  })
}

/** each slot range and the port of the primary serving it (CLUSTER SLOTS) */
async function slotOwners(cli: RedisCluster['cli'], port: number): Promise<{ from: number; to: number; port: number }[]> {
  // each range: from, to, then per node (the primary first) ip, port, id and a map of hostnames
  const json = await cli(port, '--json', 'cluster', 'slots')
  const ranges = JSON.parse(json) as [number, number, [string, number, string, ...unknown[]], ...unknown[]][]
  return ranges.map(([from, to, primary]) => ({ from, to, port: primary[1] }))
}

function parseNodes(text: string): ClusterNode[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, addr, flags, primaryId] = line.split(' ') as [string, string, string, string]
      const port = Number(addr.split('@')[0]!.split(':')[1])
      const f = flags.split(',')
      return { port, id, primary: f.includes('master'), failed: f.includes('fail'), ...(primaryId !== '-' && { primaryId }) }
    })
}
