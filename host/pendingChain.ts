/**
 * A named chain whose upstream did not answer at start: the deployment starts without it and
 * this stands in for its engine. Every operation answers `CHAIN_UNAVAILABLE` (503, a JSON-RPC
 * -32000 error) naming the chain, its health says `unavailable`, and a retry starts the real
 * engine every `retryMs` in the background. The real engine's start checks the chain id as at
 * start (`chain_id`): once it starts, every call goes to it; if the upstream comes back as
 * another chain (or the configuration is refused), the chain is taken out of service for good,
 * the reason logged and reported, so it never serves the wrong chain.
 *
 * @example
 * const engine = createPendingChain({ name: 'base', start: () => startEngine(), retryMs: 5000, cause, logger })
 */
import { EngineError, isEngineError } from '../engine/platform/errors.js'
import type { Engine, EngineHealth, ForkAt, OperationArgs, RunAt } from '../engine/types.js'
import type { EngineRuns } from './workers/workerPool.js'

export interface PendingChainOptions {
  name: string
  /** starts the chain's engine (checking its chain id); rejects while the upstream is down */
  start(): Promise<Engine>
  /** a cheap check that the upstream answers at all, before a retry starts the engine */
  probe?(): Promise<boolean>
  retryMs: number
  /** why the first start failed */
  cause: unknown
  /** what the health reports before the chain is up (its configured id and kind) */
  configured: { chainId?: number; kind?: EngineHealth['kind'] }
  logger?: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void }
}

/** a start failure that is the configuration's, not the upstream's availability: never retried */
export const isConfigurationError = (e: unknown): boolean => isEngineError(e) && e.code === 'VALIDATION_ERROR'

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

export function createPendingChain(opts: PendingChainOptions): Engine {
  const { name } = opts
  let engine: Engine | undefined
  let failed: string | undefined
  let reason = messageOf(opts.cause)
  let closed = false
  let timer: NodeJS.Timeout | undefined

  const retry = async () => {
    timer = undefined
    if (closed) return
    if (opts.probe && !(await opts.probe())) {
      if (!closed) timer = setTimeout(retry, opts.retryMs)
      timer?.unref()
      return
    }
    try {
      const started = await opts.start()
      if (closed) {
        await started.close().catch(() => undefined)
        return
      }
      engine = started
      opts.logger?.info({ chain: name }, `chain '${name}': its upstream answers; serving it`)
    } catch (e) {
      if (isConfigurationError(e)) {
        failed = messageOf(e)
        opts.logger?.error({ chain: name, err: failed }, `chain '${name}' is out of service: ${failed}`)
        return
      }
      reason = messageOf(e)
      timer = setTimeout(retry, opts.retryMs)
      timer.unref()
    }
  }
  timer = setTimeout(retry, opts.retryMs)
  timer.unref()

  const unavailable = (): string =>
    failed !== undefined
      ? `chain '${name}' is out of service: ${failed}`
      : `chain '${name}': its upstream does not answer (${reason}); retrying every ${opts.retryMs >= 1000 ? `${opts.retryMs / 1000} s` : `${opts.retryMs} ms`}`

  const waiting: PendingState = {
    get engine() {
      return engine
    },
    unavailable,
    health: async (): Promise<EngineHealth> => ({
      network: 'unknown',
      chainId: opts.configured.chainId ?? 0,
      kind: opts.configured.kind ?? 'ethereum',
      upstreamOk: false,
      cacheOk: true,
      unavailable: unavailable(),
    }),
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      await engine?.close()
    },
  }
  return new PendingChain(name, waiting)
}

/** what a pending chain knows while it waits: its engine once started, why it is not yet, its health and close */
interface PendingState {
  readonly engine: (Engine & { runs?(): EngineRuns }) | undefined
  unavailable(): string
  health(): Promise<EngineHealth>
  close(): Promise<void>
}

/** a chain not started yet, as an engine: one line per operation, each to the started engine or refused as CHAIN_UNAVAILABLE */
class PendingChain implements Engine {
  constructor(
    private readonly name: string,
    private readonly state: PendingState,
  ) {}

  simulate(at: RunAt, ...a: OperationArgs<'simulate'>) {
    return this.#started().then((e) => e.simulate(at, ...a))
  }
  previewSignature(at: RunAt, ...a: OperationArgs<'previewSignature'>) {
    return this.#started().then((e) => e.previewSignature(at, ...a))
  }
  simulateSteps(at: RunAt, ...a: OperationArgs<'simulateSteps'>) {
    return this.#started().then((e) => e.simulateSteps(at, ...a))
  }
  getSimulation(at: RunAt, ...a: OperationArgs<'getSimulation'>) {
    return this.#started().then((e) => e.getSimulation(at, ...a))
  }
  accessList(at: RunAt, ...a: OperationArgs<'accessList'>) {
    return this.#started().then((e) => e.accessList(at, ...a))
  }
  traceTransaction(at: RunAt, ...a: OperationArgs<'traceTransaction'>) {
    return this.#started().then((e) => e.traceTransaction(at, ...a))
  }
  traceCall(at: RunAt, ...a: OperationArgs<'traceCall'>) {
    return this.#started().then((e) => e.traceCall(at, ...a))
  }
  traceCallMany(at: RunAt, ...a: OperationArgs<'traceCallMany'>) {
    return this.#started().then((e) => e.traceCallMany(at, ...a))
  }
  simulateV1(at: RunAt, ...a: OperationArgs<'simulateV1'>) {
    return this.#started().then((e) => e.simulateV1(at, ...a))
  }
  traceBlock(at: RunAt, ...a: OperationArgs<'traceBlock'>) {
    return this.#started().then((e) => e.traceBlock(at, ...a))
  }
  call(at: RunAt, ...a: OperationArgs<'call'>) {
    return this.#started().then((e) => e.call(at, ...a))
  }
  estimateGas(at: RunAt, ...a: OperationArgs<'estimateGas'>) {
    return this.#started().then((e) => e.estimateGas(at, ...a))
  }
  readChain(at: RunAt, ...a: OperationArgs<'readChain'>) {
    return this.#started().then((e) => e.readChain(at, ...a))
  }
  createFork(at: RunAt, ...a: OperationArgs<'createFork'>) {
    return this.#started().then((e) => e.createFork(at, ...a))
  }
  getFork(at: RunAt, ...a: OperationArgs<'getFork'>) {
    return this.#started().then((e) => e.getFork(at, ...a))
  }
  listForks(at: RunAt) {
    return this.#started().then((e) => e.listForks(at))
  }
  deleteFork(at: RunAt, ...a: OperationArgs<'deleteFork'>) {
    return this.#started().then((e) => e.deleteFork(at, ...a))
  }
  forkRpc(at: ForkAt, ...a: OperationArgs<'forkRpc'>) {
    return this.#started().then((e) => e.forkRpc(at, ...a))
  }
  registerSources(at: RunAt, ...a: OperationArgs<'registerSources'>) {
    return this.#started().then((e) => e.registerSources(at, ...a))
  }
  listSources(at: RunAt) {
    return this.#started().then((e) => e.listSources(at))
  }
  health(at: RunAt) {
    return this.state.engine ? this.state.engine.health(at) : this.state.health()
  }
  metrics() {
    return this.#started().then((e) => e.metrics())
  }
  /** a pool's extra (its runs), once the chain's engine has started and has one */
  runs(): EngineRuns | undefined {
    return this.state.engine?.runs?.()
  }
  close() {
    return this.state.close()
  }

  /** the chain's engine once it has started; until then every operation is CHAIN_UNAVAILABLE */
  #started(): Promise<Engine> {
    const engine = this.state.engine
    if (engine) return Promise.resolve(engine)
    return Promise.reject(
      new EngineError('CHAIN_UNAVAILABLE', this.state.unavailable(), { chain: this.name }, 'retry later; GET /v1/chains shows when the chain is up'),
    )
  }
}
