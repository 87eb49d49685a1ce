/**
 * Whether a request's client has gone away, read from Node's response object (hono's Node adapter
 * passes it as `c.env.outgoing`): closed before its answer was finished. The adapter makes an
 * AbortController for whoever reads `c.req.raw.signal`, and Node's AbortController costs about 1%
 * of a warm simulation's CPU; this reads two fields, and listens to the response's `close` only
 * for whoever asks (a worker pool stopping a queued or running call). A request that did not come
 * through Node's server (`app.request` in tests) answers with its own signal.
 *
 * @example
 * c.set('runStop', { deadline, signal: clientSignal(c) })
 * if (clientSignal(c).aborted) return // nobody will read the answer
 */
import type { Context } from 'hono'
import type { ServerResponse } from 'node:http'
import type { HttpEnv } from './httpEnv.js'

export interface ClientSignal {
  readonly aborted: boolean
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

class ResponseClosed implements ClientSignal {
  /** each listener's handler of the response's close (made for whoever listens) */
  private handlers: Map<() => void, () => void> | undefined

  constructor(private readonly res: ServerResponse) {}

  get aborted(): boolean {
    return this.res.closed && !this.res.writableFinished
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    const onClose = () => {
      if (!this.res.writableFinished) listener()
    }
    ;(this.handlers ??= new Map()).set(listener, onClose)
    this.res.once('close', onClose)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const onClose = this.handlers?.get(listener)
    if (!onClose) return
    this.handlers!.delete(listener)
    this.res.off('close', onClose)
  }
}

/** the client's going away, as a signal; one per request */
export function clientSignal(c: Context<HttpEnv>): ClientSignal {
  const res = c.env?.outgoing as ServerResponse | undefined
  return res && typeof res.once === 'function' ? new ResponseClosed(res) : c.req.raw.signal
}
