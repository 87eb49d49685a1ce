/**
 * `RpcClient`: the one JSON-RPC transport to the upstream node.
 *
 * - Batching: every `request()` made in the same tick (before the next setImmediate) goes out in
 *   ONE HTTP request as a JSON-RPC batch (split only above `maxBatchSize`).
 * - Timeout per HTTP attempt (`timeoutMs`), retries with backoff for idempotent calls on transport
 *   failures (refused, reset, a short timeout, HTTP 429/5xx, unreadable body). A JSON-RPC error answer is
 *   the node's verdict and is not retried.
 * - A call made with an engine call's upstream time budget (upstreamBudget.ts) ends by its
 *   deadline whatever the attempts and retries: an attempt never waits past the latest deadline
 *   of its batch, a retry is only sent for calls still within theirs.
 * - A node that accepts and never answers is remembered: once an attempt has waited out (at least
 *   half of) `timeoutMs` for nothing, the node counts as stalled: no retry of a request's calls
 *   asks it again, and every new batch fails at once — except a
 *   health probe (`probe`), which still asks — while an `eth_blockNumber` (sent when a batch is
 *   refused, at most one per quarter timeout) asks whether it answers again. Cold reads then fail
 *   fast instead of each waiting out its own budget on a node whose silence is known; any answer
 *   of the node (even an HTTP error) ends the stall.
 * - A budget that counts its call's waits (`UpstreamBudget.waits`) hears of each call from when
 *   it is queued until it is settled: whoever runs the engine call learns when it waits on the
 *   upstream and when it computes again.
 * - Every failure becomes `EngineError('STATE_ACCESS_ERROR')`. The upstream URL may carry an API
 *   key, so no message ever contains it (nor the host, nor a low-level cause that would name it).
 * - `stats` counts HTTP requests and calls so tests can assert round trips; `metrics` counts each
 *   call's outcome (ok, error, timeout) and duration by method (upstreamMetrics.ts), once per call.
 *
 * @example
 * const rpc = createRpcClient({ url, timeoutMs: 10_000 })
 * const [bal, code] = await Promise.all([
 *   rpc.request<string>('eth_getBalance', [addr, '0x10']),
 *   rpc.request<string>('eth_getCode', [addr, '0x10']),
 * ]) // one HTTP request
 */
import { EngineError } from '../platform/errors.js'
import { upstreamOutOfTime, type UpstreamBudget } from './upstreamBudget.js'
import { UpstreamMetrics } from './upstreamMetrics.js'

export interface RpcClientOptions {
  url: string
  /** per HTTP attempt */
  timeoutMs: number
  /** extra attempts for idempotent calls on transport failures (default 2) */
  retries?: number
  /** first backoff, doubled each retry (default 100 ms) */
  retryDelayMs?: number
  /** calls per HTTP request (default 100; many providers cap batches there) */
  maxBatchSize?: number
}

export interface RpcRequestOptions {
  /** false for calls with side effects (never retried); default true */
  idempotent?: boolean
  /**
   * wait for the next batch another call sends (or `flushDeferred`) instead of sending one of its
   * own: reads that should ride along with a batch about to leave, not cost a round trip apart
   */
  deferred?: boolean
  /** the engine call's upstream time budget: the call ends by its deadline (none at start-up) */
  budget?: UpstreamBudget
  /** a health probe: asks the node even while it is stalled (and so finds out it answers again) */
  probe?: boolean
}

export interface RpcStats {
  /** HTTP requests sent, retries included */
  httpRequests: number
  /** JSON-RPC calls requested */
  calls: number
}

export interface RpcClient {
  request<T = unknown>(method: string, params?: unknown[], opts?: RpcRequestOptions): Promise<T>
  /** sends deferred calls no other batch carried */
  flushDeferred(): void
  readonly stats: RpcStats
  /** each call's outcome and duration by method */
  readonly metrics: UpstreamMetrics
  close(): void
}

interface PendingCall {
  id: number
  method: string
  params: unknown[]
  idempotent: boolean
  /** the engine call's budget this call belongs to (none at start-up) */
  budget?: UpstreamBudget
  probe?: boolean
  /** answered, failed or out of time: later outcomes are ignored */
  done: boolean
  resolve(v: unknown): void
  reject(e: unknown): void
}

interface RpcAnswer {
  id?: unknown
  result?: unknown
  error?: { code?: unknown; message?: unknown; data?: unknown }
}

/** a failure of the whole HTTP exchange; `retry` when trying again may help */
class TransportFailure {
  constructor(
    readonly message: string,
    readonly retry: boolean,
    /** the node did not answer in time */
    readonly timeout = false,
  ) {}
}

export function createRpcClient(opts: RpcClientOptions): RpcClient {
  const retries = opts.retries ?? 2
  const retryDelayMs = opts.retryDelayMs ?? 100
  const maxBatch = Math.max(1, opts.maxBatchSize ?? 100)
  const stats: RpcStats = { httpRequests: 0, calls: 0 }
  const metrics = new UpstreamMetrics()
  /** failures that are the node not answering in time (counted as `timeout`, not `error`) */
  const timeouts = new WeakSet<object>()
  const timedOut = <E extends object>(e: E): E => (timeouts.add(e), e)
  const redact = redactor(opts.url)
  let queue: PendingCall[] = []
  let scheduled = false
  let nextId = 1
  let closed = false
  /** the node accepted and did not answer: since when (undefined: it answers) */
  let stalledSince: number | undefined
  /** when the last probe of a stalled node was sent (epoch ms) */
  let lastProbeAt = 0

  const fail = (what: string, details?: Record<string, unknown>) =>
    new EngineError('STATE_ACCESS_ERROR', redact(`upstream RPC ${what}`), details, 'check that the upstream node is reachable and healthy')

  async function attempt(calls: PendingCall[]): Promise<RpcAnswer[] | RpcAnswer> {
    stats.httpRequests++
    const body = calls.length === 1 ? callJson(calls[0]!) : calls.map(callJson)
    const ctrl = new AbortController()
    // nobody waits past the latest deadline in the batch: neither does the attempt
    const now = Date.now()
    const waitMs = Math.max(1, Math.min(opts.timeoutMs, Math.max(...calls.map((c) => (c.budget ? c.budget.deadline - now : opts.timeoutMs)))))
    const timer = setTimeout(() => ctrl.abort(), waitMs)
    try {
      let res: Response
      try {
        res = await fetch(opts.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(body),
          signal: ctrl.signal,
        })
      } catch (e) {
        if (ctrl.signal.aborted) {
          // a wait cut short by a caller's nearly spent budget says little about the node
          if (waitMs * 2 >= opts.timeoutMs) stalledSince ??= Date.now()
          throw new TransportFailure(`did not answer within ${waitMs} ms`, true, true)
        }
        throw new TransportFailure(networkReason(e), true)
      }
      // the node answers (whatever it says): not stalled
      stalledSince = undefined
      let text: string
      try {
        text = await res.text()
      } catch {
        if (ctrl.signal.aborted) throw new TransportFailure(`did not answer within ${waitMs} ms`, true, true)
        throw new TransportFailure('connection dropped while reading the answer', true)
      }
      if (!res.ok) {
        // a batch-level JSON-RPC error may come with a 4xx/5xx status; prefer its message
        const parsed = tryParse(text)
        if (parsed && !Array.isArray(parsed) && parsed.error) return parsed
        throw new TransportFailure(`answered HTTP ${res.status}`, res.status === 429 || res.status >= 500)
      }
      const parsed = tryParse(text)
      if (parsed === undefined) throw new TransportFailure('answered with a body that is not JSON', true)
      return parsed
    } finally {
      clearTimeout(timer)
    }
  }

  async function send(batch: PendingCall[]): Promise<void> {
    if (stalledSince === undefined) return sendNow(batch)
    // stalled: a health probe still asks the node; every other call fails at once
    const probes = batch.filter((c) => c.probe)
    const refused = batch.filter((c) => !c.probe)
    if (refused.length > 0) {
      probe()
      const err = timedOut(
        fail(
          `did not answer (stalled since ${new Date(stalledSince).toISOString()}: no answer within ${opts.timeoutMs} ms); failing fast until it answers again (${describe(refused)})`,
          { stalled: true },
        ),
      )
      for (const c of refused) c.reject(err)
    }
    if (probes.length > 0) return sendNow(probes)
  }

  /**
   * while stalled: an eth_blockNumber asks whether the node answers again (any answer ends the
   * stall); a new one at most every quarter of `timeoutMs`, so a node that recovers is found soon
   * while one that stays silent costs a handful of requests per timeout
   */
  function probe(): void {
    if (closed || Date.now() - lastProbeAt < opts.timeoutMs / 4) return
    lastProbeAt = Date.now()
    const call: PendingCall = { id: nextId++, method: 'eth_blockNumber', params: [], idempotent: true, done: false, resolve() {}, reject() {} }
    void attempt([call]).catch(() => undefined)
  }

  async function sendNow(batch: PendingCall[]): Promise<void> {
    const canRetry = batch.every((c) => c.idempotent)
    let calls = batch
    let answer: RpcAnswer[] | RpcAnswer | undefined
    for (let i = 0; ; i++) {
      try {
        answer = await attempt(calls)
        break
      } catch (e) {
        const t = e instanceof TransportFailure ? e : new TransportFailure('request failed', false)
        calls = calls.filter((c) => !c.done)
        // a request's call is not retried on a node that let an attempt wait out the timeout: it
        // would wait out the same silence (start-up reads, without a budget, still try again)
        if (!canRetry || !t.retry || i >= retries || closed || (stalledSince !== undefined && calls.every((c) => c.budget))) {
          const err = fail(`${t.message} (${describe(calls)})`)
          if (t.timeout) timedOut(err)
          for (const c of calls) c.reject(err)
          return
        }
        const delay = retryDelayMs * 2 ** i
        // a retry only for calls whose budget outlasts the backoff; the others end now
        const late = calls.filter((c) => c.budget && c.budget.deadline - Date.now() <= delay)
        for (const c of late) c.reject(timedOut(upstreamOutOfTime(c.budget!, `${t.message}; ${c.method}`)))
        calls = calls.filter((c) => !c.done)
        if (calls.length === 0) return
        await new Promise((r) => setTimeout(r, delay))
        calls = calls.filter((c) => !c.done)
        if (calls.length === 0) return
      }
    }
    settle(calls, answer)
  }

  function settle(calls: PendingCall[], answer: RpcAnswer[] | RpcAnswer): void {
    // one object answering a batch = the node refused the batch as a whole
    const list = Array.isArray(answer) ? answer : calls.length === 1 || answer?.error ? [answer] : undefined
    if (!list) {
      const err = fail(`answered a batch with a malformed body (${describe(calls)})`)
      for (const c of calls) c.reject(err)
      return
    }
    const byId = new Map<unknown, RpcAnswer>()
    for (const a of list) if (a && typeof a === 'object') byId.set(a.id, a)
    const whole = !Array.isArray(answer) && answer?.error && (calls.length > 1 || answer.id === null) ? answer : undefined
    for (const c of calls) {
      const a = whole ?? byId.get(c.id) ?? (calls.length === 1 && list.length === 1 ? list[0] : undefined)
      if (!a || typeof a !== 'object') {
        c.reject(fail(`answer is missing the result of ${c.method} (wrong batch shape)`))
      } else if (a.error) {
        const code = typeof a.error.code === 'number' ? a.error.code : undefined
        const msg = typeof a.error.message === 'string' ? a.error.message.slice(0, 300) : 'unknown error'
        c.reject(fail(`${c.method} failed: ${msg}`, { method: c.method, rpcCode: code, rpcMessage: redact(msg), rpcData: redactData(a.error.data, redact) }))
      } else if (!('result' in a)) {
        c.reject(fail(`answer for ${c.method} has neither result nor error`))
      } else {
        c.resolve(a.result)
      }
    }
  }

  function flush(): void {
    scheduled = false
    const calls = queue.filter((c) => !c.done)
    queue = []
    for (let i = 0; i < calls.length; i += maxBatch) void send(calls.slice(i, i + maxBatch))
  }

  return {
    stats,
    metrics,
    request<T>(method: string, params: unknown[] = [], o: RpcRequestOptions = {}): Promise<T> {
      if (closed) return Promise.reject(fail('client is closed'))
      const budget = o.budget
      if (budget && budget.deadline <= Date.now()) {
        metrics.record(method, 'timeout', 0)
        return Promise.reject(upstreamOutOfTime(budget, method))
      }
      stats.calls++
      const started = performance.now()
      return new Promise<T>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined
        const call: PendingCall = {
          id: nextId++,
          method,
          params,
          idempotent: o.idempotent ?? true,
          budget,
          probe: o.probe,
          done: false,
          resolve(v) {
            if (call.done) return
            call.done = true
            clearTimeout(timer)
            budget?.waits?.end()
            metrics.record(method, 'ok', (performance.now() - started) / 1000)
            resolve(v as T)
          },
          reject(e) {
            if (call.done) return
            call.done = true
            clearTimeout(timer)
            budget?.waits?.end()
            metrics.record(method, typeof e === 'object' && e !== null && timeouts.has(e) ? 'timeout' : 'error', (performance.now() - started) / 1000)
            reject(e)
          },
        }
        // the deadline holds even while the call waits in a batch that waits on another's answer
        if (budget) timer = setTimeout(() => call.reject(timedOut(upstreamOutOfTime(budget, method))), budget.deadline - Date.now())
        queue.push(call)
        // the engine call waits on the upstream until this is settled (upstreamBudget.ts)
        budget?.waits?.begin()
        if (!scheduled && !o.deferred) {
          scheduled = true
          setImmediate(flush)
        }
      })
    },
    flushDeferred() {
      if (!scheduled && queue.some((c) => !c.done)) {
        scheduled = true
        setImmediate(flush)
      }
    },
    close() {
      closed = true
    },
  }
}

function callJson(c: PendingCall) {
  return { jsonrpc: '2.0', id: c.id, method: c.method, params: c.params }
}

function describe(calls: PendingCall[]): string {
  const methods = [...new Set(calls.map((c) => c.method))]
  return methods.length > 3 ? `${methods.slice(0, 3).join(', ')}, …` : methods.join(', ')
}

function tryParse(text: string): RpcAnswer[] | RpcAnswer | undefined {
  try {
    const v = JSON.parse(text) as unknown
    return v !== null && typeof v === 'object' ? (v as RpcAnswer[] | RpcAnswer) : undefined
  } catch {
    return undefined
  }
}

/** a cause in words, never the low-level message (undici's names the host and port) */
function networkReason(e: unknown): string {
  const code = (e as { cause?: { code?: string } })?.cause?.code ?? (e as { code?: string })?.code
  switch (code) {
    case 'ECONNREFUSED':
      return 'refused the connection'
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'closed the connection'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name did not resolve'
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out'
    default:
      return 'could not be reached'
  }
}

/** strips the URL and its parts from any text that might echo them (e.g. a node's error message) */
function redactor(url: string): (s: string) => string {
  const parts = new Set<string>([url, url.replace(/\/+$/, '')])
  try {
    const u = new URL(url)
    parts.add(u.host)
    parts.add(u.hostname)
    if (u.pathname.length > 1) parts.add(u.pathname.replace(/^\/+/, ''))
    // a key is often one path segment or one query value: each is redacted on its own too
    for (const seg of u.pathname.split('/')) parts.add(decodeURIComponent(seg))
    if (u.search.length > 1) parts.add(u.search.slice(1))
    for (const v of u.searchParams.values()) parts.add(v)
    if (u.password) parts.add(u.password)
    if (u.username) parts.add(u.username)
  } catch {
    /* not a URL: the whole string is still redacted */
  }
  const secrets = [...parts].filter((p) => p.length >= 4).sort((a, b) => b.length - a.length)
  return (s) => {
    let out = s
    for (const p of secrets) out = out.split(p).join('<upstream>')
    return out
  }
}

/** error data (revert bytes, node details) with any echo of the URL removed */
function redactData(data: unknown, redact: (s: string) => string): unknown {
  if (data === undefined) return undefined
  try {
    return JSON.parse(redact(JSON.stringify(data))) as unknown
  } catch {
    return undefined
  }
}

/** the client as one engine call sees it: every request carries that call's budget */
export function withBudget(rpc: RpcClient, budget: UpstreamBudget): RpcClient {
  return {
    request: (method, params, o) => rpc.request(method, params, { ...o, budget }),
    flushDeferred: () => rpc.flushDeferred(),
    stats: rpc.stats,
    metrics: rpc.metrics,
    close: () => rpc.close(),
  }
}
