/**
 * One connection to Redis, whether `CACHE_URL` names one server or a Redis Cluster
 * (`redisUrl.ts`): the stores send each command with the key it is about, and the cluster client
 * routes it to the primary serving that key's slot (one server: the only one). Nothing here sends a
 * command about keys of several slots: the stores keep what must change together under one hash
 * tag. Every command goes to a primary, never to a replica (a replica may not have the last write).
 *
 * While reconnecting, commands fail at once (`disableOfflineQueue`) rather than pile up behind a
 * dead socket. A cluster client re-learns the cluster (which node serves which slots) when a node
 * it uses stops answering for a second, so after a failover it finds the promoted replica.
 *
 * @example
 * const conn = openRedis({ url: 'redis+cluster://10.0.0.1:7000,10.0.0.2:7000', isClosed: () => false })
 * await conn.send('evmsim:k', ['GET', 'evmsim:k'])
 */
import { redisModule } from './redisModule.js'
import { parseRedisUrl, redactUrl } from './redisUrl.js'

export type RedisArgs = Array<string | Buffer>

export interface RedisConnectionOptions {
  url: string
  /** true once the store is closed: stop reconnecting */
  isClosed(): boolean
  /** TCP connect timeout, ms (default 2000) */
  connectTimeoutMs?: number
  /** largest pause between reconnect attempts, ms (default 2000) */
  maxReconnectDelayMs?: number
  /** bulk strings answered as Buffers, never decoded as UTF-8 */
  binary?: boolean
  /** upper bound of every command, ms (node-redis' own; none by default) */
  commandTimeoutMs?: number
}

/** the primary serving one key: commands on its one connection, in the order sent */
export interface Primary {
  send(args: RedisArgs): Promise<unknown>
  /** replicas the cluster lists for it (0 for one server: nothing to wait for) */
  readonly replicas: number
}

export interface RedisConnection {
  readonly cluster: boolean
  /** the URL without its password, for logs and errors */
  readonly where: string
  readonly isReady: boolean
  /** settled once connected, or given up on close */
  readonly connecting: Promise<unknown>
  /** `args`, on the primary serving `key` (any, without one) */
  send(key: string | undefined, args: RedisArgs): Promise<unknown>
  primaryOf(key: string): Promise<Primary>
  /** every primary answers PING */
  ping(): Promise<boolean>
  on(event: 'error', fn: (err: Error) => void): void
  on(event: 'ready', fn: () => void): void
  /** QUIT when connected, the sockets dropped otherwise */
  close(): Promise<void>
}

const backoff = (retries: number, max: number) => Math.min(50 * 2 ** Math.min(retries, 10), max)

export function openRedis(opts: RedisConnectionOptions): RedisConnection {
  const target = parseRedisUrl(opts.url)
  const maxDelay = opts.maxReconnectDelayMs ?? 2000
  const socket = {
    connectTimeout: opts.connectTimeoutMs ?? 2000,
    reconnectStrategy: (retries: number) => (opts.isClosed() ? false : backoff(retries, maxDelay)),
  }
  const where = redactUrl(opts.url)
  const commandOptions = {
    ...(opts.binary && { typeMapping: { [redisModule().RESP_TYPES.BLOB_STRING]: Buffer } }),
    ...(opts.commandTimeoutMs !== undefined && { timeout: opts.commandTimeoutMs }),
  }
  if (!target.cluster) return single(redisModule().createClient({ url: target.url, disableOfflineQueue: true, socket, commandOptions }), where)
  return clustered(newCluster(target, socket, commandOptions), where, opts, maxDelay)
}

type ClusterTarget = Extract<ReturnType<typeof parseRedisUrl>, { cluster: true }>

function newCluster(target: ClusterTarget, socket: { connectTimeout: number; reconnectStrategy: (retries: number) => number | false }, commandOptions: object) {
  return redisModule().createCluster({
    rootNodes: target.rootUrls.map((url) => ({ url: target.tls ? url.replace(/^redis:/, 'rediss:') : url })),
    defaults: {
      disableOfflineQueue: true,
      ...(target.username !== undefined && { username: target.username }),
      ...(target.password !== undefined && { password: target.password }),
      socket: { ...socket, ...(target.tls && { tls: true as const }) },
    },
    // a node that stops answering for a second: ask the others who serves its slots now
    topologyRefreshOnReconnectionAttemptStrategy: 1000,
    commandOptions,
  })
}

/** what a single-server client is used for here, whatever its type mapping */
interface SingleClient {
  readonly isReady: boolean
  connect(): Promise<unknown>
  sendCommand(args: RedisArgs): Promise<unknown>
  on(event: string, fn: (err: Error) => void): unknown
  close(): Promise<void>
  destroy(): void
}

function single(client: SingleClient, where: string): RedisConnection {
  const connecting = client.connect().catch(() => undefined)
  return {
    cluster: false,
    where,
    get isReady() {
      return client.isReady
    },
    connecting,
    send: (_key, args) => client.sendCommand(args),
    primaryOf: async () => ({ send: (args) => client.sendCommand(args), replicas: 0 }),
    ping: async () => String(await client.sendCommand(['PING'])) === 'PONG',
    on(event: 'error' | 'ready', fn: (err: Error) => void) {
      client.on(event, fn)
    },
    close: () => shut(client),
  }
}

type Cluster = ReturnType<typeof newCluster>

function clustered(cluster: Cluster, where: string, opts: RedisConnectionOptions, maxDelay: number): RedisConnection {
  const replicas = replicaCounts()
  // the first discovery fails when no seed answers: try again, as a single client reconnects
  const connecting = (async () => {
    for (let retries = 0; ; retries++) {
      try {
        await cluster.connect()
        if (opts.isClosed()) cluster.destroy()
        return
      } catch {
        if (opts.isClosed()) return
        await new Promise((r) => setTimeout(r, backoff(retries, maxDelay)))
      }
    }
  })()
  return {
    cluster: true,
    where,
    get isReady() {
      return cluster.isReady
    },
    connecting,
    send: (key, args) => cluster.sendCommand(key, false, args),
    async primaryOf(key) {
      const client = await cluster.getNodeClientForKey(key, false)
      const send = (args: RedisArgs) => client.sendCommand(args)
      return { send, replicas: await replicas.of(client, send) }
    },
    async ping() {
      const masters = cluster.masters
      if (!cluster.isReady || masters.length === 0) return false
      const answers = await Promise.all(masters.map(async (m) => String(await (await cluster.nodeClient(m)).sendCommand(['PING']))))
      return answers.every((a) => a === 'PONG')
    },
    on(event: 'error' | 'ready', fn: (err: Error) => void) {
      if (event === 'error') {
        cluster.on('error', fn)
        cluster.on('node-error', fn)
      } else cluster.on('node-ready', fn)
    },
    close: () => shut(cluster),
  }
}

/** a Redis that is down never answers QUIT: drop the sockets then */
async function shut(client: { readonly isReady: boolean; close(): Promise<void>; destroy(): void }): Promise<void> {
  try {
    if (client.isReady) await client.close()
    else client.destroy()
  } catch {
    try {
      client.destroy()
    } catch {
      // already closed
    }
  }
}

/** how long a primary's count of replicas is trusted before it is asked again, ms */
const REPLICAS_FRESH_MS = 1000

/**
 * The replicas the cluster lists for a primary and does not hold failed, as that primary sees them
 * (CLUSTER NODES, asked at most once a second per primary): a replica still syncing counts, so
 * writes wait for it rather than pass it by.
 */
function replicaCounts() {
  const known = new WeakMap<object, { at: number; count: number }>()
  return {
    async of(client: object, send: (args: RedisArgs) => Promise<unknown>): Promise<number> {
      const seen = known.get(client)
      if (seen && Date.now() - seen.at < REPLICAS_FRESH_MS) return seen.count
      const count = liveReplicas(String(await send(['CLUSTER', 'NODES'])))
      known.set(client, { at: Date.now(), count })
      return count
    },
  }
}

/** CLUSTER NODES: the replicas of the node marked `myself` not flagged `fail` */
export function liveReplicas(nodes: string): number {
  const lines = nodes.split('\n').map((l) => l.trim().split(' '))
  const me = lines.find((f) => f[2]?.split(',').includes('myself'))?.[0]
  if (!me) return 0
  return lines.filter((f) => f[3] === me && f[2]?.split(',').includes('slave') && !f[2].split(',').includes('fail')).length
}
