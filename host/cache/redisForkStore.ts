/**
 * Forks in Redis, shared by every instance and surviving restarts: per fork a hash with its
 * record, version and expiry (`<prefix>fork:<id>`), a hash of its blocks by number
 * (`<prefix>fork:<id>:blocks`), and one sorted set of live forks by expiry (`<prefix>forks`).
 * On a Redis Cluster a fork's two keys carry the hash tag `{fork:<id>}` (`<prefix>{fork:<id>}`,
 * `<prefix>{fork:<id>}:blocks`), so they lie in one slot, on one primary, and one script may
 * change both (`forkKeys.ts`).
 *
 * A commit is one Lua script, so Redis runs it whole or not at all: the version check, the record
 * and the new blocks land together (a block never without its receipts), and a writer that lost a
 * race learns it from the version and runs its change again on the new head. Unlike the cache
 * store, a failure here is an error, never a silent miss: a fork's writes must not be dropped.
 * It answers 503 FORKS_UNAVAILABLE with a time to retry after (`forkStoreErrors.ts`).
 *
 * On one server the index of live forks changes in the same script. On a cluster it lies in another
 * slot: a creation reserves its place in the index first (the cap stays one atomic check), and a
 * commit moves the fork's expiry in the index before its script runs. A write that changes a fork
 * on a cluster is answered once a replica of its primary has it too (`WAIT 1` on the same
 * connection), so a failover of that primary does not lose it.
 *
 * @example
 * const store = createRedisForkStore({ url: 'redis://127.0.0.1:6379/0' })
 */
import { storedBlockJson, type ForkRecord, type ForkStore, type StoredBlock, type StoredFork } from '../../engine/chains/forks/types.js'
import { forkKeys, type ForkKeys } from './forkKeys.js'
import { forkStoreError, NotReplicatedError } from './forkStoreErrors.js'
import { openRedis, type RedisArgs, type RedisConnection } from './redisConnection.js'

export interface RedisForkStoreOptions {
  url: string
  /** namespace of every key (default 'evmsim:') */
  prefix?: string
  /** upper bound of one operation, ms (default 5000) */
  opTimeoutMs?: number
  /** on a cluster: how long a write waits for a replica's acknowledgement, ms (default 1000) */
  replicaWaitMs?: number
}

const COMMIT_SCRIPT = `
local v = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '' then
  if v then return 0 end
elseif v ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3], 'expiresAt', ARGV[5])
for i = 7, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
if KEYS[3] then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6]) end
return 1`

/**
 * a new fork; with the index as KEYS[2] (one server) counted against the cap in the same script:
 * the index drops the expired, then counts the live
 */
const CREATE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 2 end
if KEYS[2] then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[6])
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[7]) then return 0 end
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'record', ARGV[2], 'expiresAt', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if KEYS[2] then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5]) end
return 1`

/** a cluster's place in the index for a new fork (the index alone in its slot): 0 full, 2 taken, 1 reserved */
const RESERVE_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
return 1`

const TOUCH_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'expiresAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
if KEYS[3] then redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3]) end
return 1`

export function createRedisForkStore(opts: RedisForkStoreOptions): ForkStore {
  const conn = connect(opts)
  return {
    read: (id) => run(conn, () => readOne(conn, id)),
    readBlocks: (id, numbers) => run(conn, () => readBlocks(conn, id, numbers)),
    commit: (id, expected, record, blocks) => run(conn, () => commit(conn, id, expected, record, blocks), true),
    create: (id, record, maxForks) => run(conn, () => create(conn, id, record, maxForks), true),
    touch: (id, ttlSeconds) => run(conn, () => touch(conn, id, ttlSeconds)),
    delete: (id) => run(conn, () => remove(conn, id), true),
    list: () => run(conn, () => listLive(conn)),
    count: () => run(conn, async () => Number(await cmd(conn, conn.keys.index, ['ZCOUNT', conn.keys.index, String(Date.now()), '+inf']))),
    close: () => close(conn),
  }
}

/** one connection to Redis and the keys of the forks under its prefix */
interface Conn {
  readonly redis: RedisConnection
  readonly keys: ForkKeys
  readonly opTimeoutMs: number
  readonly replicaWaitMs: number
  closed: boolean
}

function connect(opts: RedisForkStoreOptions): Conn {
  const redis = openRedis({ url: opts.url, isClosed: () => conn.closed })
  redis.on('error', () => {})
  const conn: Conn = {
    redis,
    keys: forkKeys(opts.prefix ?? 'evmsim:', redis.cluster),
    opTimeoutMs: opts.opTimeoutMs ?? 5000,
    replicaWaitMs: opts.replicaWaitMs ?? 1000,
    closed: false,
  }
  return conn
}

const cmd = async (conn: Conn, key: string, args: RedisArgs): Promise<unknown> => conn.redis.send(key, args)

/**
 * `args`, a write about `key`, answered once a replica of its primary has it: the WAIT is sent right
 * behind it on the same connection, so it counts the replicas that have this write. Redis copies
 * to replicas asynchronously; a primary lost before a replica had the write would take it along.
 * `wrote` tells from the answer whether anything was written (a lost race writes nothing).
 * One server, or a primary without replicas: nothing to wait for.
 */
async function durably(conn: Conn, key: string, args: RedisArgs, wrote: (reply: unknown) => boolean): Promise<unknown> {
  const primary = await conn.redis.primaryOf(key)
  if (primary.replicas === 0) return primary.send(args)
  // a WAIT that fails after the write answered says nothing of the replica: the write may be lost with its primary
  const [reply, acks] = await Promise.all([primary.send(args), primary.send(['WAIT', '1', String(conn.replicaWaitMs)]).catch(() => 0)])
  if (wrote(reply) && Number(acks) < 1) throw new NotReplicatedError()
  return reply
}

/** `write`: a change, which Redis may still run after a timeout (it was sent), but never after a refused connection */
async function run<T>(conn: Conn, what: () => Promise<T>, write = false): Promise<T> {
  await conn.redis.connecting
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      what(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), conn.opTimeoutMs)
      }),
    ])
  } catch (e) {
    throw forkStoreError(e, conn.redis.where, write)
  } finally {
    clearTimeout(timer)
  }
}

async function readOne(conn: Conn, id: string): Promise<StoredFork | undefined> {
  const key = conn.keys.meta(id)
  const [record, expiresAt] = (await cmd(conn, key, ['HMGET', key, 'record', 'expiresAt'])) as (string | null)[]
  if (!record || !expiresAt || Number(expiresAt) <= Date.now()) return undefined
  return { record: JSON.parse(record) as ForkRecord, expiresAt: Number(expiresAt) }
}

async function readBlocks(conn: Conn, id: string, numbers: bigint[]): Promise<(StoredBlock | undefined)[]> {
  if (numbers.length === 0) return []
  const key = conn.keys.blocks(id)
  const values = (await cmd(conn, key, ['HMGET', key, ...numbers.map(String)])) as (string | null)[]
  return values.map((v) => (v ? (JSON.parse(v) as StoredBlock) : undefined))
}

/** the record and its new blocks, landed whole only if the fork is still at version `expected` (COMMIT_SCRIPT) */
async function commit(conn: Conn, id: string, expected: number | null, record: ForkRecord, blocks: StoredBlock[]): Promise<boolean> {
  const ttlMs = record.ttlSeconds * 1000
  const expiresAt = Date.now() + ttlMs
  const args = [
    expected === null ? '' : String(expected),
    String(record.version),
    JSON.stringify(record),
    String(ttlMs),
    String(expiresAt),
    id,
    ...blocks.flatMap((b) => [BigInt(b.number).toString(), storedBlockJson(b)]),
  ]
  const { keys } = conn
  if (!conn.redis.cluster)
    return Number(await cmd(conn, keys.meta(id), ['EVAL', COMMIT_SCRIPT, '3', keys.meta(id), keys.blocks(id), keys.index, ...args])) === 1
  // the index in its own slot: the fork's life there is moved first (a failed commit only keeps it listed longer)
  await cmd(conn, keys.index, ['ZADD', keys.index, String(expiresAt), id])
  const done = await durably(conn, keys.meta(id), ['EVAL', COMMIT_SCRIPT, '2', keys.meta(id), keys.blocks(id), ...args], (r) => Number(r) === 1)
  return Number(done) === 1
}

type Created = 'created' | 'taken' | 'full'
const created = (done: number): Created => (done === 1 ? 'created' : done === 2 ? 'taken' : 'full')

async function create(conn: Conn, id: string, record: ForkRecord, maxForks: number): Promise<Created> {
  const now = Date.now()
  const ttlMs = record.ttlSeconds * 1000
  const args = [String(record.version), JSON.stringify(record), String(ttlMs), String(now + ttlMs), id, String(now), String(maxForks)]
  const { keys } = conn
  if (!conn.redis.cluster) return created(Number(await cmd(conn, keys.meta(id), ['EVAL', CREATE_SCRIPT, '2', keys.meta(id), keys.index, ...args])))
  // a cluster: the place in the index first (the cap, one atomic check), then the fork in its own slot
  try {
    const reserve = ['EVAL', RESERVE_SCRIPT, '1', keys.index, String(now), String(maxForks), id, String(now + ttlMs)]
    const reserved = Number(await durably(conn, keys.index, reserve, (r) => Number(r) === 1))
    if (reserved !== 1) return created(reserved)
    return created(Number(await durably(conn, keys.meta(id), ['EVAL', CREATE_SCRIPT, '1', keys.meta(id), ...args], (r) => Number(r) === 1)))
  } catch (e) {
    // the fork may not exist: its place is given back (were it made after all, its first use lists it again)
    await cmd(conn, keys.index, ['ZREM', keys.index, id]).catch(() => undefined)
    throw e
  }
}

/** the fork's expiry moved to `ttlSeconds` from now; undefined when it is gone */
async function touch(conn: Conn, id: string, ttlSeconds: number): Promise<number | undefined> {
  const expiresAt = Date.now() + ttlSeconds * 1000
  const { keys } = conn
  const args = [String(ttlSeconds * 1000), String(expiresAt), id]
  const cluster = conn.redis.cluster
  const scriptKeys = cluster ? ['2', keys.meta(id), keys.blocks(id)] : ['3', keys.meta(id), keys.blocks(id), keys.index]
  const done = await cmd(conn, keys.meta(id), ['EVAL', TOUCH_SCRIPT, ...scriptKeys, ...args])
  if (Number(done) !== 1) return undefined
  if (cluster) await cmd(conn, keys.index, ['ZADD', keys.index, String(expiresAt), id])
  return expiresAt
}

async function remove(conn: Conn, id: string): Promise<boolean> {
  const { keys } = conn
  const removed = Number(await durably(conn, keys.meta(id), ['DEL', keys.meta(id), keys.blocks(id)], (r) => Number(r) > 0))
  await cmd(conn, keys.index, ['ZREM', keys.index, id])
  return removed > 0
}

/** the live forks, the expired dropped from the index first */
async function listLive(conn: Conn): Promise<StoredFork[]> {
  const now = String(Date.now())
  const index = conn.keys.index
  await cmd(conn, index, ['ZREMRANGEBYSCORE', index, '-inf', `(${now}`])
  const ids = (await cmd(conn, index, ['ZRANGEBYSCORE', index, now, '+inf'])) as string[]
  const forks = await Promise.all(ids.map((id) => readOne(conn, id)))
  return forks.filter((f): f is StoredFork => f !== undefined)
}

async function close(conn: Conn): Promise<void> {
  if (conn.closed) return
  conn.closed = true
  await conn.redis.close()
}
