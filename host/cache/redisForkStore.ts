/**
 * Forks in Redis, shared by every instance and surviving restarts: per fork a hash with its
 * record, version and expiry (`<prefix>fork:<id>`), a hash of its blocks by number
 * (`<prefix>fork:<id>:blocks`), and one sorted set of live forks by expiry (`<prefix>forks`).
 *
 * A commit is one Lua script, so Redis runs it whole or not at all: the version check, the record
 * and the new blocks land together (a block never without its receipts), and a writer that lost a
 * race learns it from the version and runs its change again on the new head. Unlike the cache
 * store, a failure here is an error, never a silent miss: a fork's writes must not be dropped.
 *
 * @example
 * const store = createRedisForkStore({ url: 'redis://127.0.0.1:6379/0' })
 */
import { createClient } from 'redis'
import { EngineError } from '../../engine/platform/errors.js'
import { storedBlockJson, type ForkRecord, type ForkStore, type StoredBlock, type StoredFork } from '../../engine/chains/forks/types.js'
import { redactUrl } from './redisCacheStore.js'

export interface RedisForkStoreOptions {
  url: string
  /** namespace of every key (default 'evmsim:') */
  prefix?: string
  /** upper bound of one operation, ms (default 5000) */
  opTimeoutMs?: number
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
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
return 1`

/** a new fork, counted against the cap in the same script: the index drops the expired, then counts the live */
const CREATE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 2 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[6])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[7]) then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'record', ARGV[2], 'expiresAt', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
return 1`

const TOUCH_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'expiresAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
return 1`

export function createRedisForkStore(opts: RedisForkStoreOptions): ForkStore {
  const conn = connect(opts)
  return {
    read: (id) => run(conn, () => readOne(conn, id)),
    readBlocks: (id, numbers) => run(conn, () => readBlocks(conn, id, numbers)),
    commit: (id, expected, record, blocks) => run(conn, () => commit(conn, id, expected, record, blocks), true),
    create: (id, record, maxForks) => run(conn, () => create(conn, id, record, maxForks), true),
    touch: (id, ttlSeconds) => run(conn, () => touch(conn, id, ttlSeconds)),
    delete: (id) => run(conn, () => remove(conn, id)),
    list: () => run(conn, () => listLive(conn)),
    count: () => run(conn, async () => Number(await cmd(conn, ['ZCOUNT', conn.indexKey, String(Date.now()), '+inf']))),
    close: () => close(conn),
  }
}

/** one connection to Redis and the keys of the forks under its prefix */
interface Conn {
  readonly client: RedisClient
  /** settled once connected (or given up): every operation waits for it */
  readonly connecting: Promise<unknown>
  readonly prefix: string
  /** the sorted set of live forks by expiry */
  readonly indexKey: string
  readonly opTimeoutMs: number
  /** the URL without its password, for errors */
  readonly where: string
  closed: boolean
}

type RedisClient = ReturnType<typeof newClient>

function newClient(url: string, isClosed: () => boolean) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => (isClosed() ? false : Math.min(50 * 2 ** Math.min(retries, 10), 2000)) },
  })
}

function connect(opts: RedisForkStoreOptions): Conn {
  const prefix = opts.prefix ?? 'evmsim:'
  const client = newClient(opts.url, () => conn.closed)
  client.on('error', () => {})
  const conn: Conn = {
    client,
    connecting: client.connect().catch(() => undefined),
    prefix,
    indexKey: `${prefix}forks`,
    opTimeoutMs: opts.opTimeoutMs ?? 5000,
    where: redactUrl(opts.url),
    closed: false,
  }
  return conn
}

const metaKey = (conn: Conn, id: string) => `${conn.prefix}fork:${id}`
const blocksKey = (conn: Conn, id: string) => `${conn.prefix}fork:${id}:blocks`
const cmd = async (conn: Conn, args: string[]): Promise<unknown> => conn.client.sendCommand(args)

/** `write`: a commit, which Redis may still run after a timeout (it was sent), but never after a refused connection */
async function run<T>(conn: Conn, what: () => Promise<T>, write = false): Promise<T> {
  await conn.connecting
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      what(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), conn.opTimeoutMs)
      }),
    ])
  } catch (e) {
    const cause = (e as Error).message
    if (write && cause === 'timeout') {
      throw new EngineError(
        'STATE_ACCESS_ERROR',
        `the fork store at ${conn.where} did not answer in time: the change may have landed whole or not at all`,
        { cause },
        'read the fork (eth_blockNumber, the receipt) before sending again',
      )
    }
    throw new EngineError(
      'STATE_ACCESS_ERROR',
      `the fork store at ${conn.where} did not answer: the fork is unchanged`,
      { cause },
      'retry when the cache store is reachable',
    )
  } finally {
    clearTimeout(timer)
  }
}

async function readOne(conn: Conn, id: string): Promise<StoredFork | undefined> {
  const [record, expiresAt] = (await cmd(conn, ['HMGET', metaKey(conn, id), 'record', 'expiresAt'])) as (string | null)[]
  if (!record || !expiresAt || Number(expiresAt) <= Date.now()) return undefined
  return { record: JSON.parse(record) as ForkRecord, expiresAt: Number(expiresAt) }
}

async function readBlocks(conn: Conn, id: string, numbers: bigint[]): Promise<(StoredBlock | undefined)[]> {
  if (numbers.length === 0) return []
  const values = (await cmd(conn, ['HMGET', blocksKey(conn, id), ...numbers.map(String)])) as (string | null)[]
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
  const done = await cmd(conn, ['EVAL', COMMIT_SCRIPT, '3', metaKey(conn, id), blocksKey(conn, id), conn.indexKey, ...args])
  return Number(done) === 1
}

async function create(conn: Conn, id: string, record: ForkRecord, maxForks: number): Promise<'created' | 'taken' | 'full'> {
  const now = Date.now()
  const ttlMs = record.ttlSeconds * 1000
  const args = [String(record.version), JSON.stringify(record), String(ttlMs), String(now + ttlMs), id, String(now), String(maxForks)]
  const done = Number(await cmd(conn, ['EVAL', CREATE_SCRIPT, '2', metaKey(conn, id), conn.indexKey, ...args]))
  return done === 1 ? 'created' : done === 2 ? 'taken' : 'full'
}

/** the fork's expiry moved to `ttlSeconds` from now; undefined when it is gone */
async function touch(conn: Conn, id: string, ttlSeconds: number): Promise<number | undefined> {
  const expiresAt = Date.now() + ttlSeconds * 1000
  const done = await cmd(conn, [
    'EVAL',
    TOUCH_SCRIPT,
    '3',
    metaKey(conn, id),
    blocksKey(conn, id),
    conn.indexKey,
    String(ttlSeconds * 1000),
    String(expiresAt),
    id,
  ])
  return Number(done) === 1 ? expiresAt : undefined
}

async function remove(conn: Conn, id: string): Promise<boolean> {
  const removed = Number(await cmd(conn, ['DEL', metaKey(conn, id), blocksKey(conn, id)]))
  await cmd(conn, ['ZREM', conn.indexKey, id])
  return removed > 0
}

/** the live forks, the expired dropped from the index first */
async function listLive(conn: Conn): Promise<StoredFork[]> {
  const now = String(Date.now())
  await cmd(conn, ['ZREMRANGEBYSCORE', conn.indexKey, '-inf', `(${now}`])
  const ids = (await cmd(conn, ['ZRANGEBYSCORE', conn.indexKey, now, '+inf'])) as string[]
  const forks = await Promise.all(ids.map((id) => readOne(conn, id)))
  return forks.filter((f): f is StoredFork => f !== undefined)
}

async function close(conn: Conn): Promise<void> {
  if (conn.closed) return
  conn.closed = true
  await conn.connecting
  // a Redis that is down never answers QUIT: drop the socket then
  try {
    if (conn.client.isReady) await conn.client.close()
    else conn.client.destroy()
  } catch {
    conn.client.destroy()
  }
}
