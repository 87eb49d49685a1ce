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
import { ENGINE_OPERATIONS, type Engine, type EngineHealth } from '../engine/types.js'

const OPERATIONS = new Set<string>(ENGINE_OPERATIONS)

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

  const stand = {
    async health(): Promise<EngineHealth> {
      return {
        network: 'unknown',
        chainId: opts.configured.chainId ?? 0,
        kind: opts.configured.kind ?? 'ethereum',
        upstreamOk: false,
        cacheOk: true,
        unavailable: unavailable(),
      }
    },
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      await engine?.close()
    },
  }
  return new Proxy({} as Engine, {
    get(_target, method: string) {
      if (engine) {
        const member = (engine as unknown as Record<string, unknown>)[method]
        return typeof member === 'function' ? (member as (...a: unknown[]) => unknown).bind(engine) : member
      }
      if (method === 'health' || method === 'close') return stand[method]
      // anything but an engine operation (a pool's optional extras, `then`) is absent until it starts
      if (!OPERATIONS.has(method)) return undefined
      return () =>
        Promise.reject(new EngineError('CHAIN_UNAVAILABLE', unavailable(), { chain: name }, 'retry later; GET /v1/chains shows when the chain is up'))
    },
  })
}
