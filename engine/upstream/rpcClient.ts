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
  return new BatchingRpcClient(opts)
}

/**
 * The client's state is its queue of calls for the next batch and what it knows of the node
 * (stalled since when, probed when). Read top-down: a request joins the queue, the queue leaves
 * as batches, a batch is attempted (and retried), its answer settles each call.
 */
class BatchingRpcClient implements RpcClient {
  readonly stats: RpcStats = { httpRequests: 0, calls: 0 }
  readonly metrics = new UpstreamMetrics()
  private readonly url: string
  /** per HTTP attempt */
  private readonly timeoutMs: number
  private readonly retries: number
  private readonly retryDelayMs: number
  private readonly maxBatch: number
  /** failures that are the node not answering in time (counted as `timeout`, not `error`) */
  private readonly timeouts = new WeakSet<object>()
  private readonly redact: (s: string) => string
  private queue: PendingCall[] = []
  private scheduled = false
  private nextId = 1
  private closed = false
  /** the node accepted and did not answer: since when (undefined: it answers) */
  private stalledSince: number | undefined
  /** when the last probe of a stalled node was sent (epoch ms) */
  private lastProbeAt = 0
  /** what setImmediate runs when a tick's calls leave, bound once */
  private readonly flushSoon = () => this.flush()

  constructor(opts: RpcClientOptions) {
    this.url = opts.url
    this.timeoutMs = opts.timeoutMs
    this.retries = opts.retries ?? 2
    this.retryDelayMs = opts.retryDelayMs ?? 100
    this.maxBatch = Math.max(1, opts.maxBatchSize ?? 100)
    this.redact = redactor(opts.url)
  }

  request<T>(method: string, params: unknown[] = [], o: RpcRequestOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(this.fail('client is closed'))
    const budget = o.budget
    if (budget && budget.deadline <= Date.now()) {
      this.metrics.record(method, 'timeout', 0)
      return Promise.reject(upstreamOutOfTime(budget, method))
    }
    this.stats.calls++
    return new Promise<T>((resolve, reject) => {
      this.queue.push(this.newCall(method, params, o, resolve as (v: unknown) => void, reject))
      // the engine call waits on the upstream until this is settled (upstreamBudget.ts)
      budget?.waits?.begin()
      if (!o.deferred) this.schedule()
    })
  }

  flushDeferred(): void {
    if (this.queue.some((c) => !c.done)) this.schedule()
  }

  close(): void {
    this.closed = true
  }

  /** a call that settles once: its deadline's timer cleared, its wait ended, its outcome counted */
  private newCall(method: string, params: unknown[], o: RpcRequestOptions, resolve: (v: unknown) => void, reject: (e: unknown) => void): PendingCall {
    const { budget } = o
    const { metrics, timeouts } = this
    const started = performance.now()
    let timer: NodeJS.Timeout | undefined
    const call: PendingCall = {
      id: this.nextId++,
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
        resolve(v)
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
    if (budget) timer = setTimeout(() => call.reject(this.timedOut(upstreamOutOfTime(budget, method))), budget.deadline - Date.now())
    return call
  }

  /** the queued calls leave on the next turn of the event loop: every call of this tick in one batch */
  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(this.flushSoon)
  }

  private flush(): void {
    this.scheduled = false
    const calls = this.queue.filter((c) => !c.done)
    this.queue = []
    for (let i = 0; i < calls.length; i += this.maxBatch) void this.send(calls.slice(i, i + this.maxBatch))
  }

  private async send(batch: PendingCall[]): Promise<void> {
    if (this.stalledSince === undefined) return this.sendNow(batch)
    // stalled: a health probe still asks the node; every other call fails at once
    const probes = batch.filter((c) => c.probe)
    const refused = batch.filter((c) => !c.probe)
    if (refused.length > 0) this.refuseWhileStalled(refused, this.stalledSince)
    if (probes.length > 0) return this.sendNow(probes)
  }

  private refuseWhileStalled(refused: PendingCall[], since: number): void {
    this.probe()
    const err = this.timedOut(
      this.fail(
        `did not answer (stalled since ${new Date(since).toISOString()}: no answer within ${this.timeoutMs} ms); failing fast until it answers again (${describe(refused)})`,
        { stalled: true },
      ),
    )
    for (const c of refused) c.reject(err)
  }

  /**
   * while stalled: an eth_blockNumber asks whether the node answers again (any answer ends the
   * stall); a new one at most every quarter of `timeoutMs`, so a node that recovers is found soon
   * while one that stays silent costs a handful of requests per timeout
   */
  private probe(): void {
    if (this.closed || Date.now() - this.lastProbeAt < this.timeoutMs / 4) return
    this.lastProbeAt = Date.now()
    const call: PendingCall = { id: this.nextId++, method: 'eth_blockNumber', params: [], idempotent: true, done: false, resolve() {}, reject() {} }
    void this.attempt([call]).catch(() => undefined)
  }

  /** a batch attempted until it is answered, retried after a transport failure while retrying may help */
  private async sendNow(batch: PendingCall[]): Promise<void> {
    const canRetry = batch.every((c) => c.idempotent)
    let calls = batch
    for (let i = 0; ; i++) {
      let answer: RpcAnswer[] | RpcAnswer
      try {
        answer = await this.attempt(calls)
      } catch (e) {
        const t = e instanceof TransportFailure ? e : new TransportFailure('request failed', false)
        calls = calls.filter((c) => !c.done)
        if (!canRetry || !this.mayRetry(t, i, calls)) return this.failAll(calls, t)
        calls = await this.backOff(calls, t, i)
        if (calls.length === 0) return
        continue
      }
      return this.settle(calls, answer)
    }
  }

  /**
   * a request's call is not retried on a node that let an attempt wait out the timeout: it would
   * wait out the same silence (start-up reads, without a budget, still try again)
   */
  private mayRetry(t: TransportFailure, attempt: number, calls: PendingCall[]): boolean {
    return t.retry && attempt < this.retries && !this.closed && !(this.stalledSince !== undefined && calls.every((c) => c.budget))
  }

  private failAll(calls: PendingCall[], t: TransportFailure): void {
    const err = this.fail(`${t.message} (${describe(calls)})`)
    if (t.timeout) this.timedOut(err)
    for (const c of calls) c.reject(err)
  }

  /** waits before retry `attempt`; the calls whose budget would not outlast the wait end now. The calls still wanted after it. */
  private async backOff(calls: PendingCall[], t: TransportFailure, attempt: number): Promise<PendingCall[]> {
    const delay = this.retryDelayMs * 2 ** attempt
    const late = calls.filter((c) => c.budget && c.budget.deadline - Date.now() <= delay)
    for (const c of late) c.reject(this.timedOut(upstreamOutOfTime(c.budget!, `${t.message}; ${c.method}`)))
    const left = calls.filter((c) => !c.done)
    if (left.length === 0) return left
    await new Promise((r) => setTimeout(r, delay))
    return left.filter((c) => !c.done)
  }

  /** one HTTP exchange: a TransportFailure when the exchange itself fails, else the node's JSON */
  private async attempt(calls: PendingCall[]): Promise<RpcAnswer[] | RpcAnswer> {
    this.stats.httpRequests++
    const body = calls.length === 1 ? callJson(calls[0]!) : calls.map(callJson)
    const ctrl = new AbortController()
    // nobody waits past the latest deadline in the batch: neither does the attempt
    const now = Date.now()
    const waitMs = Math.max(1, Math.min(this.timeoutMs, Math.max(...calls.map((c) => (c.budget ? c.budget.deadline - now : this.timeoutMs)))))
    const timer = setTimeout(() => ctrl.abort(), waitMs)
    try {
      const res = await this.post(body, ctrl.signal, waitMs)
      // the node answers (whatever it says): not stalled
      this.stalledSince = undefined
      return answerOf(res, await readBody(res, ctrl.signal, waitMs))
    } finally {
      clearTimeout(timer)
    }
  }

  private async post(body: unknown, signal: AbortSignal, waitMs: number): Promise<Response> {
    try {
      return await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal,
      })
    } catch (e) {
      if (signal.aborted) {
        // a wait cut short by a caller's nearly spent budget says little about the node
        if (waitMs * 2 >= this.timeoutMs) this.stalledSince ??= Date.now()
        throw new TransportFailure(`did not answer within ${waitMs} ms`, true, true)
      }
      throw new TransportFailure(networkReason(e), true)
    }
  }

  /** each call's answer out of the node's: its result, its error, or the batch refused as a whole */
  private settle(calls: PendingCall[], answer: RpcAnswer[] | RpcAnswer): void {
    // one object answering a batch = the node refused the batch as a whole
    const list = Array.isArray(answer) ? answer : calls.length === 1 || answer?.error ? [answer] : undefined
    if (!list) {
      const err = this.fail(`answered a batch with a malformed body (${describe(calls)})`)
      for (const c of calls) c.reject(err)
      return
    }
    const byId = new Map<unknown, RpcAnswer>()
    for (const a of list) if (a && typeof a === 'object') byId.set(a.id, a)
    const whole = !Array.isArray(answer) && answer?.error && (calls.length > 1 || answer.id === null) ? answer : undefined
    for (const c of calls) this.settleCall(c, whole ?? byId.get(c.id) ?? (calls.length === 1 && list.length === 1 ? list[0] : undefined))
  }

  private settleCall(c: PendingCall, a: RpcAnswer | undefined): void {
    if (!a || typeof a !== 'object') {
      c.reject(this.fail(`answer is missing the result of ${c.method} (wrong batch shape)`))
    } else if (a.error) {
      const code = typeof a.error.code === 'number' ? a.error.code : undefined
      const msg = typeof a.error.message === 'string' ? a.error.message.slice(0, 300) : 'unknown error'
      c.reject(
        this.fail(`${c.method} failed: ${msg}`, {
          method: c.method,
          rpcCode: code,
          rpcMessage: this.redact(msg),
          rpcData: redactData(a.error.data, this.redact),
        }),
      )
    } else if (!('result' in a)) {
      c.reject(this.fail(`answer for ${c.method} has neither result nor error`))
    } else {
      c.resolve(a.result)
    }
  }

  /** every failure, its words free of the URL */
  private fail(what: string, details?: Record<string, unknown>): EngineError {
    return new EngineError('STATE_ACCESS_ERROR', this.redact(`upstream RPC ${what}`), details, 'check that the upstream node is reachable and healthy')
  }

  /** marks a failure as the node not answering in time */
  private timedOut<E extends object>(e: E): E {
    this.timeouts.add(e)
    return e
  }
}

async function readBody(res: Response, signal: AbortSignal, waitMs: number): Promise<string> {
  try {
    return await res.text()
  } catch {
    if (signal.aborted) throw new TransportFailure(`did not answer within ${waitMs} ms`, true, true)
    throw new TransportFailure('connection dropped while reading the answer', true)
  }
}

/** the node's JSON; a batch-level JSON-RPC error may come with a 4xx/5xx status: its message is preferred */
function answerOf(res: Response, text: string): RpcAnswer[] | RpcAnswer {
  const parsed = tryParse(text)
  if (!res.ok) {
    if (parsed && !Array.isArray(parsed) && parsed.error) return parsed
    throw new TransportFailure(`answered HTTP ${res.status}`, res.status === 429 || res.status >= 500)
  }
  if (parsed === undefined) throw new TransportFailure('answered with a body that is not JSON', true)
  return parsed
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
