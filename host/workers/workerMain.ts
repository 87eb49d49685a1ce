/**
 * The entry of one pool worker: builds its own engine (its own VM, fork cache and in-process
 * cache level; Redis shared when configured) and serves the pool's calls. Several calls may be
 * in flight at once (upstream I/O overlaps); the pool decides how many. Each call's view of the
 * engine (Engine.withStop) tells the pool when the call starts and stops waiting on the upstream
 * (`upstreamWait`), so a call waiting on the upstream does not count as one that computes.
 *
 * Runs as compiled JS from dist in production and as TypeScript under tsx in dev and tests
 * (see workerEntry.ts).
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { CacheStore } from '../../engine/state/store/cacheStore.js'
import { createCacheStore, isSharedCacheUrl } from '../cache/createCacheStore.js'
import { createMemoryCacheStore } from '../cache/memoryCacheStore.js'
import { createTieredCacheStore } from '../cache/tieredCacheStore.js'
import { createRedisForkStore } from '../cache/redisForkStore.js'
import {
  ENGINE_OPERATIONS,
  type Engine,
  type EngineOperation,
  type EngineOptions,
  type ForkAt,
  ON_CHAIN,
  type OperationArgs,
  type RunAt,
  type RunStop,
} from '../../engine/types.js'
import { createParentCacheStore, type ParentCacheStore } from './parentCacheStore.js'
import { plainCopy, serializeError, type FromWorker, type StopMark, type ToWorker, type WorkerSetup } from '../protocol.js'

type EngineModule = { createEngine(opts: EngineOptions): Engine | Promise<Engine> }

const port = parentPort
if (!port) throw new Error('workerMain.ts runs inside a worker thread only')
const setup = workerData as WorkerSetup

/** postMessage, falling back to a JSON-safe copy when structured clone refuses the value */
function send(msg: FromWorker): void {
  try {
    port!.postMessage(msg)
  } catch {
    port!.postMessage(plainCopy(msg))
  }
}

const logger: NonNullable<EngineOptions['logger']> = {
  info: (obj, msg) => send({ type: 'log', level: 'info', obj, msg }),
  warn: (obj, msg) => send({ type: 'log', level: 'warn', obj, msg }),
  error: (obj, msg) => send({ type: 'log', level: 'error', obj, msg }),
}

let parentCache: ParentCacheStore | undefined
let cache: CacheStore
if (setup.cacheUrl && isSharedCacheUrl(setup.cacheUrl)) {
  cache = createCacheStore(setup.cacheUrl, { memoryMaxBytes: setup.localCacheBytes, prefix: setup.cachePrefix, logger })
} else {
  // one port carries a stored simulation and then its result, and the pool answers the result once
  // the write is done: the worker need not wait for it
  parentCache = createParentCacheStore(port, { oneWayWrites: true })
  cache = createTieredCacheStore(createMemoryCacheStore({ maxBytes: setup.localCacheBytes }), parentCache)
}

let engine: Engine | undefined
const stopFlags = setup.stopFlags && new Int32Array(setup.stopFlags)

/**
 * call `id`'s stop: its deadline, and its flag, which the pool sets while this thread may be deep
 * in a run; and the word to the pool of when the call waits on the upstream
 */
function runStopOf(id: number, mark: StopMark | undefined): RunStop {
  const flags = stopFlags
  return {
    ...(mark?.deadline !== undefined && { deadline: mark.deadline }),
    // index -1: every flag was taken, the deadline alone stops the run
    ...(flags &&
      mark &&
      mark.index >= 0 && {
        signal: {
          get aborted() {
            return Atomics.load(flags, mark.index) !== 0
          },
        },
      }),
    onUpstreamWait: (waiting) => send({ type: 'upstreamWait', id, waiting }),
  }
}
const methods = new Set<string>(ENGINE_OPERATIONS)

/**
 * One operation as the pool asked it, one line each: the pool wrote its arguments from the same
 * signatures (host/workers/workerPool.ts), so each arm reads them back as that operation's.
 */
function execute(engine: Engine, at: RunAt, method: EngineOperation, args: unknown[]): Promise<unknown> {
  switch (method) {
    case 'simulate':
      return engine.simulate(at, ...(args as OperationArgs<'simulate'>))
    case 'previewSignature':
      return engine.previewSignature(at, ...(args as OperationArgs<'previewSignature'>))
    case 'simulateSteps':
      return engine.simulateSteps(at, ...(args as OperationArgs<'simulateSteps'>))
    case 'getSimulation':
      return engine.getSimulation(at, ...(args as OperationArgs<'getSimulation'>))
    case 'accessList':
      return engine.accessList(at, ...(args as OperationArgs<'accessList'>))
    case 'traceTransaction':
      return engine.traceTransaction(at, ...(args as OperationArgs<'traceTransaction'>))
    case 'traceCall':
      return engine.traceCall(at, ...(args as OperationArgs<'traceCall'>))
    case 'traceCallMany':
      return engine.traceCallMany(at, ...(args as OperationArgs<'traceCallMany'>))
    case 'simulateV1':
      return engine.simulateV1(at, ...(args as OperationArgs<'simulateV1'>))
    case 'traceBlock':
      return engine.traceBlock(at, ...(args as OperationArgs<'traceBlock'>))
    case 'call':
      return engine.call(at, ...(args as OperationArgs<'call'>))
    case 'estimateGas':
      return engine.estimateGas(at, ...(args as OperationArgs<'estimateGas'>))
    case 'readChain':
      return engine.readChain(at, ...(args as OperationArgs<'readChain'>))
    case 'createFork':
      return engine.createFork(at, ...(args as OperationArgs<'createFork'>))
    case 'getFork':
      return engine.getFork(at, ...(args as OperationArgs<'getFork'>))
    case 'listForks':
      return engine.listForks(at)
    case 'deleteFork':
      return engine.deleteFork(at, ...(args as OperationArgs<'deleteFork'>))
    case 'registerSources':
      return engine.registerSources(at, ...(args as OperationArgs<'registerSources'>))
    case 'listSources':
      return engine.listSources(at)
    case 'forkRpc':
      return engine.forkRpc(at as ForkAt, ...(args as OperationArgs<'forkRpc'>))
    case 'health':
      return engine.health(at)
    case 'metrics':
      return engine.metrics()
  }
}

port.on('message', async (msg: ToWorker) => {
  if (msg.type === 'cacheReply') return parentCache?.onReply(msg)
  if (msg.type === 'close') {
    try {
      await engine?.close()
      await cache.close()
    } finally {
      send({ type: 'closed' })
    }
    return
  }
  if (msg.type !== 'call') return
  try {
    if (!engine) throw new Error('worker engine is not ready')
    if (!methods.has(msg.method)) throw new Error(`unknown engine method ${msg.method}`)
    // the pool sends the call's place (chain, fork) first; its stop is made here from the pool's flag and deadline
    const [place, ...args] = msg.args as [RunAt, ...unknown[]]
    const value = await execute(engine, { ...place, stop: runStopOf(msg.id, msg.stop) }, msg.method, args)
    send({ type: 'result', id: msg.id, ok: true, value })
  } catch (err) {
    send({ type: 'result', id: msg.id, ok: false, error: serializeError(err) })
  }
})

try {
  // a variable specifier: the facade is loaded at run time, .ts under tsx, .js from dist
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
  const specifier = setup.engineModule ?? new URL(`../../engine/index${ext}`, import.meta.url).href
  const mod = (await import(specifier)) as EngineModule
  // forks in Redis are every worker's; on memory:// the pool sends every fork call to one worker
  const forkStore = setup.cacheUrl && isSharedCacheUrl(setup.cacheUrl) ? createRedisForkStore({ url: setup.cacheUrl, prefix: setup.cachePrefix }) : undefined
  engine = await mod.createEngine({ ...setup.engine, cache, logger, ...(forkStore && { forkStore }) })
  // answered by the engine itself, from what it learnt at start
  const chainId = Number(await engine.readChain(ON_CHAIN, 'eth_chainId', []).catch(() => undefined))
  send({ type: 'ready', ...(Number.isSafeInteger(chainId) && chainId > 0 && { chainId }) })
} catch (err) {
  send({ type: 'initError', error: serializeError(err) })
}
