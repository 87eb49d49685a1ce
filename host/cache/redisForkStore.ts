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
  const prefix = opts.prefix ?? 'evmsim:'
  const opTimeoutMs = opts.opTimeoutMs ?? 5000
  const where = redactUrl(opts.url)
  let closed = false
  const client = createClient({
    url: opts.url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => (closed ? false : Math.min(50 * 2 ** Math.min(retries, 10), 2000)) },
  })
  client.on('error', () => {})
  const connecting = client.connect().catch(() => undefined)
  const metaKey = (id: string) => `${prefix}fork:${id}`
  const blocksKey = (id: string) => `${prefix}fork:${id}:blocks`
  const indexKey = `${prefix}forks`

  /** `write`: a commit, which Redis may still run after a timeout (it was sent), but never after a refused connection */
  async function run<T>(what: () => Promise<T>, write = false): Promise<T> {
    await connecting
    let timer: NodeJS.Timeout | undefined
    try {
      return await Promise.race([
        what(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), opTimeoutMs)
        }),
      ])
    } catch (e) {
      const cause = (e as Error).message
      if (write && cause === 'timeout') {
        throw new EngineError(
          'STATE_ACCESS_ERROR',
          `the fork store at ${where} did not answer in time: the change may have landed whole or not at all`,
          { cause },
          'read the fork (eth_blockNumber, the receipt) before sending again',
        )
      }
      throw new EngineError(
        'STATE_ACCESS_ERROR',
        `the fork store at ${where} did not answer: the fork is unchanged`,
        { cause },
        'retry when the cache store is reachable',
      )
    } finally {
      clearTimeout(timer)
    }
  }
  const cmd = async (args: string[]): Promise<unknown> => client.sendCommand(args)

  async function readOne(id: string): Promise<StoredFork | undefined> {
    const [record, expiresAt] = (await cmd(['HMGET', metaKey(id), 'record', 'expiresAt'])) as (string | null)[]
    if (!record || !expiresAt || Number(expiresAt) <= Date.now()) return undefined
    return { record: JSON.parse(record) as ForkRecord, expiresAt: Number(expiresAt) }
  }

  return {
    read: (id) => run(() => readOne(id)),
    readBlocks: (id, numbers) =>
      run(async () => {
        if (numbers.length === 0) return []
        const values = (await cmd(['HMGET', blocksKey(id), ...numbers.map(String)])) as (string | null)[]
        return values.map((v) => (v ? (JSON.parse(v) as StoredBlock) : undefined))
      }),
    commit: (id, expected, record, blocks) =>
      run(async () => {
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
        const done = await cmd(['EVAL', COMMIT_SCRIPT, '3', metaKey(id), blocksKey(id), indexKey, ...args])
        return Number(done) === 1
      }, true),
    create: (id, record, maxForks) =>
      run(async () => {
        const now = Date.now()
        const ttlMs = record.ttlSeconds * 1000
        const args = [String(record.version), JSON.stringify(record), String(ttlMs), String(now + ttlMs), id, String(now), String(maxForks)]
        const done = Number(await cmd(['EVAL', CREATE_SCRIPT, '2', metaKey(id), indexKey, ...args]))
        return done === 1 ? 'created' : done === 2 ? 'taken' : 'full'
      }, true),
    touch: (id, ttlSeconds) =>
      run(async () => {
        const expiresAt = Date.now() + ttlSeconds * 1000
        const done = await cmd(['EVAL', TOUCH_SCRIPT, '3', metaKey(id), blocksKey(id), indexKey, String(ttlSeconds * 1000), String(expiresAt), id])
        return Number(done) === 1 ? expiresAt : undefined
      }),
    delete: (id) =>
      run(async () => {
        const removed = Number(await cmd(['DEL', metaKey(id), blocksKey(id)]))
        await cmd(['ZREM', indexKey, id])
        return removed > 0
      }),
    list: () =>
      run(async () => {
        const now = String(Date.now())
        await cmd(['ZREMRANGEBYSCORE', indexKey, '-inf', `(${now}`])
        const ids = (await cmd(['ZRANGEBYSCORE', indexKey, now, '+inf'])) as string[]
        const forks = await Promise.all(ids.map(readOne))
        return forks.filter((f): f is StoredFork => f !== undefined)
      }),
    count: () => run(async () => Number(await cmd(['ZCOUNT', indexKey, String(Date.now()), '+inf']))),
    async close() {
      if (closed) return
      closed = true
      await connecting
      // a Redis that is down never answers QUIT: drop the socket then
      try {
        if (client.isReady) await client.close()
        else client.destroy()
      } catch {
        client.destroy()
      }
    },
  }
}
